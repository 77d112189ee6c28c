package savedmodel

import (
	"encoding/binary"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/kernels"
	"github.com/tfscan/tfscan/kernels/npz"
)

// float16Fixtures is testdata/tfjs_float16 (make.py there says how it is
// made): one small Keras model converted by tensorflowjs 4.17.0.
const float16Fixtures = "testdata/tfjs_float16"

// float16FixtureWeights are the Consts of the fixtures' manifests in
// Keras's weight order (make.py's io.npz keys NAME_w0..3).
var float16FixtureWeights = map[string][]string{
	"mixed": {
		"StatefulPartitionedCall/model/conv2d/Conv2D/Cast", "StatefulPartitionedCall/model/conv2d/BiasAdd/Cast",
		"StatefulPartitionedCall/model/dense/MatMul/Cast", "StatefulPartitionedCall/model/dense/BiasAdd/Cast",
	},
	"float32_q16": {
		"StatefulPartitionedCall/model_1/conv2d_1/Conv2D/ReadVariableOp", "StatefulPartitionedCall/model_1/conv2d_1/BiasAdd/ReadVariableOp",
		"StatefulPartitionedCall/model_1/dense_1/MatMul/ReadVariableOp", "StatefulPartitionedCall/model_1/dense_1/BiasAdd/ReadVariableOp",
	},
}

// TestTFJSFloat16Fixtures loads what the converter writes for float16:
// a mixed_float16 model's float16 Consts stored as float32 (plain, and
// quantized to float16 on top) come back as the float16 values TensorFlow
// computes with, bit for bit, and are listed as restored; a float32
// model's float16-quantized weights are dequantized to float32 and stay
// float32.
func TestTFJSFloat16Fixtures(t *testing.T) {
	io, err := npz.Read(filepath.Join(float16Fixtures, "io.npz"))
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
			m, err := Load(filepath.Join(float16Fixtures, tc.dir))
			require.NoError(t, err)
			var want []RestoredDType
			for i, name := range float16FixtureWeights[tc.weights] {
				w := m.Weights[name]
				require.NotNil(t, w, name)
				assert.Equal(t, tc.dtype, w.DType, name)
				got, err := kernels.WeightTensor(w.DType, w.Shape, w.Data, nil)
				require.NoError(t, err, name)
				exp := io[fmt.Sprintf("%s_w%d", tc.weights, i)]
				require.NotNil(t, exp)
				assert.Equal(t, exp, got, "%s: TensorFlow's values", name)
				if tc.restored {
					want = append(want, RestoredDType{Node: name, Stored: tpb.DataType_DT_FLOAT, DType: tpb.DataType_DT_HALF})
				}
			}
			assert.Equal(t, want, m.RestoredDTypes)
		})
	}
}

// TestTFJSRestoreDTypes: a Const's float16 values come back only where
// the Const declares DT_HALF (in its dtype attr, or its value's dtype when
// that attr is missing) and every stored value is exactly a float16.
func TestTFJSRestoreDTypes(t *testing.T) {
	const topo = `{"node": [
    {"name": "h", "op": "Const", "attr": {"dtype": {"type": "DT_HALF"}, "value": {"tensor": {"dtype": "DT_HALF", "tensorShape": {"dim": [{"size": "2"}]}}}}},
    {"name": "v", "op": "Const", "attr": {"value": {"tensor": {"dtype": "DT_HALF", "tensorShape": {"dim": [{"size": "2"}]}}}}},
    {"name": "f", "op": "Const", "attr": {"dtype": {"type": "DT_FLOAT"}, "value": {"tensor": {"dtype": "DT_FLOAT", "tensorShape": {"dim": [{"size": "2"}]}}}}},
    {"name": "inexact", "op": "Const", "attr": {"dtype": {"type": "DT_HALF"}, "value": {"tensor": {"dtype": "DT_HALF", "tensorShape": {"dim": [{"size": "2"}]}}}}}
  ], "versions": {"producer": 1645}}`
	var ws []testWeight
	for _, n := range []string{"h", "v", "f", "inexact"} {
		ws = append(ws, testWeight{Name: n, Shape: []int64{2}, DType: "float32"})
	}
	shard := cat(le32(1.5, -65504), le32(0.25, float32(math.Inf(-1))), le32(1.5, 0.1), le32(1, 0.1))
	dir := writeTFJS(t, topo, []testGroup{{Paths: []string{"w.bin"}, Weights: ws}}, map[string][]byte{"w.bin": shard}, nil)
	m, err := Load(dir)
	require.NoError(t, err)
	assert.Equal(t, &Weight{Name: "h", DType: tpb.DataType_DT_HALF, Shape: []int64{2}, Data: le16(0x3e00, 0xfbff)}, m.Weights["h"])
	assert.Equal(t, &Weight{Name: "v", DType: tpb.DataType_DT_HALF, Shape: []int64{2}, Data: le16(0x3400, 0xfc00)}, m.Weights["v"])
	assert.Equal(t, &Weight{Name: "f", DType: tpb.DataType_DT_FLOAT, Shape: []int64{2}, Data: le32(1.5, 0.1)}, m.Weights["f"])
	assert.Equal(t, &Weight{Name: "inexact", DType: tpb.DataType_DT_FLOAT, Shape: []int64{2}, Data: le32(1, 0.1)}, m.Weights["inexact"],
		"0.1 is no float16: the weight is not what the converter writes and stays as stored")
	assert.Equal(t, []RestoredDType{
		{Node: "h", Stored: tpb.DataType_DT_FLOAT, DType: tpb.DataType_DT_HALF},
		{Node: "v", Stored: tpb.DataType_DT_FLOAT, DType: tpb.DataType_DT_HALF},
	}, m.RestoredDTypes)
	assert.Equal(t, "2 float16 Consts (first h) are stored as float32 in the TF.js weights (the converter widens float16 arrays; "+
		"TF.js computes float16 as float32): tfscan reads them back as float16, exactly, and runs the graph's float16 ops as TensorFlow does",
		RestoredDTypesNote(m.RestoredDTypes))
	assert.Contains(t, RestoredDTypesNote(m.RestoredDTypes[:1]), "the float16 Const h is stored as float32 in the TF.js weights "+
		"(the converter widens float16 arrays; TF.js computes float16 as float32): tfscan reads it back")
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
