package savedmodel

import (
	"encoding/binary"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/kernels"
	"github.com/tfscan/tfscan/kernels/npz"
)

// narrowedFixtures is testdata/tfjs_dtypes (make.py there says how it is
// made): one small Keras model converted by tensorflowjs 4.17.0.
const narrowedFixtures = "testdata/tfjs_dtypes"

// narrowedFixtureWeights are the Consts of the fixtures' manifests in
// Keras's weight order (make.py's io.npz keys NAME_w0..3).
var narrowedFixtureWeights = map[string][]string{
	"mixed": {
		"StatefulPartitionedCall/model/conv2d/Conv2D/Cast", "StatefulPartitionedCall/model/conv2d/BiasAdd/Cast",
		"StatefulPartitionedCall/model/dense/MatMul/Cast", "StatefulPartitionedCall/model/dense/BiasAdd/Cast",
	},
	"float32_q16": {
		"StatefulPartitionedCall/model_1/conv2d_1/Conv2D/ReadVariableOp", "StatefulPartitionedCall/model_1/conv2d_1/BiasAdd/ReadVariableOp",
		"StatefulPartitionedCall/model_1/dense_1/MatMul/ReadVariableOp", "StatefulPartitionedCall/model_1/dense_1/BiasAdd/ReadVariableOp",
	},
}

// TestTFJSNarrowedFixtures loads what the converter writes: a
// mixed_float16 model's float16 Consts stored as float32 (plain, and
// quantized to float16 on top) come back as the float16 values TensorFlow
// computes with, bit for bit, and are listed as restored; a float32
// model's float16-quantized weights are dequantized to float32 and stay
// float32; float64 and int64 Consts stored as float32 and int32 get their
// dtypes back.
func TestTFJSNarrowedFixtures(t *testing.T) {
	io, err := npz.Read(filepath.Join(narrowedFixtures, "io.npz"))
	require.NoError(t, err)
	for _, tc := range []struct {
		dir, weights string
		dtype        tpb.DataType
		restored     bool
	}{
		{"mixed", "mixed", tpb.DataType_DT_HALF, true},
		{"mixed_q16", "mixed", tpb.DataType_DT_HALF, true},
		{"float32_q16", "float32_q16", tpb.DataType_DT_FLOAT, false},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			m, err := Load(filepath.Join(narrowedFixtures, tc.dir))
			require.NoError(t, err)
			var want []RestoredDType
			for i, name := range narrowedFixtureWeights[tc.weights] {
				w := m.Weights[name]
				require.NotNil(t, w, name)
				assert.Equal(t, tc.dtype, w.DType, name)
				got, err := kernels.WeightTensor(w.DType, w.Shape, w.Data, nil)
				require.NoError(t, err, name)
				exp := io[fmt.Sprintf("%s_w%d", tc.weights, i)]
				require.NotNil(t, exp)
				assert.Equal(t, exp, got, "%s: TensorFlow's values", name)
				if tc.restored {
					want = append(want, RestoredDType{Node: name, Stored: tpb.DataType_DT_FLOAT, DType: tpb.DataType_DT_HALF, Exact: true})
				}
			}
			assert.Equal(t, want, m.RestoredDTypes)
		})
	}
	m, err := Load(filepath.Join(narrowedFixtures, "wide"))
	require.NoError(t, err)
	assert.Equal(t, []RestoredDType{
		{Node: "StatefulPartitionedCall/add/ReadVariableOp", Stored: tpb.DataType_DT_INT32, DType: tpb.DataType_DT_INT64},
		{Node: "StatefulPartitionedCall/mul/ReadVariableOp", Stored: tpb.DataType_DT_FLOAT, DType: tpb.DataType_DT_DOUBLE},
	}, m.RestoredDTypes)
}

