package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// Test helpers of the NN kernel tests.

func nnRunOp(t testing.TB, op string, attrs map[string]*attrpb.AttrValue, inputs ...*Tensor) ([]*Tensor, error) {
	t.Helper()
	k := Lookup(op)
	if k == nil {
		t.Fatalf("no kernel for %s", op)
	}
	return k(&Context{Op: op, Path: "test/" + op, Attrs: attrs, Inputs: inputs})
}

func nnRandF32(r *rand.Rand, n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = r.Float32()*2 - 1
	}
	return out
}

func nnF32T(shape []int, data []float32) *Tensor {
	return &Tensor{DType: tpb.DataType_DT_FLOAT, Shape: shape, Data: data}
}

// nnCloseF32 reports the first index where got and want differ by more than
// rtol*|want|+atol (NaNs must match NaNs), or -1.
func nnCloseF32(got, want []float32, rtol, atol float64) int {
	if len(got) != len(want) {
		return 0
	}
	for i := range got {
		g, w := float64(got[i]), float64(want[i])
		if math.IsNaN(w) || math.IsNaN(g) {
			if math.IsNaN(w) != math.IsNaN(g) {
				return i
			}
			continue
		}
		if math.IsInf(w, 0) {
			if g != w {
				return i
			}
			continue
		}
		if math.Abs(g-w) > rtol*math.Abs(w)+atol {
			return i
		}
	}
	return -1
}
