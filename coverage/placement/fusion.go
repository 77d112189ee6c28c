package placement

import (
	"fmt"
	"slices"
	"strings"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"
	opdefpb "github.com/wamuir/graft/tensorflow/core/framework/op_def_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/graph"
)

// fusions lists Grappler remapper fusions that apply on the source CUDA GPU
// but not on the target, because the target lacks the fused kernel. The
// CUDA conditions follow tensorflow/core/grappler/optimizers/remapper.cc:
// Conv2D+BiasAdd+Relu for float/half in NHWC or NCHW (IsGpuCompatibleConv2D,
// remapper.cc:408-420); MatMul+BiasAdd+Tanh/Sigmoid for half
// (IsGpuCompatibleMatMul, 423-434; MatMul with Relu or no activation needs
// TF_USE_CUBLASLT=1, off by default, so it is not assumed);
// FusedBatchNorm+Relu in inference (FindFusedBatchNormEx, 2347-2426).
// Activations that need cuDNN runtime fusion (Ampere+) are not assumed.
func (s *sim) fusions() []Fusion {
	if s.tgt == s.cpu {
		return nil
	}
	outs := s.outEdges()
	single := func(i int) int {
		var dst = -1
		for _, e := range outs.Of(i) {
			if e.isCtrl() {
				return -1
			}
			if e.port == 0 {
				if dst >= 0 {
					return -1
				}
				dst = int(e.dst)
			}
		}
		return dst
	}
	// Each chain is headed by a first instance of its own graph node, so
	// no two chains are the same.
	// The chains are many (100,000 in a model of 200,000 nodes on a
	// target that lacks a fused kernel): their node lists share arrays,
	// and they are gathered in chunks and copied once to size.
	var chunks [][]Fusion
	var names []string
	type reasonKey struct {
		ops   [3]string
		fused string
		t     tpb.DataType
	}
	reasons := map[reasonKey]string{}
	var last reasonKey
	var lastReason string
	// A head's op and T are its lookup class's (one op and attr map)
	// where its lookup node is its graph node (no copy of auto mixed
	// precision's): read once per class, not from every head's node.
	type head struct {
		known bool
		op    string
		t     tpb.DataType
	}
	var byClass []head
	if s.flat != nil && s.flat.classes > 0 {
		byClass = make([]head, s.flat.classes)
	}
	for _, i32 := range s.special().fusionHeads {
		i, p := int(i32), s.nodes[i32]
		if int(s.dev[i]) != s.tgt {
			continue
		}
		var fused string
		var chain [3]int
		var n int
		var h head
		// A class's nodes are the flattened graph's, unless the
		// simulation has its own: then only those whose lookup node is
		// their graph node are surely alike.
		if byClass != nil && s.flat.classOf[i] >= 0 && (!s.ownNodes || p.src == p.look()) {
			c := s.flat.classOf[i]
			if !byClass[c].known {
				byClass[c] = head{known: true, op: p.op(), t: p.look().Attrs["T"].GetType()}
			}
			h = byClass[c]
		} else {
			h = head{op: p.op(), t: p.look().Attrs["T"].GetType()}
		}
		t := h.t
		switch h.op {
		case "Conv2D":
			if t != tpb.DataType_DT_FLOAT && t != tpb.DataType_DT_HALF {
				continue
			}
			b := single(i)
			if b < 0 || s.nodes[b].op() != "BiasAdd" {
				continue
			}
			a := single(b)
			if a < 0 || s.nodes[a].op() != "Relu" {
				continue
			}
			fused, chain, n = "_FusedConv2D", [3]int{i, b, a}, 3
		case "MatMul":
			if t != tpb.DataType_DT_HALF {
				continue
			}
			b := single(i)
			if b < 0 || s.nodes[b].op() != "BiasAdd" {
				continue
			}
			a := single(b)
			if a < 0 || (s.nodes[a].op() != "Tanh" && s.nodes[a].op() != "Sigmoid") {
				continue
			}
			fused, chain, n = "_FusedMatMul", [3]int{i, b, a}, 3
		case "FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3":
			if t != tpb.DataType_DT_FLOAT && t != tpb.DataType_DT_HALF || p.look().Attrs["is_training"].GetB() {
				continue
			}
			if p.op() != "FusedBatchNorm" && p.look().Attrs["U"].GetType() != tpb.DataType_DT_FLOAT {
				continue
			}
			a := single(i)
			if a < 0 || s.nodes[a].op() != "Relu" {
				continue
			}
			fused, chain, n = "_FusedBatchNormEx", [3]int{i, a}, 2
		default:
			continue
		}
		src := s.fusedCovered(onSource, fused, t)
		if s.opts.Source != nil && !src {
			continue
		}
		if s.tfRemapsOnTarget() && s.fusedCovered(onTarget, fused, t) {
			continue
		}
		var opsArr [3]string
		ops := opsArr[:n]
		for k, j := range chain[:n] {
			ops[k] = s.nodes[j].op()
		}
		if s.vendorFuses(ops, t) {
			continue
		}
		if len(names) < n {
			names = make([]string, 3<<10)
		}
		f := Fusion{Fused: fused, Nodes: names[:n:n]}
		names = names[n:]
		for k, j := range chain[:n] {
			f.Nodes[k] = s.label(s.nodes[j])
		}
		// A model repeats its chains: the reason is built once per kind.
		// Chains of a kind come in runs: the last kind is tried before
		// the map.
		rk := reasonKey{ops: opsArr, fused: fused, t: t}
		if lastReason != "" && rk == last {
			f.Reason = lastReason
		} else {
			f.Reason = reasons[rk]
		}
		if f.Reason == "" {
			how := "by remapper.cc's CUDA rules"
			if s.opts.Source != nil {
				how = "on the source " + s.opts.Source.DeviceType()
			}
			f.Reason = fmt.Sprintf("Grappler's remapper fuses %s into %s %s, but %s: the ops run unfused",
				strings.Join(ops, "+"), fused, how, s.notFusedWhy(fused, t))
			reasons[rk] = f.Reason
		}
		last, lastReason = rk, f.Reason
		if len(chunks) == 0 || len(chunks[len(chunks)-1]) == cap(chunks[len(chunks)-1]) {
			chunks = append(chunks, make([]Fusion, 0, 1<<10))
		}
		chunks[len(chunks)-1] = append(chunks[len(chunks)-1], f)
	}
	// In the order of the flattened graph, which is deterministic: the
	// report orders them its own way (reports.Target.Normalize), and a
	// sort here by path would cost a model with 100,000 chains 15 ms more.
	return slices.Concat(chunks...)
}

