package kernels

import (
	"errors"
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

func TestArrayOpErrors(t *testing.T) {
	x := f32s([]int{2, 3}, 1, 2, 3, 4, 5, 6)
	tests := []struct {
		name  string
		op    string
		attrs map[string]any
		in    []*Tensor
		want  string
	}{
		{"reshape count", "Reshape", nil, []*Tensor{x, i32s([]int{1}, 4)}, "Input to reshape is a tensor with 6 values, but the requested shape has 4"},
		{"reshape two -1", "Reshape", nil, []*Tensor{x, i32s([]int{2}, -1, -1)}, "Only one input size may be -1, not both 0 and 1"},
		{"reshape -1 indivisible", "Reshape", nil, []*Tensor{x, i32s([]int{2}, 4, -1)}, "requires a multiple of 4"},
		{"reshape huge", "Reshape", nil, []*Tensor{x, i64s([]int{2}, 1<<40, 1<<40)}, "too large"},
		{"gather oob", "GatherV2", map[string]any{"batch_dims": 0}, []*Tensor{x, i32s([]int{2}, 0, 5), i32s([]int{}, 1)}, "indices[1] = 5 is not in [0, 3)"},
		{"gather negative", "GatherV2", map[string]any{"batch_dims": 0}, []*Tensor{x, i64s([]int{1, 1}, -1), i32s([]int{}, 0)}, "indices[0,0] = -1 is not in [0, 2)"},
		{"gathernd oob", "GatherNd", nil, []*Tensor{x, i32s([]int{1, 2}, 1, 3)}, "indices[0] = [1, 3] does not index into param shape [2,3]"},
		{"scatternd oob", "ScatterNd", nil, []*Tensor{i32s([]int{1, 1}, 4), f32s([]int{1}, 1), i32s([]int{1}, 4)}, "does not index into output shape [4]"},
		{"concat ranks", "ConcatV2", nil, []*Tensor{x, f32s([]int{3}, 1, 2, 3), i32s([]int{}, 0)}, "Ranks of all input tensors should match"},
		{"concat dims", "ConcatV2", nil, []*Tensor{x, f32s([]int{2, 2}, 1, 2, 3, 4), i32s([]int{}, 0)}, "Dimension 1 in both shapes must be equal"},
		{"concat axis", "ConcatV2", nil, []*Tensor{x, x, i32s([]int{}, 2)}, "[-2, 2), but got 2"},
		{"split uneven", "Split", map[string]any{"num_split": 2}, []*Tensor{i32s([]int{}, 1), x}, "evenly divide"},
		{"pad negative", "Pad", nil, []*Tensor{x, i32s([]int{2, 2}, 0, -1, 0, 0)}, "Paddings must be non-negative"},
		{"pad huge", "Pad", nil, []*Tensor{x, i64s([]int{2, 2}, 1<<33, 0, 0, 0)}, "too large"},
		{"pad rank", "Pad", nil, []*Tensor{x, i32s([]int{1, 2}, 0, 0)}, "The first dimension of paddings must be the rank"},
		{"mirror pad too big", "MirrorPad", map[string]any{"mode": "REFLECT"}, []*Tensor{x, i32s([]int{2, 2}, 0, 0, 3, 0)}, "paddings must be no greater than"},
		{"tile negative", "Tile", nil, []*Tensor{x, i32s([]int{2}, 1, -1)}, "Expected multiples[1] >= 0"},
		{"strided zero stride", "StridedSlice", nil, []*Tensor{x, i32s([]int{1}, 0), i32s([]int{1}, 1), i32s([]int{1}, 0)}, "strides[0] must be non-zero"},
		{"strided shrink oob", "StridedSlice", map[string]any{"shrink_axis_mask": 1}, []*Tensor{x, i32s([]int{1}, 5), i32s([]int{1}, 6), i32s([]int{1}, 1)}, "slice index 5 of dimension 0 out of bounds."},
		{"slice oob", "Slice", nil, []*Tensor{x, i32s([]int{2}, 0, 2), i32s([]int{2}, 1, 2)}, "Expected size[1] in [0, 1], but got 2"},
		{"transpose perm", "Transpose", nil, []*Tensor{x, i32s([]int{2}, 0, 0)}, "0 is duplicated"},
		{"broadcast_to", "BroadcastTo", nil, []*Tensor{x, i32s([]int{2}, 4, 3)}, "Unable to broadcast tensor of shape [2,3] to tensor of shape [4,3]"},
		{"range delta", "Range", nil, []*Tensor{i32s([]int{}, 0), i32s([]int{}, 5), i32s([]int{}, 0)}, "Requires delta != 0"},
		{"range direction", "Range", nil, []*Tensor{i32s([]int{}, 5), i32s([]int{}, 0), i32s([]int{}, 1)}, "Requires start <= limit when delta > 0"},
		{"range huge", "Range", nil, []*Tensor{f32s([]int{}, 0), f32s([]int{}, 1e30), f32s([]int{}, 1)}, "Requires ((limit - start) / delta)"},
		{"fill dims", "Fill", nil, []*Tensor{i32s([]int{1}, -2), f32s([]int{}, 1)}, "not a valid dimension"},
		{"squeeze non-1", "Squeeze", map[string]any{"squeeze_dims": []int64{0}}, []*Tensor{x}, "Can not squeeze dim[0], expected a dimension of 1, got 2"},
		{"expand dims", "ExpandDims", nil, []*Tensor{x, i32s([]int{}, 4)}, "Tried to expand dim index 4 for tensor with 2 dimensions."},
		{"select shapes", "Select", nil, []*Tensor{bools([]int{3}, true, false, true), x, x}, "'cond' must be a scalar"},
		{"clip shape", "ClipByValue", nil, []*Tensor{x, f32s([]int{2}, 0, 0), f32s([]int{}, 1)}, "must be either scalars"},
		{"invert perm", "InvertPermutation", nil, []*Tensor{i32s([]int{3}, 0, 0, 1)}, "0 is duplicated in the input."},
		{"onehot depth", "OneHot", map[string]any{"axis": -1}, []*Tensor{i32s([]int{1}, 0), i32s([]int{}, -1), f32s([]int{}, 1), f32s([]int{}, 0)}, "depth must be non-negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var kv []any
			for k, v := range tt.attrs {
				kv = append(kv, k, v)
			}
			_, err := ewRun(t, tt.op, ewAttrs(kv...), tt.in...)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.Contains(t, err.Error(), "test/"+tt.op, "errors name the node")
		})
	}
}

