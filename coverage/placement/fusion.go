package placement

import (
	"fmt"
	"sort"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"
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
		for _, e := range outs[i] {
			if e.ctrl {
				return -1
			}
			if e.port == 0 {
				if dst >= 0 {
					return -1
				}
				dst = e.dst
			}
		}
		return dst
	}
	var out []Fusion
	seen := map[string]bool{}
	for i, p := range s.nodes {
		if p.ghost || p.src == nil || s.dev[i] != s.tgt || s.firstOf[p.src.ID] != i {
			continue
		}
		t := p.look.Attrs["T"].GetType()
		var fused string
		var chain []int
		switch p.op {
		case "Conv2D":
			if t != tpb.DataType_DT_FLOAT && t != tpb.DataType_DT_HALF {
				continue
			}
			b := single(i)
			if b < 0 || s.nodes[b].op != "BiasAdd" {
				continue
			}
			a := single(b)
			if a < 0 || s.nodes[a].op != "Relu" {
				continue
			}
			fused, chain = "_FusedConv2D", []int{i, b, a}
		case "MatMul":
			if t != tpb.DataType_DT_HALF {
				continue
			}
			b := single(i)
			if b < 0 || s.nodes[b].op != "BiasAdd" {
				continue
			}
			a := single(b)
			if a < 0 || (s.nodes[a].op != "Tanh" && s.nodes[a].op != "Sigmoid") {
				continue
			}
			fused, chain = "_FusedMatMul", []int{i, b, a}
		case "FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3":
			if t != tpb.DataType_DT_FLOAT && t != tpb.DataType_DT_HALF || p.look.Attrs["is_training"].GetB() {
				continue
			}
			if p.op != "FusedBatchNorm" && p.look.Attrs["U"].GetType() != tpb.DataType_DT_FLOAT {
				continue
			}
			a := single(i)
			if a < 0 || s.nodes[a].op != "Relu" {
				continue
			}
			fused, chain = "_FusedBatchNormEx", []int{i, a}
		default:
			continue
		}
		src := s.fusedCovered(s.opts.Source, fused, t)
		if s.opts.Source != nil && !src {
			continue
		}
		if s.fusedCovered(s.matchers[s.tgt], fused, t) {
			continue
		}
		f := Fusion{Fused: fused}
		ops := ""
		for k, j := range chain {
			f.Nodes = append(f.Nodes, s.nodes[j].label())
			if k > 0 {
				ops += "+"
			}
			ops += s.nodes[j].op
		}
		how := "by remapper.cc's CUDA rules"
		if s.opts.Source != nil {
			how = "on the source " + s.opts.Source.DeviceType()
		}
		f.Reason = fmt.Sprintf("Grappler's remapper fuses %s into %s %s, but %s has no %s kernel for %s: the ops run unfused",
			ops, fused, how, s.types[s.tgt], fused, dtName(t))
		key := f.Fused + f.Nodes[0]
		if !seen[key] {
			seen[key] = true
			out = append(out, f)
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Nodes[0] < out[b].Nodes[0] })
	return out
}

// fusedCovered asks m for the fused op with dtype t.
func (s *sim) fusedCovered(m coverage.Matcher, op string, t tpb.DataType) bool {
	if m == nil {
		return true
	}
	attrs := map[string]*attrpb.AttrValue{"T": typeAttr(t)}
	if op == "_FusedBatchNormEx" {
		attrs["U"] = typeAttr(tpb.DataType_DT_FLOAT)
	}
	n := &graph.Node{ID: -1, Name: op, Op: op, OpDef: s.opDef(op), Attrs: attrs,
		Def: &nodepb.NodeDef{Name: op, Op: op, Attr: attrs}}
	r := m.Match(n).Reason
	return r == coverage.ReasonCovered || r == coverage.ReasonCoveredDefault
}
