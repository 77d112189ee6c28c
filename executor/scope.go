package executor

import (
	"fmt"
	"strconv"
	"strings"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	tspb "github.com/wamuir/graft/tensorflow/core/framework/tensor_shape_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/dtype"
	"github.com/tfscan/tfscan/graph"
)

// A scope is the top-level graph or one function body, prepared for
// running: local node indices and out-edges.
type scope struct {
	e     *Executor
	fn    *graph.Function // nil at top level
	nodes []*graph.Node
	local map[*graph.Node]int
	// out[i] lists the edges leaving node i; control edges have srcSlot -1.
	out [][]edge
	// argUses[a] lists the (node, slot) pairs that read function argument a.
	argUses [][]edge
	// numData and numCtl are each node's data and control input counts.
	numData, numCtl []int
	isMerge         []bool
	// attrs holds each node's attrs as kernels see them (float dtypes
	// promoted in float64 mode); nil entries mean n.Attrs as is.
	attrs []map[string]*attrpb.AttrValue
	// hasPlaceholder marks nodes with attrs bound by the caller ("$T").
	hasPlaceholder []bool
	// rets are a function's results, controlRets the nodes its control
	// outputs name.
	rets        []retRef
	controlRets []*graph.Node
	retErr      error
	plans       map[string]*plan
	// paths are the nodes' graph paths, rendered on first use.
	paths []string
	// outFrames is the v1 loop frame of each node's outputs, built on
	// first use by outputFrames.
	outFrames []string
	// owned is ownedInputs, computed on first use.
	owned []uint64
	// stable is stableInputs, computed on first use.
	stable []uint64
	// recip marks the divisions by a constant Grappler rewrites to a
	// multiplication by the reciprocal (grappler_div.go).
	recip map[int]*reciprocalDiv
	// reuse is each node's reuseFlags, computed on first use.
	reuse []uint8
}

type edge struct {
	dst, dstSlot, srcSlot int
}

// retRef is one function result: a node output, or an argument passed
// through (node nil).
type retRef struct {
	node   *graph.Node
	output int
	arg    int
}

func newScope(e *Executor, fn *graph.Function, nodes []*graph.Node) *scope {
	s := &scope{
		e: e, fn: fn, nodes: nodes,
		local:          make(map[*graph.Node]int, len(nodes)),
		out:            make([][]edge, len(nodes)),
		numData:        make([]int, len(nodes)),
		numCtl:         make([]int, len(nodes)),
		isMerge:        make([]bool, len(nodes)),
		attrs:          make([]map[string]*attrpb.AttrValue, len(nodes)),
		hasPlaceholder: make([]bool, len(nodes)),
		plans:          map[string]*plan{},
	}
	for i, n := range nodes {
		s.local[n] = i
	}
	if fn != nil {
		s.argUses = make([][]edge, len(fn.Def.GetSignature().GetInputArg()))
	}
	for i, n := range nodes {
		s.numData[i] = len(n.Inputs)
		s.numCtl[i] = len(n.ControlInputs())
		s.isMerge[i] = n.Op == "Merge" || n.Op == "RefMerge"
		for slot, in := range n.Inputs {
			if in.Node == nil {
				if fn != nil && in.Arg >= 0 && int(in.Arg) < len(s.argUses) {
					s.argUses[in.Arg] = append(s.argUses[in.Arg], edge{dst: i, dstSlot: slot, srcSlot: int(in.Arg)})
				}
				continue
			}
			if src, ok := s.local[in.Node]; ok {
				s.out[src] = append(s.out[src], edge{dst: i, dstSlot: slot, srcSlot: int(in.Output)})
			}
		}
		for _, c := range n.ControlInputs() {
			if src, ok := s.local[c]; ok {
				s.out[src] = append(s.out[src], edge{dst: i, dstSlot: -1, srcSlot: -1})
			}
		}
		for _, a := range n.Attrs {
			if a.GetPlaceholder() != "" {
				s.hasPlaceholder[i] = true
			}
		}
		if e.opts.Compute == tpb.DataType_DT_DOUBLE {
			s.attrs[i] = promoteAttrs(n.Attrs)
		}
	}
	s.findReciprocalDivs()
	if fn != nil {
		s.rets, s.retErr = resolveRets(s, fn)
		for _, name := range fn.Def.GetSignature().GetControlOutput() {
			target := fn.Def.GetControlRet()[name]
			for _, n := range nodes {
				if n.Name == target {
					s.controlRets = append(s.controlRets, n)
					break
				}
			}
		}
	}
	return s
}