// Whom fusedCovered asks: the source (Options.Source) or the target.
const (
	onSource = iota
	onTarget
)

// fusedCovered asks the source or the target (on) for the fused op with
// dtype t; true when there is no source.
func (s *sim) fusedCovered(on int, op string, t tpb.DataType) bool {
	m := s.matchers[s.tgt]
	if on == onSource {
		m = s.opts.Source
	}
	if m == nil {
		return true
	}
	k := fusedKey{on, op, t}
	if v, ok := s.fused[k]; ok {
		return v
	}
	if s.fused == nil {
		s.fused = map[fusedKey]bool{}
	}
	v := lookupFused(s, m, op, t)
	s.fused[k] = v
	return v
}

type fusedKey struct {
	on int
	op string
	t  tpb.DataType
}

// lookupFused is fusedCovered's lookup.
func lookupFused(s *sim, m coverage.Matcher, op string, t tpb.DataType) bool {
	attrs := map[string]*attrpb.AttrValue{"T": typeAttr(t)}
	if op == "_FusedBatchNormEx" {
		attrs["U"] = typeAttr(tpb.DataType_DT_FLOAT)
	}
	def := s.opDef(op)
	if def == nil {
		// A vendor's fused op has no TensorFlow OpDef; its kernels are
		// still looked up by name and attrs.
		def = &opdefpb.OpDef{Name: op}
	}
	n := &graph.Node{ID: -1, Name: op, Op: op, OpDef: def, Attrs: attrs,
		Def: &nodepb.NodeDef{Name: op, Op: op, Attr: attrs}}
	return m.Match(n).Reason.Covered()
}

// tfRemapsOnTarget tells whether TensorFlow's own remapper fuses nodes on
// the target: it does only for nodes on CPU and GPU devices (IsCpuCompatible
// and IsGpuCompatible test NodeIsOnCpu / NodeIsOnGpu,
// tensorflow/core/grappler/utils.cc:139-149), so not on XPU, NPU, MUSA, ...
func (s *sim) tfRemapsOnTarget() bool {
	t := strings.ToUpper(s.types[s.tgt])
	return strings.HasPrefix(t, "GPU") || strings.HasPrefix(t, "CPU")
}

// vendorOptimizer is the target stack's own graph optimizer, when its pack
// declares one tfscan could read.
func (s *sim) vendorOptimizer() *coverage.Optimizer {
	c := s.opts.Stack
	if c == nil || c.Stack() == nil || c.Stack().Optimizer == nil || !c.Stack().Optimizer.Modelled {
		return nil
	}
	return c.Stack().Optimizer
}

// vendorFuses tells whether the vendor's optimizer fuses the chain of ops
// (producer first) with dtype t into a fused op the target has a kernel for.
func (s *sim) vendorFuses(ops []string, t tpb.DataType) bool {
	opt := s.vendorOptimizer()
	if opt == nil {
		return false
	}
	for _, f := range opt.Fusions {
		if len(f.Chain) != len(ops) || len(f.DTypes) > 0 && !slices.Contains(f.DTypes, dtName(t)) {
			continue
		}
		match := true
		for k, step := range f.Chain {
			match = match && slices.Contains(step, ops[k])
		}
		if match && s.fusedCovered(onTarget, f.Fused, t) {
			return true
		}
	}
	return false
}

// notFusedWhy says why the target runs the chain unfused.
func (s *sim) notFusedWhy(fused string, t tpb.DataType) string {
	var why string
	if s.tfRemapsOnTarget() {
		why = fmt.Sprintf("%s has no %s kernel for %s", s.types[s.tgt], fused, dtName(t))
	} else {
		why = fmt.Sprintf("TensorFlow's remapper does not fuse on %s (only CPU and GPU nodes)", s.types[s.tgt])
	}
	if opt := s.vendorOptimizer(); opt != nil {
		return why + fmt.Sprintf(", and %s has no such fusion for %s with a kernel (%s)", opt.Name, dtName(t), opt.Source)
	}
	if c := s.opts.Stack; c != nil && c.Stack() != nil && c.Stack().Optimizer != nil {
		return why + fmt.Sprintf("; %s is not modelled (the pack's stack.optimizer says why)", c.Stack().Optimizer.Name)
	}
	return why
}