// TestTransposeMatchesNaive covers the copy, block, 2-D tiled and general
// paths against direct indexing, on every dtype family.
func TestTransposeMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for iter := 0; iter < 60; iter++ {
		rank := 1 + r.Intn(5)
		shape := make([]int, rank)
		for i := range shape {
			shape[i] = 1 + r.Intn(6)
		}
		if iter%10 == 0 {
			shape[0] = 70 // big enough to go parallel / span tiles
		}
		perm := r.Perm(rank)
		n := product(shape)
		data := make([]int32, n)
		for i := range data {
			data[i] = int32(i)
		}
		got := ewOne(t, "Transpose", nil, i32s(shape, data...), i32s([]int{rank}, toI32(perm)...))
		outShape := make([]int, rank)
		for i, a := range perm {
			outShape[i] = shape[a]
		}
		require.Equal(t, outShape, got.Shape)
		inStride := rowMajorStrides(shape)
		gd := got.Data.([]int32)
		idx := make([]int, rank)
		for o := range gd {
			rem := o
			for d := rank - 1; d >= 0; d-- {
				idx[d] = rem % outShape[d]
				rem /= outShape[d]
			}
			src := 0
			for d, a := range perm {
				src += idx[d] * inStride[a]
			}
			if gd[o] != int32(src) {
				t.Fatalf("shape %v perm %v: out[%d] = %d, want %d", shape, perm, o, gd[o], src)
			}
		}
	}
	// Strings and bools move like numbers.
	s := ewOne(t, "Transpose", nil, strs([]int{2, 2}, "a", "b", "c", "d"), i32s([]int{2}, 1, 0))
	assert.Equal(t, [][]byte{[]byte("a"), []byte("c"), []byte("b"), []byte("d")}, s.Data)
}

