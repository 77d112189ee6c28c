package coverage

import (
	"fmt"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/dtype"
	"github.com/tfscan/tfscan/graph"
)

// SetStack makes the index answer as the stack runs under c: float32 nodes
// its precision mode computes in a narrower type are covered_lower_precision,
// and those its compiler rejects precision_mode_error. nil restores plain
// kernel lookups. Call it before the first Match.
func (ix *Index) SetStack(c *StackConfig) {
	ix.memoMu.Lock()
	defer ix.memoMu.Unlock()
	ix.stack = c
	ix.memo = map[string]Match{}
}

// Stack returns the stack configuration the index applies (nil: none).
func (ix *Index) Stack() *StackConfig { return ix.stack }

// lowers reports whether the index's precision mode can change a match.
func (ix *Index) lowers() bool { return ix.stack != nil && ix.stack.Mode != nil }

// applyMode turns the plain match m of a float32 node into what the stack's
// precision mode makes of it (CANN's precision_mode, as documented in the
// mode's Doc): matrix ops and vector ops follow the mode's rules while a
// kernel of the lower type exists; a node with no float32 kernel is lowered
// or rejected. DEFAULT kernels (TensorFlow's own host ops around the
// compiled graph) are never lowered.
func (ix *Index) applyMode(n *graph.Node, m Match) Match {
	mode := ix.stack.Mode
	rule := mode.Vector
	if ix.stack.matrix[n.Op] {
		rule = mode.Matrix
	}
	if rule == "mixed" {
		rule = "keep"
		if ix.stack.reduce[n.Op] {
			rule = "lower"
		}
	}
	to := lowerType(mode.LowerTo)
	switch m.Reason {
	case ReasonCovered:
		if rule == "keep" {
			return m
		}
		if k, ok := ix.lowered(n, to); ok {
			return Match{Reason: ReasonCoveredLowerPrecision, Kernel: k.Kernel, HostMemory: k.HostMemory,
				Unverified: k.Unverified, Lowered: dtype.Name(to), LoweredInputs: rule == "lower_inputs"}
		}
	case ReasonNoKernelForDType:
		k, ok := ix.lowered(n, to)
		if !ok {
			return m
		}
		if mode.Unsupported == "error" {
			pm := ix.stack.stack.Precision
			return Match{Reason: ReasonPrecisionModeError, Supported: m.Supported,
				StackError: fmt.Sprintf("%s %s keeps float32, but the %s kernel of %s supports %s only for these inputs (%s); the compiler rejects the graph (%s)",
					pm.Option, mode.Name, ix.pack.DeviceType, n.Op, dtype.Name(to), joinSupported(m.Supported), mode.Doc)}
		}
		return Match{Reason: ReasonCoveredLowerPrecision, Kernel: k.Kernel, HostMemory: k.HostMemory,
			Unverified: k.Unverified, Lowered: dtype.Name(to)}
	}
	return m
}

func joinSupported(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += "; "
		}
		out += x
	}
	return out
}

// lowered looks n up with every float32 type attr set to t, on the
// device's own kernels.
func (ix *Index) lowered(n *graph.Node, t tpb.DataType) (Match, bool) {
	attrs := make(map[string]*attrpb.AttrValue, len(n.Attrs))
	for k, v := range n.Attrs {
		attrs[k] = swapFloat32(v, t)
	}
	ln := &graph.Node{ID: n.ID, Name: n.Name, Op: n.Op, Def: n.Def, OpDef: n.OpDef, Attrs: attrs}
	if calls := n.Calls(); calls != nil {
		ln.SetCalls(calls)
	}
	m := ix.matchKernels(ln)
	return m, m.Reason == ReasonCovered
}

func lowerType(name string) tpb.DataType {
	if name == "bfloat16" {
		return tpb.DataType_DT_BFLOAT16
	}
	return tpb.DataType_DT_HALF
}

// Float32Node reports whether a node has a float32 type attr (a type, or a
// list(type) holding float32): the nodes a precision mode may lower.
func Float32Node(n *graph.Node) bool {
	for _, v := range n.Attrs {
		switch x := v.GetValue().(type) {
		case *attrpb.AttrValue_Type:
			if x.Type == tpb.DataType_DT_FLOAT {
				return true
			}
		case *attrpb.AttrValue_List:
			for _, t := range x.List.GetType() {
				if t == tpb.DataType_DT_FLOAT {
					return true
				}
			}
		}
	}
	return false
}

// swapFloat32 returns v with float32 types replaced by t (v itself when it
// holds none).
func swapFloat32(v *attrpb.AttrValue, t tpb.DataType) *attrpb.AttrValue {
	switch x := v.GetValue().(type) {
	case *attrpb.AttrValue_Type:
		if x.Type == tpb.DataType_DT_FLOAT {
			return &attrpb.AttrValue{Value: &attrpb.AttrValue_Type{Type: t}}
		}
	case *attrpb.AttrValue_List:
		types := x.List.GetType()
		for i, y := range types {
			if y != tpb.DataType_DT_FLOAT {
				continue
			}
			l := &attrpb.AttrValue_ListValue{Type: append([]tpb.DataType(nil), types...)}
			for j := i; j < len(l.Type); j++ {
				if l.Type[j] == tpb.DataType_DT_FLOAT {
					l.Type[j] = t
				}
			}
			return &attrpb.AttrValue{Value: &attrpb.AttrValue_List{List: l}}
		}
	}
	return v
}