// TestTFJSRestoreDTypes: a Const gets its declared dtype back where it
// declares one the converter narrows (in its dtype attr, or its value's
// dtype when that attr is missing) and the weight has the narrowed dtype;
// float16 only when every stored value is exactly a float16.
func TestTFJSRestoreDTypes(t *testing.T) {
	node := func(name, dt string, attr bool) string {
		a := `"value": {"tensor": {"dtype": "` + dt + `", "tensorShape": {"dim": [{"size": "2"}]}}}`
		if attr {
			a = `"dtype": {"type": "` + dt + `"}, ` + a
		}
		return `{"name": "` + name + `", "op": "Const", "attr": {` + a + `}}`
	}
	topo := `{"node": [` + strings.Join([]string{
		node("h", "DT_HALF", true), node("v", "DT_HALF", false), node("f", "DT_FLOAT", true), node("inexact", "DT_HALF", true),
		node("d", "DT_DOUBLE", true), node("l", "DT_INT64", true), node("i", "DT_INT32", true), node("l32", "DT_INT64", true),
	}, ", ") + `], "versions": {"producer": 1645}}`
	var ws []testWeight
	for _, n := range []string{"h", "v", "f", "inexact", "d"} {
		ws = append(ws, testWeight{Name: n, Shape: []int64{2}, DType: "float32"})
	}
	for _, n := range []string{"l", "i"} {
		ws = append(ws, testWeight{Name: n, Shape: []int64{2}, DType: "int32"})
	}
	// An int64 Const whose weight is float32 is not the converter's: kept.
	ws = append(ws, testWeight{Name: "l32", Shape: []int64{2}, DType: "float32"})
	shard := cat(le32(1.5, -65504), le32(0.25, float32(math.Inf(-1))), le32(1.5, 0.1), le32(1, 0.1), le32(0.1, -2),
		leI32(-7, 1<<30), leI32(3, 4), le32(1, 2))
	dir := writeTFJS(t, topo, []testGroup{{Paths: []string{"w.bin"}, Weights: ws}}, map[string][]byte{"w.bin": shard}, nil)
	m, err := Load(dir)
	require.NoError(t, err)
	le64 := func(vals ...uint64) []byte {
		b := make([]byte, 8*len(vals))
		for i, v := range vals {
			binary.LittleEndian.PutUint64(b[8*i:], v)
		}
		return b
	}
	for _, want := range []*Weight{
		{Name: "h", DType: tpb.DataType_DT_HALF, Shape: []int64{2}, Data: le16(0x3e00, 0xfbff)},
		{Name: "v", DType: tpb.DataType_DT_HALF, Shape: []int64{2}, Data: le16(0x3400, 0xfc00)},
		{Name: "f", DType: tpb.DataType_DT_FLOAT, Shape: []int64{2}, Data: le32(1.5, 0.1)},
		// 0.1 is no float16: the weight is not what the converter writes
		// and stays as stored.
		{Name: "inexact", DType: tpb.DataType_DT_FLOAT, Shape: []int64{2}, Data: le32(1, 0.1)},
		// float32(0.1) widened exactly: not float64's 0.1, which the
		// converter rounded away.
		{Name: "d", DType: tpb.DataType_DT_DOUBLE, Shape: []int64{2}, Data: le64(math.Float64bits(float64(float32(0.1))), math.Float64bits(-2))},
		{Name: "l", DType: tpb.DataType_DT_INT64, Shape: []int64{2}, Data: le64(uint64(1<<64-7), 1<<30)},
		{Name: "i", DType: tpb.DataType_DT_INT32, Shape: []int64{2}, Data: leI32(3, 4)},
		{Name: "l32", DType: tpb.DataType_DT_FLOAT, Shape: []int64{2}, Data: le32(1, 2)},
	} {
		assert.Equal(t, want, m.Weights[want.Name], want.Name)
	}
	assert.Equal(t, []RestoredDType{
		{Node: "h", Stored: tpb.DataType_DT_FLOAT, DType: tpb.DataType_DT_HALF, Exact: true},
		{Node: "v", Stored: tpb.DataType_DT_FLOAT, DType: tpb.DataType_DT_HALF, Exact: true},
		{Node: "d", Stored: tpb.DataType_DT_FLOAT, DType: tpb.DataType_DT_DOUBLE},
		{Node: "l", Stored: tpb.DataType_DT_INT32, DType: tpb.DataType_DT_INT64},
	}, m.RestoredDTypes)
	assert.Equal(t, "Consts stored in the TF.js weights in a narrower dtype than they declare (the converter's automatic "+
		"conversion; TF.js computes them in float32 and int32) are read back in their declared dtypes, and the graph runs as "+
		"in TensorFlow: 2 float16 (first h) stored as float32, the values exactly; 1 float64 (first d) stored as float32, "+
		"the values as the converter kept them, rounded to float32; 1 int64 (first l) stored as int32, the values as the "+
		"converter kept them, wrapped to int32", RestoredDTypesNote(m.RestoredDTypes))
	assert.Empty(t, RestoredDTypesNote(nil))
}

// TestHalfOf: a float32 narrows to float16 exactly when it is a float16
// value, and then to the bits TF.js's decoder widens back to it.
func TestHalfOf(t *testing.T) {
	f := math.Float32bits
	for _, tc := range []struct {
		name string
		in   uint32
		want uint16
		ok   bool
	}{
		{"zero", 0, 0, true},
		{"negative zero", 0x80000000, 0x8000, true},
		{"one", f(1), 0x3c00, true},
		{"largest", f(65504), 0x7bff, true},
		{"smallest normal", f(0x1p-14), 0x0400, true},
		{"largest subnormal", f(0x3ffp-24), 0x03ff, true},
		{"smallest subnormal", f(-0x1p-24), 0x8001, true},
		{"infinity", f(float32(math.Inf(1))), 0x7c00, true},
		{"quiet NaN", 0x7fc00000, 0x7e00, true},
		{"NaN payload in float16's bits", 0xffc02000, 0xfe01, true},
		{"NaN payload below float16's bits", 0x7f800001, 0, false},
		{"a third", f(1.0 / 3), 0, false},
		{"one ULP over one", f(math.Nextafter32(1, 2)), 0, false},
		{"too large", f(65536), 0, false},
		{"half of the smallest subnormal", f(0x1p-25), 0, false},
		{"subnormal with a bit float16 drops", f(0x1.8p-24), 0, false},
		{"float32 subnormal", 1, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, ok := halfOf(tc.in)
			require.Equal(t, tc.ok, ok)
			if ok {
				assert.Equal(t, tc.want, h)
				assert.Equal(t, tc.in, Float16Bits(h))
			}
		})
	}
	_, ok := exactHalves([]byte{1, 2, 3})
	assert.False(t, ok, "a ragged buffer")
	b := make([]byte, 4)
	binary.LittleEndian.PutUint32(b, f(2))
	h, ok := exactHalves(b)
	assert.True(t, ok)
	assert.Equal(t, le16(0x4000), h)
}
