package rewrite

import (
	"fmt"
	"slices"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/dtype"
	"github.com/tfscan/tfscan/kernels"
)

// maxFoldBytes is Grappler's constant folding limit: a node whose output
// is larger than its inputs and than kMaxConstantSize (100 KiB,
// grappler/optimizers/constant_folding.cc:67, checked at 1040) is not
// folded.
const maxFoldBytes = 100 * 1024

// overFoldLimit says whether an output of size bytes, computed from inputs
// of in bytes, is too large for Grappler to fold: larger than its inputs
// and than kMaxConstantSize (constant_folding.cc:1007-1046).
func overFoldLimit(size, in int64) bool { return size > in && size > maxFoldBytes }

// tensorBytes is the size of v's values, as the folding limit counts it.
func tensorBytes(v *kernels.Tensor) int64 { return int64(v.NumElements() * dtype.Size(v.DType)) }

// ruleFold replaces a node the target has no kernel for, whose data inputs
// are all constants (Consts, or the foldable nodes between Consts, which
// Grappler folds in turn: consts.go), by a Const of its value — what
// Grappler's constant folding does before the graph is placed (IsFoldable
// and MaybeFoldable, constant_folding.cc:955-1140), computed with tfscan's
// executor: a top-level node by a run of the original graph for it, a
// node of a function body by executing it alone on its constant inputs,
// each computed so in turn from the Consts of that body (Grappler
// optimizes the library's function bodies as graphs of their own,
// parametrized ones apart: meta_optimizer.cc:1162-1245). The nodes that
// fed it stay (the placement no longer counts those nothing else needs);
// the Const keeps the node's control inputs and those of the constant
// nodes before it, as Grappler's FoldNode forwards them
// (constant_folding.cc:1548-1565).
var ruleFold = &Rule{
	Name: "fold-constants", Kind: KindFold,
	Exactness: Exactness{Exact: true, Claim: "bit-identical: the Const holds the value the node computes from its constant inputs with tfscan's kernel"},
	Semantics: "tensorflow/core/grappler/optimizers/constant_folding.cc:67, 955-1140, 1548-1565, 1644-1707, 4085-4092",
	expand: func(x *expander) error {
		n := x.n
		if why := unfoldable(n); why != "" {
			return skip("%s", why)
		}
		if x.numIn() == 0 {
			return skip("it has no inputs")
		}
		in := int64(0)
		for i := 0; i < x.numIn(); i++ {
			v := x.consts(i)
			if v == nil {
				if n.Func != nil {
					return skip("input %d (%s) is not a constant of the function body", i, x.in(i))
				}
				return skip("input %d is not a constant", i)
			}
			if v.DType == tpb.DataType_DT_STRING {
				// "Don't fold strings constants for now since this causes
				// problems with checkpointing" (constant_folding.cc:988-993).
				return skip("input %d is a string constant, which Grappler does not fold", i)
			}
			in += tensorBytes(v)
		}
		v, err := x.value()
		if err != nil {
			return skip("the executor cannot compute it: %v", err)
		}
		size := tensorBytes(v)
		if overFoldLimit(size, in) {
			return skip("its value would be %d bytes, over Grappler's %d-byte folding limit", size, maxFoldBytes)
		}
		p, err := kernels.ToProto(v)
		if err != nil {
			return fmt.Errorf("encoding the folded value: %w", err)
		}
		x.finish("Const", nil, map[string]*attrpb.AttrValue{
			"dtype": typeAttr(v.DType),
			"value": {Value: &attrpb.AttrValue_Tensor{Tensor: p}},
		})
		c := x.nodes[len(x.nodes)-1]
		for _, ctl := range constControls(n) {
			if !slices.Contains(c.Input, ctl) {
				c.Input = append(c.Input, ctl)
			}
		}
		return nil
	},
}