// path returns node i's graph path, rendered once.
func (s *scope) path(i int) string {
	if s.paths == nil {
		s.paths = make([]string, len(s.nodes))
	}
	if s.paths[i] == "" {
		s.paths[i] = nodePath(s.nodes[i])
	}
	return s.paths[i]
}

// outputFrames returns, for each node of the scope, the v1 while-loop
// frame its outputs are in ("" for the scope's root frame), found as
// TensorFlow's BuildControlFlowInfo finds frames
// (tensorflow/core/graph/control_flow.cc): walking out-edges from the
// nodes without inputs, a node runs in its first producer's output frame;
// an Enter outputs into the frame it names, an Exit into the parent of its
// own frame, any other node into its own frame. Nodes the walk does not
// reach count as the root.
func (s *scope) outputFrames() []string {
	if s.outFrames != nil {
		return s.outFrames
	}
	frames := make([]string, len(s.nodes)) // where each node runs
	outs := make([]string, len(s.nodes))
	parent := map[string]string{}
	seen := make([]bool, len(s.nodes))
	var queue []int
	for i, n := range s.nodes {
		if len(n.Inputs) == 0 && len(n.ControlInputs()) == 0 {
			seen[i] = true
			queue = append(queue, i)
		}
	}
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		n := s.nodes[i]
		switch {
		case isEnter(n):
			outs[i] = string(n.Attrs["frame_name"].GetS())
			if _, ok := parent[outs[i]]; !ok {
				parent[outs[i]] = frames[i]
			}
		case isExit(n):
			outs[i] = parent[frames[i]]
		default:
			outs[i] = frames[i]
		}
		for _, e := range s.out[i] {
			if !seen[e.dst] {
				seen[e.dst] = true
				frames[e.dst] = outs[i]
				queue = append(queue, e.dst)
			}
		}
	}
	s.outFrames = outs
	return outs
}

// scopeFor returns the prepared scope of a function.
func (e *Executor) scopeFor(f *graph.Function) *scope {
	s, ok := e.scopes[f]
	if !ok {
		s = newScope(e, f, f.Nodes)
		e.scopes[f] = s
	}
	return s
}

// resolveRets resolves a FunctionDef's ret map ("node:out_arg:index" or an
// argument name) in output-arg order.
func resolveRets(s *scope, fn *graph.Function) ([]retRef, error) {
	sig := fn.Def.GetSignature()
	args := map[string]int{}
	for i, a := range sig.GetInputArg() {
		args[a.GetName()] = i
	}
	byName := map[string]*graph.Node{}
	for _, n := range s.nodes {
		byName[n.Name] = n
	}
	var rets []retRef
	for _, oa := range sig.GetOutputArg() {
		ref, ok := fn.Def.GetRet()[oa.GetName()]
		if !ok {
			return nil, fmt.Errorf("function %s: output %q has no ret", fn.Name, oa.GetName())
		}
		parts := strings.SplitN(ref, ":", 3)
		if len(parts) == 1 {
			if i, ok := args[ref]; ok {
				rets = append(rets, retRef{arg: i})
				continue
			}
			if n := byName[ref]; n != nil {
				rets = append(rets, retRef{node: n})
				continue
			}
			return nil, fmt.Errorf("function %s: ret %q names nothing", fn.Name, ref)
		}
		n := byName[parts[0]]
		if n == nil {
			return nil, fmt.Errorf("function %s: ret %q names no node", fn.Name, ref)
		}
		if len(parts) == 2 {
			if v, err := strconv.Atoi(parts[1]); err == nil {
				rets = append(rets, retRef{node: n, output: v})
				continue
			}
		}
		idx := 0
		if len(parts) == 3 {
			v, err := strconv.Atoi(parts[2])
			if err != nil || v < 0 {
				return nil, fmt.Errorf("function %s: ret %q has a bad index", fn.Name, ref)
			}
			idx = v
		}
		start, err := outputArgStart(s.e.g, n, parts[1])
		if err != nil {
			return nil, fmt.Errorf("function %s: ret %q: %w", fn.Name, ref, err)
		}
		rets = append(rets, retRef{node: n, output: start + idx})
	}
	return rets, nil
}