func toI32(v []int) []int32 {
	out := make([]int32, len(v))
	for i, x := range v {
		out[i] = int32(x)
	}
	return out
}

func TestArrayOpsOnOtherDTypes(t *testing.T) {
	s := strs([]int{3}, "x", "y", "z")
	g := ewOne(t, "GatherV2", ewAttrs("batch_dims", 0), s, i32s([]int{2}, 2, 0), i32s([]int{}, 0))
	assert.Equal(t, [][]byte{[]byte("z"), []byte("x")}, g.Data)
	c := ewOne(t, "ConcatV2", nil, s, strs([]int{1}, "w"), i32s([]int{}, 0))
	assert.Equal(t, []int{4}, c.Shape)
	h := ewOne(t, "Tile", nil, halfs([]int{1, 2}, 1, 2), i32s([]int{2}, 2, 1))
	assert.Equal(t, []Float16{Float16FromFloat32(1), Float16FromFloat32(2), Float16FromFloat32(1), Float16FromFloat32(2)}, h.Data)
	p := ewOne(t, "PadV2", nil, bools([]int{1}, false), i32s([]int{1, 2}, 1, 1), bools([]int{}, true))
	assert.Equal(t, []bool{true, false, true}, p.Data)
	z := ewOne(t, "ZerosLike", nil, strs([]int{2}, "a", "b"))
	require.Len(t, z.Data, 2)
	assert.Empty(t, z.Data.([][]byte)[0])
	o := ewOne(t, "OnesLike", nil, bf16s([]int{1}, 5))
	assert.Equal(t, float32(1), o.Data.([]BFloat16)[0].Float32())
	var ue *UnsupportedError
	_, err := ewRun(t, "OnesLike", nil, strs([]int{1}, "a"))
	require.True(t, errors.As(err, &ue))
	sh := ewOne(t, "Shape", ewAttrs("out_type", tpb.DataType_DT_INT64), f32s([]int{0, 7}))
	assert.Equal(t, []int64{0, 7}, sh.Data)
	assert.Equal(t, []int32{0}, ewOne(t, "Size", ewAttrs("out_type", tpb.DataType_DT_INT32), f32s([]int{0, 7})).Data)
	assert.Equal(t, []int32{2}, ewOne(t, "Rank", nil, f32s([]int{0, 7})).Data)
	outs, err := ewRun(t, "ShapeN", ewAttrs("out_type", tpb.DataType_DT_INT32), f32s([]int{1}), f32s([]int{2, 3}))
	require.NoError(t, err)
	assert.Equal(t, []int32{2, 3}, outs[1].Data)
	ba := ewOne(t, "BroadcastArgs", nil, i32s([]int{2}, 2, 1), i32s([]int{3}, 4, 1, 3))
	assert.Equal(t, []int32{4, 2, 3}, ba.Data)
	inv := ewOne(t, "InvertPermutation", nil, i32s([]int{3}, 2, 0, 1))
	assert.Equal(t, []int32{1, 2, 0}, inv.Data)
	e := ewOne(t, "Empty", ewAttrs("dtype", tpb.DataType_DT_INT8, "init", true), i32s([]int{2}, 2, 2))
	assert.Equal(t, []int8{0, 0, 0, 0}, e.Data)
}

