package shape

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	fpb "github.com/wamuir/graft/tensorflow/core/framework/function_go_proto"
	opdefpb "github.com/wamuir/graft/tensorflow/core/framework/op_def_go_proto"
	tensorpb "github.com/wamuir/graft/tensorflow/core/framework/tensor_go_proto"
	tspb "github.com/wamuir/graft/tensorflow/core/framework/tensor_shape_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/internal/testutil"
)

// g is a tiny hand-built graph: nodes are added in order and wired by
// pointer; no graph.Build involved.
type g struct{ nodes []*graph.Node }

type A = map[string]*attrpb.AttrValue

func (b *g) add(name, op string, attrs A, outs []tpb.DataType, ins ...*graph.Node) *graph.Node {
	n := &graph.Node{ID: len(b.nodes), Name: name, Op: op, Attrs: attrs}
	if n.Attrs == nil {
		n.Attrs = A{}
	}
	var inTypes []tpb.DataType
	for _, in := range ins {
		n.Inputs = append(n.Inputs, graph.Input{Node: in})
		inTypes = append(inTypes, in.OutputTypes()[0])
	}
	n.SetTypes(inTypes, outs)
	b.nodes = append(b.nodes, n)
	return n
}

func (b *g) graph() *graph.Graph {
	return &graph.Graph{Nodes: b.nodes, TopLevel: len(b.nodes), FunctionByName: map[string]*graph.Function{}}
}

var f32 = []tpb.DataType{tpb.DataType_DT_FLOAT}
var i32 = []tpb.DataType{tpb.DataType_DT_INT32}

func shapeAttr(dims ...int64) *attrpb.AttrValue {
	sp := &tspb.TensorShapeProto{}
	for _, d := range dims {
		sp.Dim = append(sp.Dim, &tspb.TensorShapeProto_Dim{Size: d})
	}
	return &attrpb.AttrValue{Value: &attrpb.AttrValue_Shape{Shape: sp}}
}

func ty(t tpb.DataType) *attrpb.AttrValue {
	return &attrpb.AttrValue{Value: &attrpb.AttrValue_Type{Type: t}}
}
func s(v string) *attrpb.AttrValue {
	return &attrpb.AttrValue{Value: &attrpb.AttrValue_S{S: []byte(v)}}
}
func b(v bool) *attrpb.AttrValue  { return &attrpb.AttrValue{Value: &attrpb.AttrValue_B{B: v}} }
func i(v int64) *attrpb.AttrValue { return &attrpb.AttrValue{Value: &attrpb.AttrValue_I{I: v}} }
func ints(v ...int64) *attrpb.AttrValue {
	return &attrpb.AttrValue{Value: &attrpb.AttrValue_List{List: &attrpb.AttrValue_ListValue{I: v}}}
}

func (b *g) ph(name string, dims ...int64) *graph.Node {
	return b.add(name, "Placeholder", A{"dtype": ty(tpb.DataType_DT_FLOAT), "shape": shapeAttr(dims...)}, f32)
}

func (b *g) ci(name string, vals ...int64) *graph.Node {
	tp := &tensorpb.TensorProto{Dtype: tpb.DataType_DT_INT32, TensorShape: &tspb.TensorShapeProto{Dim: []*tspb.TensorShapeProto_Dim{{Size: int64(len(vals))}}}}
	for _, v := range vals {
		tp.IntVal = append(tp.IntVal, int32(v))
	}
	return b.add(name, "Const", A{"dtype": ty(tpb.DataType_DT_INT32), "value": {Value: &attrpb.AttrValue_Tensor{Tensor: tp}}}, i32)
}

func (b *g) cf(name string, dims ...int64) *graph.Node {
	tp := &tensorpb.TensorProto{Dtype: tpb.DataType_DT_FLOAT, TensorShape: shapeAttr(dims...).GetShape()}
	return b.add(name, "Const", A{"dtype": ty(tpb.DataType_DT_FLOAT), "value": {Value: &attrpb.AttrValue_Tensor{Tensor: tp}}}, f32)
}

func dims(t *testing.T, sh *Shapes, n *graph.Node) []int64 {
	t.Helper()
	o, ok := sh.Output(n, 0)
	if !ok || o.Shape.UnknownRank {
		return nil
	}
	return o.Shape.Dims
}

