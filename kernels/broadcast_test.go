package kernels

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// Test helpers for the elementwise/reduction/array kernels (prefix ew).

// ewAttrs builds an attr map from name/value pairs: bool, int, string,
// tpb.DataType or []int64.
func ewAttrs(kv ...any) map[string]*attrpb.AttrValue {
	m := map[string]*attrpb.AttrValue{}
	for i := 0; i+1 < len(kv); i += 2 {
		name := kv[i].(string)
		switch v := kv[i+1].(type) {
		case bool:
			m[name] = &attrpb.AttrValue{Value: &attrpb.AttrValue_B{B: v}}
		case int:
			m[name] = &attrpb.AttrValue{Value: &attrpb.AttrValue_I{I: int64(v)}}
		case string:
			m[name] = &attrpb.AttrValue{Value: &attrpb.AttrValue_S{S: []byte(v)}}
		case tpb.DataType:
			m[name] = &attrpb.AttrValue{Value: &attrpb.AttrValue_Type{Type: v}}
		case []int64:
			m[name] = &attrpb.AttrValue{Value: &attrpb.AttrValue_List{List: &attrpb.AttrValue_ListValue{I: v}}}
		}
	}
	return m
}

// ewRun runs op's kernel on inputs.
func ewRun(t *testing.T, op string, attrs map[string]*attrpb.AttrValue, inputs ...*Tensor) ([]*Tensor, error) {
	t.Helper()
	fn := Lookup(op)
	require.NotNil(t, fn, "no kernel for %s", op)
	return fn(&Context{Op: op, Path: "test/" + op, Attrs: attrs, Inputs: inputs})
}

// ewOne runs op and returns its single output, failing on error.
func ewOne(t *testing.T, op string, attrs map[string]*attrpb.AttrValue, inputs ...*Tensor) *Tensor {
	t.Helper()
	outs, err := ewRun(t, op, attrs, inputs...)
	require.NoError(t, err)
	require.Len(t, outs, 1)
	require.NoError(t, outs[0].Validate())
	return outs[0]
}

func ewT[T any](dt tpb.DataType, shape []int, data []T) *Tensor {
	return &Tensor{DType: dt, Shape: shape, Data: data}
}

func f32s(shape []int, v ...float32) *Tensor { return ewT(tpb.DataType_DT_FLOAT, shape, v) }
func f64s(shape []int, v ...float64) *Tensor { return ewT(tpb.DataType_DT_DOUBLE, shape, v) }
func i32s(shape []int, v ...int32) *Tensor   { return ewT(tpb.DataType_DT_INT32, shape, v) }
func i64s(shape []int, v ...int64) *Tensor   { return ewT(tpb.DataType_DT_INT64, shape, v) }
func i8s(shape []int, v ...int8) *Tensor     { return ewT(tpb.DataType_DT_INT8, shape, v) }
func u8s(shape []int, v ...uint8) *Tensor    { return ewT(tpb.DataType_DT_UINT8, shape, v) }
func bools(shape []int, v ...bool) *Tensor   { return ewT(tpb.DataType_DT_BOOL, shape, v) }
func strs(shape []int, v ...string) *Tensor {
	d := make([][]byte, len(v))
	for i, s := range v {
		d[i] = []byte(s)
	}
	return ewT(tpb.DataType_DT_STRING, shape, d)
}
func halfs(shape []int, v ...float32) *Tensor {
	d := make([]Float16, len(v))
	for i, x := range v {
		d[i] = Float16FromFloat32(x)
	}
	return ewT(tpb.DataType_DT_HALF, shape, d)
}
func bf16s(shape []int, v ...float32) *Tensor {
	d := make([]BFloat16, len(v))
	for i, x := range v {
		d[i] = BFloat16FromFloat32(x)
	}
	return ewT(tpb.DataType_DT_BFLOAT16, shape, d)
}