func TestWhereUniqueOneHotScatter(t *testing.T) {
	w := ewOne(t, "Where", nil, bools([]int{0, 2}))
	assert.Equal(t, []int{0, 2}, w.Shape)
	w = ewOne(t, "Where", nil, i32s([]int{}, 5))
	assert.Equal(t, []int{1, 0}, w.Shape)
	// Unique keeps first-occurrence order; +0/-0 are one value, every NaN
	// is its own value (hash map with ==).
	nan := float32(math.NaN())
	outs, err := ewRun(t, "Unique", ewAttrs("out_idx", tpb.DataType_DT_INT64), f32s([]int{6}, 3, nan, 0, float32(math.Copysign(0, -1)), nan, 3))
	require.NoError(t, err)
	y := outs[0].Data.([]float32)
	require.Len(t, y, 4)
	assert.Equal(t, []int64{0, 1, 2, 2, 3, 0}, outs[1].Data)
	oh := ewOne(t, "OneHot", ewAttrs("axis", -1), u8s([]int{2}, 1, 9), i32s([]int{}, 3), i32s([]int{}, 7), i32s([]int{}, 0))
	assert.Equal(t, []int32{0, 7, 0, 0, 0, 0}, oh.Data)
	// TensorScatterUpdate: the last duplicate wins; Add accumulates.
	base := f32s([]int{3}, 1, 2, 3)
	up := ewOne(t, "TensorScatterUpdate", nil, base, i32s([]int{2, 1}, 1, 1), f32s([]int{2}, 10, 20))
	assert.Equal(t, []float32{1, 20, 3}, up.Data)
	assert.Equal(t, []float32{1, 2, 3}, base.Data, "input untouched")
	add := ewOne(t, "TensorScatterAdd", nil, base, i32s([]int{2, 1}, 1, 1), f32s([]int{2}, 10, 20))
	assert.Equal(t, []float32{1, 32, 3}, add.Data)
	sn := ewOne(t, "ScatterNd", nil, i64s([]int{2, 2}, 0, 1, 0, 1), i8s([]int{2}, 100, 100), i32s([]int{2}, 1, 2))
	assert.Equal(t, []int8{0, -56}, sn.Data)
	_, err = ewRun(t, "ScatterNd", nil, i32s([]int{2, 1}, 0, 1), f32s([]int{3}, 1, 2, 3), i32s([]int{1}, 4))
	require.Error(t, err)
}

func TestLinSpaceRangeValues(t *testing.T) {
	ls := ewOne(t, "LinSpace", nil, f32s([]int{}, 0), f32s([]int{}, 1), i32s([]int{}, 1))
	assert.Equal(t, []float32{0}, ls.Data)
	r := ewOne(t, "Range", nil, i64s([]int{}, 10), i64s([]int{}, 1), i64s([]int{}, -3))
	assert.Equal(t, []int64{10, 7, 4}, r.Data)
	r = ewOne(t, "Range", nil, i32s([]int{}, 3), i32s([]int{}, 3), i32s([]int{}, 1))
	assert.Equal(t, []int{0}, r.Shape)
}

func TestCumulativeAttrs(t *testing.T) {
	x := i32s([]int{4}, 1, 2, 3, 4)
	ax := i32s([]int{}, 0)
	for _, tt := range []struct {
		op        string
		excl, rev bool
		want      []int32
	}{
		{"Cumsum", false, false, []int32{1, 3, 6, 10}},
		{"Cumsum", true, false, []int32{0, 1, 3, 6}},
		{"Cumsum", false, true, []int32{10, 9, 7, 4}},
		{"Cumsum", true, true, []int32{9, 7, 4, 0}},
		{"Cumprod", true, true, []int32{24, 12, 4, 1}},
	} {
		got := ewOne(t, tt.op, ewAttrs("exclusive", tt.excl, "reverse", tt.rev), x, ax)
		assert.Equal(t, tt.want, got.Data, "%s excl=%v rev=%v", tt.op, tt.excl, tt.rev)
	}
	_, err := ewRun(t, "Cumsum", ewAttrs("exclusive", false, "reverse", false), x, i32s([]int{}, 1))
	require.Error(t, err)
}

func BenchmarkTranspose4D(b *testing.B) {
	x := make([]float32, 32*64*64*16)
	for _, bc := range []struct {
		name string
		perm []int32
	}{{"NHWC->NCHW", []int32{0, 3, 1, 2}}, {"NCHW->NHWC", []int32{0, 2, 3, 1}}, {"swap-inner", []int32{0, 1, 3, 2}}} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := &Context{Op: "Transpose", Inputs: []*Tensor{f32s([]int{32, 64, 64, 16}, x...), i32s([]int{4}, bc.perm...)}}
			fn := Lookup("Transpose")
			b.SetBytes(int64(4 * len(x)))
			for i := 0; i < b.N; i++ {
				if _, err := fn(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