func TestRules(t *testing.T) {
	var gb g
	x := gb.ph("x", -1, 32, 32, 3)
	filt := gb.cf("filt", 3, 3, 3, 16)
	conv := gb.add("conv", "Conv2D", A{"T": ty(tpb.DataType_DT_FLOAT), "padding": s("SAME"), "strides": ints(1, 2, 2, 1)}, f32, x, filt)
	convV := gb.add("convv", "Conv2D", A{"padding": s("VALID"), "strides": ints(1, 1, 1, 1), "dilations": ints(1, 2, 2, 1)}, f32, x, filt)
	nchw := gb.add("nchw", "Conv2D", A{"padding": s("VALID"), "strides": ints(1, 1, 1, 1), "data_format": s("NCHW")}, f32, gb.ph("xc", 2, 3, 10, 10), filt)
	pool := gb.add("pool", "MaxPool", A{"ksize": ints(1, 2, 2, 1), "strides": ints(1, 2, 2, 1), "padding": s("VALID")}, f32, conv)
	dw := gb.add("dw", "DepthwiseConv2dNative", A{"padding": s("SAME"), "strides": ints(1, 1, 1, 1)}, f32, x, gb.cf("dwf", 3, 3, 3, 2))
	bias := gb.add("bias", "BiasAdd", nil, f32, conv, gb.cf("bv", 16))
	bn := gb.add("bn", "FusedBatchNormV3", nil, []tpb.DataType{1, 1, 1, 1, 1, 1}, bias, gb.cf("sc", 16), gb.cf("of", 16), gb.cf("mn", 16), gb.cf("vr", 16))
	shp := gb.add("shp", "Shape", nil, i32, bias)
	rs := gb.add("rs", "Reshape", nil, f32, bias, gb.ci("tgt", -1, 256))
	rs2 := gb.add("rs2", "Reshape", nil, f32, bias, shp)
	mm := gb.add("mm", "MatMul", A{"transpose_b": b(true)}, f32, rs, gb.cf("w", 10, 256))
	bmm := gb.add("bmm", "BatchMatMulV2", A{"adj_x": b(true)}, f32, gb.ph("a", 5, 1, 7, 3), gb.ph("bb", 4, 7, 2))
	add := gb.add("add", "AddV2", nil, f32, gb.ph("p", 4, 1, 3), gb.ph("q", 5, 1))
	tr := gb.add("tr", "Transpose", nil, f32, x, gb.ci("perm", 0, 3, 1, 2))
	cat := gb.add("cat", "ConcatV2", nil, f32, conv, conv, gb.ci("ax", -1))
	sl := gb.add("sl", "Slice", nil, f32, x, gb.ci("b0", 0, 1, 1, 0), gb.ci("s0", -1, 10, -1, 2))
	ss := gb.add("ss", "StridedSlice", A{"shrink_axis_mask": i(1), "end_mask": i(2)}, f32, gb.ph("m", 6, 8), gb.ci("sb", 1, 2), gb.ci("se", 2, 0), gb.ci("sst", 1, 2))
	ssv := gb.add("ssv", "StridedSlice", A{"shrink_axis_mask": i(1)}, i32, shp, gb.ci("vb", 1), gb.ci("ve", 2), gb.ci("vs", 1))
	ga := gb.add("ga", "GatherV2", nil, f32, gb.ph("par", 100, 8), gb.add("idx", "Placeholder", A{"dtype": ty(tpb.DataType_DT_INT32), "shape": shapeAttr(3, 4)}, i32), gb.ci("gax", 0))
	red := gb.add("red", "Mean", A{"keep_dims": b(true)}, f32, conv, gb.ci("rax", 1, 2))
	red2 := gb.add("red2", "Sum", nil, f32, conv, gb.ci("rax2", -1))
	pad := gb.add("pad", "Pad", nil, f32, x, gb.add("pads", "Const", A{"dtype": ty(tpb.DataType_DT_INT32), "value": {Value: &attrpb.AttrValue_Tensor{Tensor: &tensorpb.TensorProto{
		Dtype: tpb.DataType_DT_INT32, TensorShape: shapeAttr(4, 2).GetShape(), IntVal: []int32{0, 0, 1, 1, 2, 2, 0, 0}}}}}, i32))
	sq := gb.add("sq", "Squeeze", A{"squeeze_dims": ints(1)}, f32, gb.ph("sqx", 2, 1, 3))
	ex := gb.add("ex", "ExpandDims", nil, f32, gb.ph("exx", 2, 3), gb.ci("exd", -1))
	cast := gb.add("cast", "Cast", nil, []tpb.DataType{tpb.DataType_DT_HALF}, conv)
	size := gb.add("size", "Size", nil, i32, conv)

	sh := Infer(gb.graph(), Options{Dims: map[string]int64{"batch": 4}})
	for _, tc := range []struct {
		n    *graph.Node
		want []int64
	}{
		{conv, []int64{4, 16, 16, 16}},
		{convV, []int64{4, 28, 28, 16}},
		{nchw, []int64{2, 16, 8, 8}},
		{pool, []int64{4, 8, 8, 16}},
		{dw, []int64{4, 32, 32, 6}},
		{bias, []int64{4, 16, 16, 16}},
		{bn, []int64{4, 16, 16, 16}},
		{shp, []int64{4}},
		{rs, []int64{64, 256}},
		{rs2, []int64{4, 16, 16, 16}},
		{mm, []int64{64, 10}},
		{bmm, []int64{5, 4, 3, 2}},
		{add, []int64{4, 5, 3}},
		{tr, []int64{4, 3, 32, 32}},
		{cat, []int64{4, 16, 16, 32}},
		{sl, []int64{4, 10, 31, 2}},
		{ss, []int64{3}},
		{ssv, []int64{}},
		{ga, []int64{3, 4, 8}},
		{red, []int64{4, 1, 1, 16}},
		{red2, []int64{4, 16, 16}},
		{pad, []int64{4, 34, 36, 3}},
		{sq, []int64{2, 3}},
		{ex, []int64{2, 3, 1}},
		{cast, []int64{4, 16, 16, 16}},
		{size, []int64{}},
	} {
		assert.Equal(t, tc.want, dims(t, sh, tc.n), tc.n.Name)
	}
	o, _ := sh.Output(ssv, 0)
	assert.Equal(t, []int64{16}, o.Value, "a slice of a known Shape is a known value")
	nb, ok := sh.Bytes(cast, 0)
	assert.True(t, ok)
	assert.Equal(t, int64(4*16*16*16*2), nb)
	assert.True(t, sh.Assumed(conv, 0))
	assert.False(t, sh.Assumed(nchw, 0))
	assert.Equal(t, []string{"x: dim 0 = 4 (--dim batch)"}, sh.AssumedDims)
	bn1, _ := sh.Output(bn, 1)
	assert.Equal(t, []int64{16}, bn1.Shape.Dims)
}