func TestBroadcastShapes(t *testing.T) {
	tests := []struct {
		name    string
		a, b    []int
		want    []int
		wantErr string
	}{
		{"same", []int{2, 3}, []int{2, 3}, []int{2, 3}, ""},
		{"scalar", []int{}, []int{4, 5}, []int{4, 5}, ""},
		{"rank mismatch", []int{3}, []int{2, 1, 3}, []int{2, 1, 3}, ""},
		{"size-1 both sides", []int{4, 1}, []int{1, 5}, []int{4, 5}, ""},
		{"zero with one", []int{0, 3}, []int{1, 3}, []int{0, 3}, ""},
		{"zero with zero", []int{0}, []int{0}, []int{0}, ""},
		{"incompatible", []int{2, 3}, []int{4}, nil, "Incompatible shapes: [2,3] vs. [4]"},
		{"zero vs two", []int{0}, []int{2}, nil, "Incompatible shapes: [0] vs. [2]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := broadcastShapes(tt.a, tt.b)
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestBroadcastPlanCollapses(t *testing.T) {
	// Bias over the last dim: two collapsed dims; same shapes: one.
	p, err := newBcastPlan([]int{8, 4, 4, 16}, []int{16})
	require.NoError(t, err)
	assert.Equal(t, []int{128, 16}, p.dims)
	p, err = newBcastPlan([]int{8, 4, 4, 16}, []int{8, 4, 4, 16})
	require.NoError(t, err)
	assert.Equal(t, []int{2048}, p.dims)
	p, err = newBcastPlan([]int{}, []int{})
	require.NoError(t, err)
	assert.Equal(t, 1, p.n)
}

// TestBinaryBroadcastMatchesNaive compares random broadcasts, big enough to
// run in parallel, with a direct index computation.
func TestBinaryBroadcastMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for iter := 0; iter < 30; iter++ {
		rank := 1 + r.Intn(4)
		out := make([]int, rank)
		a := make([]int, rank)
		b := make([]int, rank)
		for i := range out {
			out[i] = 1 + r.Intn(12)
			a[i], b[i] = out[i], out[i]
			if r.Intn(3) == 0 {
				a[i] = 1
			}
			if r.Intn(3) == 0 {
				b[i] = 1
			}
		}
		if iter%5 == 0 {
			out[0] *= 50 // cross the parallel threshold
			if a[0] != 1 {
				a[0] = out[0]
			}
			if b[0] != 1 {
				b[0] = out[0]
			}
		}
		bt := b[r.Intn(rank):] // rank mismatch
		for d := range out {   // the expected output: the larger of each pair
			out[d] = a[d]
			if off := rank - len(bt); d >= off && bt[d-off] > out[d] {
				out[d] = bt[d-off]
			}
		}
		av := make([]float32, product(a))
		bv := make([]float32, product(bt))
		for i := range av {
			av[i] = float32(r.Intn(100))
		}
		for i := range bv {
			bv[i] = float32(r.Intn(100)) * 1000
		}
		got := ewOne(t, "AddV2", nil, f32s(a, av...), f32s(bt, bv...))
		require.Equal(t, out, got.Shape)
		gd := got.Data.([]float32)
		idx := make([]int, rank)
		for n := range gd {
			rem := n
			for d := rank - 1; d >= 0; d-- {
				idx[d] = rem % out[d]
				rem /= out[d]
			}
			ia, ib := 0, 0
			for d := 0; d < rank; d++ {
				if a[d] != 1 {
					ia = ia*a[d] + idx[d]
				}
			}
			off := rank - len(bt)
			for d := off; d < rank; d++ {
				if bt[d-off] != 1 {
					ib = ib*bt[d-off] + idx[d]
				}
			}
			if want := av[ia] + bv[ib]; gd[n] != want {
				t.Fatalf("iter %d elem %d: got %v want %v", iter, n, gd[n], want)
			}
		}
	}
}

func TestParallelForCoversRange(t *testing.T) {
	for _, n := range []int{0, 1, 7, 1 << 16, 1<<20 + 3} {
		seen := make([]int32, n)
		parallelFor(n, 1, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				seen[i]++
			}
		})
		for i, v := range seen {
			if v != 1 {
				t.Fatalf("n=%d: element %d visited %d times", n, i, v)
			}
		}
	}
}

func BenchmarkAddV2Broadcast1M(b *testing.B) {
	x := make([]float32, 1<<20)
	y := make([]float32, 256)
	for i := range x {
		x[i] = float32(i)
	}
	xt, yt := f32s([]int{4096, 256}, x...), f32s([]int{256}, y...)
	fn := Lookup("AddV2")
	ctx := &Context{Op: "AddV2", Inputs: []*Tensor{xt, yt}}
	b.SetBytes(4 << 20)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := fn(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
