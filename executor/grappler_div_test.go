package executor_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/executor"
	"github.com/tfscan/tfscan/kernels"
)

// divGraph divides the placeholder x by a Const, by Maximum(Sqrt(Const),
// Const) (Keras's Normalization layer), with Xdivy by a Const, by the
// placeholder y, and a Const by a Const; the same division by a Const
// runs in a function body, and in one whose every call passes a Const
// (Grappler inlines the call before folding).
const divGraph = `
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "y" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "three" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 3 } } } }
node { name: "seven" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 7 } } } }
node { name: "eps" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1e-7 } } } }
node { name: "sqrt" op: "Sqrt" input: "seven" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "max" op: "Maximum" input: "sqrt" input: "eps" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "by_const" op: "RealDiv" input: "x" input: "three" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "by_folded" op: "RealDiv" input: "x" input: "max" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "div_const" op: "Div" input: "x" input: "three" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "xdivy_const" op: "Xdivy" input: "x" input: "three" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "by_y" op: "RealDiv" input: "x" input: "y" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "const_by_const" op: "RealDiv" input: "seven" input: "three" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "call" op: "PartitionedCall" input: "x"
  attr { key: "Tin" value { list { type: DT_FLOAT } } }
  attr { key: "Tout" value { list { type: DT_FLOAT } } }
  attr { key: "f" value { func { name: "third" } } } }
node { name: "call_arg" op: "StatefulPartitionedCall" input: "x" input: "three"
  attr { key: "Tin" value { list { type: DT_FLOAT type: DT_FLOAT } } }
  attr { key: "Tout" value { list { type: DT_FLOAT } } }
  attr { key: "f" value { func { name: "divide" } } } }
library {
  function {
    signature { name: "divide" input_arg { name: "a" type: DT_FLOAT } input_arg { name: "c" type: DT_FLOAT } output_arg { name: "r" type: DT_FLOAT } }
    node_def { name: "div" op: "RealDiv" input: "a" input: "c" attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "r" value: "div:z:0" }
  }
  function {
    signature { name: "third" input_arg { name: "a" type: DT_FLOAT } output_arg { name: "r" type: DT_FLOAT } }
    node_def { name: "three" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 3 } } } }
    node_def { name: "div" op: "RealDiv" input: "a" input: "three:output:0" attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "r" value: "div:z:0" }
  }
}`

// TestDivisionByConstantIsReciprocalMul checks that a division by a
// constant computes x * fl(1/c), as TensorFlow's graph runtime does after
// Grappler's ReduceDivToReciprocalMul, against a float64 reference, and
// that other divisions stay true divisions.
func TestDivisionByConstantIsReciprocalMul(t *testing.T) {
	needKernels(t, "RealDiv", "Div", "Xdivy", "Reciprocal", "Mul", "MulNoNan", "Sqrt", "Maximum")
	xs := make([]float32, 0, 2001)
	for i := -1000; i <= 1000; i++ {
		xs = append(xs, float32(i)*0.37+0.011)
	}
	xs = append(xs, 0)
	ys := make([]float32, len(xs))
	for i := range ys {
		ys[i] = 3
	}
	three := float32(3)
	maxC := float32(2.6457513) // fl(sqrt(7))
	recip := func(c float32) func(float32) float32 {
		r := float32(1) / c // IEEE single division: correctly rounded
		return func(x float32) float32 { return float32(float64(x) * float64(r)) }
	}
	div := func(c float32) func(float32) float32 {
		return func(x float32) float32 { return x / c }
	}
	e := newExec(t, divGraph, executor.Options{})
	feeds := map[string]*kernels.Tensor{
		"x": kernels.FloatTensor([]int{len(xs)}, xs),
		"y": kernels.FloatTensor([]int{len(ys)}, ys),
	}
	for _, tt := range []struct {
		fetch string
		want  func(float32) float32
	}{
		{"by_const", recip(three)},
		{"by_folded", recip(maxC)},
		{"div_const", recip(three)},
		{"xdivy_const", recip(three)},
		{"call", recip(three)},
		{"call_arg", recip(three)},
		{"by_y", div(three)},
	} {
		t.Run(tt.fetch, func(t *testing.T) {
			out, err := e.Run(context.Background(), feeds, []string{tt.fetch})
			require.NoError(t, err)
			got := out[tt.fetch].Data.([]float32)
			for i, x := range xs {
				require.Equal(t, tt.want(x), got[i], "x=%v", x)
			}
		})
	}
	// The two differ on these inputs, so the checks above tell them apart.
	differ := 0
	for _, x := range xs {
		if recip(three)(x) != div(three)(x) {
			differ++
		}
	}
	require.Greater(t, differ, 10)

	// A Const divided by a Const is folded whole, with a true division.
	out, err := e.Run(context.Background(), nil, []string{"const_by_const"})
	require.NoError(t, err)
	require.Equal(t, []float32{float32(7) / 3}, out["const_by_const"].Data)
	require.NotEqual(t, float32(7)/3, recip(three)(7), "7/3 must tell the two apart")

	// A run that feeds the denominator's Const divides by the fed value.
	feeds["three"] = kernels.ScalarFloat(3)
	out, err = e.Run(context.Background(), feeds, []string{"by_const"})
	require.NoError(t, err)
	for i, x := range xs {
		require.Equal(t, x/3, out["by_const"].Data.([]float32)[i], "x=%v", x)
	}
}

// TestIntegerDivisionByConstantDivides checks that an integer division by
// a constant stays a division (Grappler skips integer Div).
func TestIntegerDivisionByConstantDivides(t *testing.T) {
	needKernels(t, "Div")
	text := placeholder("x", "DT_INT32") + constI32("c", 3) + node("d", "Div", attrI32, "x", "c")
	e := newExec(t, text, executor.Options{})
	out, err := e.Run(context.Background(), map[string]*kernels.Tensor{"x": kernels.Int32Tensor([]int{3}, []int32{7, -7, 9})}, []string{"d"})
	require.NoError(t, err)
	require.Equal(t, []int32{2, -2, 3}, out["d"].Data)
}

// TestDivisionByArgument checks that a function's division by its
// argument stays a division when a call passes a non-constant (here one
// call passes a Const, the other the placeholder y).
func TestDivisionByArgument(t *testing.T) {
	needKernels(t, "RealDiv")
	text := divGraph + `
node { name: "call_y" op: "PartitionedCall" input: "x" input: "y"
  attr { key: "Tin" value { list { type: DT_FLOAT type: DT_FLOAT } } }
  attr { key: "Tout" value { list { type: DT_FLOAT } } }
  attr { key: "f" value { func { name: "divide" } } } }`
	e := newExec(t, text, executor.Options{})
	xs := []float32{0.011, 0.381, 0.751, 1.121, 3.7, 11.1, 0.0123}
	ys := []float32{3, 3, 3, 3, 3, 3, 3}
	feeds := map[string]*kernels.Tensor{"x": kernels.FloatTensor([]int{len(xs)}, xs), "y": kernels.FloatTensor([]int{len(ys)}, ys)}
	out, err := e.Run(context.Background(), feeds, []string{"call_arg", "call_y"})
	require.NoError(t, err)
	differ := 0
	for i, x := range xs {
		require.Equal(t, x/3, out["call_arg"].Data.([]float32)[i], "x=%v", x)
		require.Equal(t, x/3, out["call_y"].Data.([]float32)[i], "x=%v", x)
		if x/3 != float32(float64(x)*float64(float32(1)/3)) {
			differ++
		}
	}
	require.Greater(t, differ, 0, "the inputs must tell x/3 from x*(1/3)")
}