func TestDefaultBatchAndNamedDims(t *testing.T) {
	var gb g
	x := gb.ph("x", -1, -1, 3)
	y := gb.ph("y", -1, 5)
	sh := Infer(gb.graph(), Options{Inputs: map[string][]int64{"y:0": {-1, 5}}, Dims: map[string]int64{"x": 7}})
	assert.Equal(t, []int64{7, 7, 3}, dims(t, sh, x))
	assert.Equal(t, []int64{1, 5}, dims(t, sh, y))
	assert.Equal(t, []string{"x: dim 0 = 7 (--dim x)", "x: dim 1 = 7 (--dim x)", "y: dim 0 = 1 (default batch)"}, sh.AssumedDims)
}

// Huge dimensions saturate to unknown: no panic, no allocation.
func TestOverflowSaturates(t *testing.T) {
	var gb g
	big := int64(1) << 62
	x := gb.ph("x", big, big)
	tile := gb.add("tile", "Tile", nil, f32, gb.ph("t", 1<<40, 2), gb.ci("mul", 1<<30, 3))
	fill := gb.add("fill", "Fill", nil, f32, gb.add("d", "Const", A{"dtype": ty(tpb.DataType_DT_INT64), "value": {Value: &attrpb.AttrValue_Tensor{Tensor: &tensorpb.TensorProto{
		Dtype: tpb.DataType_DT_INT64, TensorShape: shapeAttr(3).GetShape(), Int64Val: []int64{1 << 62, 1 << 62, -5}}}}}, []tpb.DataType{tpb.DataType_DT_INT64}), gb.cf("v"))
	mm := gb.add("mm", "MatMul", nil, f32, x, x)
	sh := Infer(gb.graph(), Options{})
	_, ok := sh.Bytes(x, 0)
	assert.False(t, ok)
	_, ok = sh.Bytes(tile, 0)
	assert.False(t, ok)
	assert.Equal(t, []int64{big, big, -1}, dims(t, sh, fill))
	_, ok = sh.Bytes(mm, 0)
	assert.False(t, ok)
	n, ok := Shape{Dims: []int64{1 << 31, 1 << 31}}.NumElements()
	assert.True(t, ok)
	assert.Equal(t, int64(1)<<62, n)
	_, ok = Shape{Dims: []int64{1 << 31, 1<<31 + 1}}.NumElements()
	assert.False(t, ok)
}