// outputArgStart returns the flattened index of the first tensor of a
// node's named output arg, counting list args by their attrs.
func outputArgStart(g *graph.Graph, n *graph.Node, arg string) (int, error) {
	if n.OpDef == nil {
		if f := g.FunctionByName[n.Op]; f != nil {
			for i, a := range f.Def.GetSignature().GetOutputArg() {
				if a.GetName() == arg {
					return i, nil
				}
			}
		}
		return 0, fmt.Errorf("op %s has no output %q", n.Op, arg)
	}
	start := 0
	for _, a := range n.OpDef.GetOutputArg() {
		if a.GetName() == arg {
			return start, nil
		}
		switch {
		case a.GetNumberAttr() != "":
			start += int(n.Attrs[a.GetNumberAttr()].GetI())
		case a.GetTypeListAttr() != "":
			start += len(n.Attrs[a.GetTypeListAttr()].GetList().GetType())
		default:
			start++
		}
	}
	return 0, fmt.Errorf("op %s has no output %q", n.Op, arg)
}

// promoteAttrs rewrites float dtypes in type and list(type) attrs to
// DT_DOUBLE, for float64 runs.
func promoteAttrs(attrs map[string]*attrpb.AttrValue) map[string]*attrpb.AttrValue {
	var out map[string]*attrpb.AttrValue
	for k, a := range attrs {
		var na *attrpb.AttrValue
		switch v := a.GetValue().(type) {
		case *attrpb.AttrValue_Type:
			if dtype.IsFloat(v.Type) && dtype.Base(v.Type) != tpb.DataType_DT_DOUBLE {
				na = &attrpb.AttrValue{Value: &attrpb.AttrValue_Type{Type: promoteType(v.Type)}}
			}
		case *attrpb.AttrValue_List:
			changed := false
			for _, t := range v.List.GetType() {
				if dtype.IsFloat(t) && dtype.Base(t) != tpb.DataType_DT_DOUBLE {
					changed = true
				}
			}
			if changed {
				l := &attrpb.AttrValue_ListValue{}
				for _, t := range v.List.GetType() {
					l.Type = append(l.Type, promoteType(t))
				}
				na = &attrpb.AttrValue{Value: &attrpb.AttrValue_List{List: l}}
			}
		}
		if na != nil {
			if out == nil {
				out = make(map[string]*attrpb.AttrValue, len(attrs))
				for k2, a2 := range attrs {
					out[k2] = a2
				}
			}
			out[k] = na
		}
	}
	return out
}

func promoteType(t tpb.DataType) tpb.DataType {
	if !dtype.IsFloat(t) {
		return t
	}
	if dtype.IsRef(t) {
		return tpb.DataType_DT_DOUBLE_REF
	}
	return tpb.DataType_DT_DOUBLE
}

func shapeString(dims []*tspb.TensorShapeProto_Dim) string {
	parts := make([]string, len(dims))
	for i, d := range dims {
		if d.GetSize() < 0 {
			parts[i] = "?"
		} else {
			parts[i] = strconv.FormatInt(d.GetSize(), 10)
		}
	}
	return "[" + strings.Join(parts, ",") + "]"
}
