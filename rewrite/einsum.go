package rewrite

import (
	"slices"
	"strings"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// ruleEinsum writes a two-operand Einsum as TensorFlow's kernel computes it
// (kernels/linalg/einsum_op_impl.h: ParseEquation, then for two operands
// the batched GEMM of ContractOperands): each operand transposed to
// [batch, free, contracted] (the first) or [batch, contracted, free] (the
// second), reshaped to rank 3 ([B, M, K] and [B, K, N]), one
// BatchMatMulV2, the product reshaped to [batch..., free x..., free y...]
// and transposed to the output's order. Only the equations that need
// nothing more: explicit output, no ellipsis, no label repeated within an
// operand or the output, no label summed out of one operand alone, every
// dimension known statically (the reshapes are constants).
var ruleEinsum = &Rule{
	Name: "decompose-einsum", Kind: KindDecompose, Ops: []string{"Einsum"},
	Exactness: Exactness{Exact: true, Claim: "bit-identical: the kernel's own transposes, reshapes and BatchMatMul, in its order"},
	Semantics: "tensorflow/core/kernels/linalg/einsum_op_impl.h (ParseEquation, ReduceOperand, ContractOperands)",
	expand: func(x *expander) error {
		t := x.dtype()
		if x.numIn() != 2 {
			return skip("%d operands (two are decomposed)", x.numIn())
		}
		eq := strings.ReplaceAll(string(x.attr("equation").GetS()), " ", "")
		lhs, out, ok := strings.Cut(eq, "->")
		if !ok || strings.Contains(eq, ".") {
			return skip("equation %q has no explicit output or has an ellipsis", eq)
		}
		ops := strings.Split(lhs, ",")
		if len(ops) != 2 {
			return skip("equation %q", eq)
		}
		a, b, o := []rune(ops[0]), []rune(ops[1]), []rune(out)
		for _, ls := range [][]rune{a, b, o} {
			seen := map[rune]bool{}
			for _, r := range ls {
				if seen[r] {
					return skip("label %q repeats in %q", r, eq)
				}
				seen[r] = true
			}
		}
		sa, sb := x.shapes(0), x.shapes(1)
		if sa == nil || sb == nil || len(sa) != len(a) || len(sb) != len(b) {
			return skip("operand shapes are not all known statically")
		}
		size := map[rune]int64{}
		for i, r := range a {
			size[r] = sa[i]
		}
		for i, r := range b {
			if s, ok := size[r]; ok && s != sb[i] {
				return skip("label %q has sizes %d and %d", r, s, sb[i])
			}
			size[r] = sb[i]
		}
		var batch, contract, freeA, freeB []rune
		for _, r := range a {
			inB, inO := slices.Contains(b, r), slices.Contains(o, r)
			switch {
			case inB && inO:
				batch = append(batch, r)
			case inB:
				contract = append(contract, r)
			case inO:
				freeA = append(freeA, r)
			default:
				return skip("label %q is summed out of one operand", r)
			}
		}
		for _, r := range b {
			if !slices.Contains(a, r) {
				if !slices.Contains(o, r) {
					return skip("label %q is summed out of one operand", r)
				}
				freeB = append(freeB, r)
			}
		}
		for _, r := range o {
			if _, ok := size[r]; !ok {
				return skip("output label %q is in no operand", r)
			}
		}
		prod := func(ls []rune) int64 {
			p := int64(1)
			for _, r := range ls {
				p *= size[r]
			}
			return p
		}
		B, M, K, N := prod(batch), prod(freeA), prod(contract), prod(freeB)
		xa := x.operand(0, a, concat(batch, freeA, contract), []int64{B, M, K}, t, "a")
		xb := x.operand(1, b, concat(batch, contract, freeB), []int64{B, K, N}, t, "b")
		mm := x.add("matmul", "BatchMatMulV2", []string{xa, xb}, map[string]*attrpb.AttrValue{
			"T": typeAttr(t), "adj_x": boolAttr(false), "adj_y": boolAttr(false)})
		res := concat(batch, freeA, freeB)
		var dims []int32
		for _, r := range res {
			dims = append(dims, int32(size[r]))
		}
		shape := x.constant("product_shape", int32Tensor([]int{len(dims)}, dims))
		reshaped := x.add("product", "Reshape", []string{mm, shape}, map[string]*attrpb.AttrValue{"T": typeAttr(t), "Tshape": typeAttr(tpb.DataType_DT_INT32)})
		perm := permutation(res, o)
		if perm == nil {
			x.finishIdentity(reshaped, t)
			return nil
		}
		p := x.constant("output_perm", int32Tensor([]int{len(perm)}, perm))
		x.finish("Transpose", []string{reshaped, p}, map[string]*attrpb.AttrValue{"T": typeAttr(t), "Tperm": typeAttr(tpb.DataType_DT_INT32)})
		return nil
	},
}

// operand transposes input i (labels from) to the labels to and reshapes
// it to shape.
func (x *expander) operand(i int, from, to []rune, shape []int64, t tpb.DataType, what string) string {
	in := x.in(i)
	if perm := permutation(from, to); perm != nil {
		p := x.constant(what+"_perm", int32Tensor([]int{len(perm)}, perm))
		in = x.add(what+"_transposed", "Transpose", []string{in, p}, map[string]*attrpb.AttrValue{"T": typeAttr(t), "Tperm": typeAttr(tpb.DataType_DT_INT32)})
	}
	dims := make([]int32, len(shape))
	for j, d := range shape {
		dims[j] = int32(d)
	}
	s := x.constant(what+"_shape", int32Tensor([]int{len(dims)}, dims))
	return x.add(what+"_reshaped", "Reshape", []string{in, s}, map[string]*attrpb.AttrValue{"T": typeAttr(t), "Tshape": typeAttr(tpb.DataType_DT_INT32)})
}

// permutation is the Transpose perm that takes labels from to labels to;
// nil when they are in the same order.
func permutation(from, to []rune) []int32 {
	perm := make([]int32, len(to))
	same := true
	for i, r := range to {
		perm[i] = int32(slices.Index(from, r))
		if int(perm[i]) != i {
			same = false
		}
	}
	if same {
		return nil
	}
	return perm
}

func concat(parts ...[]rune) []rune {
	var out []rune
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}