// Function bodies take their argument shapes from the first caller.
func TestFunctionArgsFromCaller(t *testing.T) {
	f := &graph.Function{Name: "f", Def: &fpb.FunctionDef{
		Signature: &opdefpb.OpDef{Name: "f", InputArg: []*opdefpb.OpDef_ArgDef{{Name: "a", Type: tpb.DataType_DT_FLOAT}},
			OutputArg: []*opdefpb.OpDef_ArgDef{{Name: "r", Type: tpb.DataType_DT_FLOAT}}},
		Ret: map[string]string{"r": "relu:0"},
	}, ArgTypes: f32, RetTypes: f32}
	var gb g
	x := gb.ph("x", 2, 9)
	call := gb.add("call", "PartitionedCall", A{"f": {Value: &attrpb.AttrValue_Func{Func: &attrpb.NameAttrList{Name: "f"}}}}, f32, x)
	call.SetCalls([]*graph.Function{f})
	relu := &graph.Node{ID: len(gb.nodes), Name: "relu", Op: "Relu", Func: f, Attrs: A{},
		Inputs: []graph.Input{{Arg: 0}}}
	relu.SetTypes(f32, f32)
	f.Nodes = []*graph.Node{relu}
	f.Rets = []graph.Input{{Node: relu}} // as graph.Build resolves Ret
	gr := gb.graph()
	gr.Nodes = append(gr.Nodes, relu)
	gr.Functions = []*graph.Function{f}
	sh := Infer(gr, Options{})
	assert.Equal(t, []int64{2, 9}, dims(t, sh, relu))
	assert.Equal(t, []int64{2, 9}, dims(t, sh, call))
	nb, ok := sh.ArgBytes(f, 0)
	assert.True(t, ok)
	assert.Equal(t, int64(72), nb)
}

// FuzzInfer feeds arbitrary dims, reshape targets and strided-slice
// specs, the shape attrs of variables, tables and parsed examples, a
// RestoreV2 shape-and-slice spec, and a checkpoint index of arbitrary
// bytes (read by OpenCheckpoint: an error, or entries that size the
// restore). The seed index is half_plus_two's when the corpus is there.
func FuzzInfer(f *testing.F) {
	seed, _ := os.ReadFile(filepath.Join(testutil.RepoRoot(), "..", "shared", "corpus", "tf", "sm_half_plus_two_v1", "variables", "variables.index"))
	f.Add(int64(2), int64(3), int64(-1), int64(6), int64(1), int64(0), int64(5), "10 20 0,5:-", seed)
	f.Add(int64(1)<<62, int64(1)<<62, int64(-1), int64(-1), int64(-3), int64(1<<40), int64(0), "4 -", []byte{})
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, d0, d1, r0, r1, b0, e0, mask int64, spec string, index []byte) {
		var gb g
		x := gb.ph("x", d0, d1)
		rs := gb.add("rs", "Reshape", nil, f32, x, gb.ci("t", r0, r1))
		gb.add("ss", "StridedSlice", A{"begin_mask": i(mask & 3), "end_mask": i(mask >> 2 & 3), "shrink_axis_mask": i(mask >> 4 & 3),
			"new_axis_mask": i(mask >> 6 & 3), "ellipsis_mask": i(mask >> 8 & 3)}, f32, rs, gb.ci("b", b0, 0), gb.ci("e", e0, -1), gb.ci("s", 1, -1))
		gb.add("pad", "Pad", nil, f32, x, gb.ci("p", b0, e0, r0, r1))
		gb.add("tile", "Tile", nil, f32, x, gb.ci("m", r0, r1))
		res := []tpb.DataType{tpb.DataType_DT_RESOURCE}
		v := gb.add("v", "VarHandleOp", A{"dtype": ty(tpb.DataType_DT_FLOAT), "shape": shapeAttr(d0, r0, d1)}, res)
		gb.add("g", "ResourceGather", A{"dtype": ty(tpb.DataType_DT_FLOAT), "batch_dims": i(mask >> 10 & 3)}, f32, v, gb.ci("ix", b0, e0))
		gb.add("vs", "VariableShape", nil, i32, v)
		tbl := gb.add("tbl", "MutableDenseHashTableV2", A{"key_dtype": ty(tpb.DataType_DT_FLOAT), "value_dtype": ty(tpb.DataType_DT_FLOAT),
			"value_shape": shapeAttr(r1, d1)}, res, rs, rs)
		gb.add("find", "LookupTableFindV2", A{"Tout": ty(tpb.DataType_DT_FLOAT)}, f32, tbl, x, x)
		ns := mask >> 12 & 3
		outs := make([]tpb.DataType, 3*ns+2)
		for k := range outs {
			outs[k] = tpb.DataType_DT_INT64
		}
		gb.add("pe", "ParseExample", A{"Nsparse": i(ns), "dense_shapes": shapes(shapeAttr(r0), shapeAttr(d0, r1))}, outs, gb.cs("ser", nil, "e"))
		// ParseExampleV2 of a scalar or a vector of examples, its
		// ragged lists of agreeing or disagreeing lengths.
		nr, ser := mask>>14&3, gb.cs("ser2", nil, "e")
		if mask>>16&1 == 1 {
			ser = gb.cs("ser3", []int64{2}, "e", "f")
		}
		outs2 := make([]tpb.DataType, 3*ns+2+2*nr)
		for k := range outs2 {
			outs2[k] = tpb.DataType_DT_INT64
		}
		ragged := make([]tpb.DataType, nr)
		for k := range ragged {
			ragged[k] = tpb.DataType_DT_INT64
		}
		gb.add("pe2", "ParseExampleV2", A{"num_sparse": i(ns), "dense_shapes": shapes(shapeAttr(r0), shapeAttr(d0, r1)),
			"ragged_value_types": types(ragged...), "ragged_split_types": types(ragged[:mask>>17&1*int64(len(ragged))]...)}, outs2, ser)
		gb.add("pse", "ParseSingleExample", A{"dense_shapes": shapes(shapeAttr(d0, r1))}, []tpb.DataType{tpb.DataType_DT_FLOAT}, ser)
		gb.add("export", "LookupTableExportV2", nil, []tpb.DataType{tpb.DataType_DT_FLOAT, tpb.DataType_DT_FLOAT}, tbl)
		names := gb.cs("names", []int64{2}, "a", "b")
		gb.add("restore", "RestoreV2", A{"dtypes": types(tpb.DataType_DT_FLOAT, tpb.DataType_DT_FLOAT)}, []tpb.DataType{tpb.DataType_DT_FLOAT, tpb.DataType_DT_FLOAT},
			gb.cs("prefix", nil, "ckpt"), names, gb.cs("specs", []int64{2}, spec, ""))
		opts := Options{}
		if len(index) > 0 {
			prefix := filepath.Join(dir, "ckpt")
			require.NoError(t, os.WriteFile(prefix+".index", index, 0o644))
			ck, err := OpenCheckpoint(prefix)
			if err != nil {
				require.Nil(t, ck)
				require.Contains(t, err.Error(), prefix+".index")
			}
			opts.Checkpoint = ck
		}
		sh := Infer(gb.graph(), opts)
		for _, n := range gb.nodes {
			for k := range n.OutputTypes() {
				if o, ok := sh.Output(n, k); ok {
					o.Bytes()
				}
			}
		}
	})
}

// cs is a string Const of the given shape (nil: a scalar).
func (b *g) cs(name string, shape []int64, vals ...string) *graph.Node {
	tp := &tensorpb.TensorProto{Dtype: tpb.DataType_DT_STRING, TensorShape: shapeAttr(shape...).GetShape()}
	for _, v := range vals {
		tp.StringVal = append(tp.StringVal, []byte(v))
	}
	return b.add(name, "Const", A{"dtype": ty(tpb.DataType_DT_STRING), "value": {Value: &attrpb.AttrValue_Tensor{Tensor: tp}}}, []tpb.DataType{tpb.DataType_DT_STRING})
}

func shapes(v ...*attrpb.AttrValue) *attrpb.AttrValue {
	l := &attrpb.AttrValue_ListValue{}
	for _, a := range v {
		l.Shape = append(l.Shape, a.GetShape())
	}
	return &attrpb.AttrValue{Value: &attrpb.AttrValue_List{List: l}}
}

func types(v ...tpb.DataType) *attrpb.AttrValue {
	return &attrpb.AttrValue{Value: &attrpb.AttrValue_List{List: &attrpb.AttrValue_ListValue{Type: v}}}
}
