package savedmodel

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// tfjsTopology is a small graph: x → FusedDepthwiseConv2dNative(w, b) →
// Prelu(alpha) → out, with Consts for every weight.
const tfjsTopology = `{
  "node": [
    {"name": "x", "op": "Placeholder", "attr": {"dtype": {"type": "DT_FLOAT"}, "shape": {"shape": {"dim": [{"size": "-1"}, {"size": "4"}, {"size": "4"}, {"size": "1"}]}}}},
    {"name": "w", "op": "Const", "attr": {"dtype": {"type": "DT_FLOAT"}, "value": {"tensor": {"dtype": "DT_FLOAT", "tensorShape": {"dim": [{"size": "2"}, {"size": "2"}]}}}}},
    {"name": "b", "op": "Const", "attr": {"dtype": {"type": "DT_FLOAT"}, "value": {"tensor": {"dtype": "DT_FLOAT", "tensorShape": {"dim": [{"size": "4"}]}}}}},
    {"name": "dw", "op": "FusedDepthwiseConv2dNative", "input": ["x", "w", "b"], "attr": {"T": {"type": "DT_FLOAT"}, "padding": {"s": "U0FNRQ=="}, "fused_ops": {"list": {"s": ["Qmlhc0FkZA=="]}}}},
    {"name": "alpha", "op": "Const", "attr": {"dtype": {"type": "DT_FLOAT"}, "value": {"tensor": {"dtype": "DT_FLOAT", "tensorShape": {"dim": [{"size": "1"}]}}}}},
    {"name": "out", "op": "Prelu", "input": ["dw", "alpha"]}
  ],
  "library": {},
  "versions": {"producer": 1645}
}`

type testWeight struct {
	Name         string         `json:"name"`
	Shape        []int64        `json:"shape"`
	DType        string         `json:"dtype"`
	Quantization map[string]any `json:"quantization,omitempty"`
}

type testGroup struct {
	Paths   []string     `json:"paths"`
	Weights []testWeight `json:"weights"`
}

// writeTFJS writes model.json with the topology and manifest, and the shard
// files, into a fresh directory.
func writeTFJS(t *testing.T, topology string, groups []testGroup, shards map[string][]byte, extra map[string]any) string {
	t.Helper()
	dir := t.TempDir()
	mj := map[string]any{
		"format":          "graph-model",
		"generatedBy":     "2.15.0",
		"convertedBy":     "hand",
		"modelTopology":   json.RawMessage(topology),
		"weightsManifest": groups,
	}
	for k, v := range extra {
		mj[k] = v
	}
	b, err := json.Marshal(mj)
	require.NoError(t, err)
	writeFile(t, dir, "model.json", b)
	for name, data := range shards {
		writeFile(t, dir, name, data)
	}
	return dir
}

func le32(vals ...float32) []byte {
	b := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

func leI32(vals ...int32) []byte {
	b := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(v))
	}
	return b
}

func le16(vals ...uint16) []byte {
	b := make([]byte, 2*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint16(b[2*i:], v)
	}
	return b
}

func cat(bs ...[]byte) []byte {
	var out []byte
	for _, b := range bs {
		out = append(out, b...)
	}
	return out
}

func TestTFJSLoad(t *testing.T) {
	groups := []testGroup{
		{Paths: []string{"group1-shard1of2.bin", "group1-shard2of2.bin"}, Weights: []testWeight{
			{Name: "w", Shape: []int64{2, 2}, DType: "float32"},
			{Name: "b", Shape: []int64{4}, DType: "float32", Quantization: map[string]any{"dtype": "uint8", "scale": 0.5, "min": -1.0}},
		}},
		{Paths: []string{"group2-shard1of1.bin"}, Weights: []testWeight{
			{Name: "alpha", Shape: []int64{1}, DType: "float32", Quantization: map[string]any{"dtype": "float16"}},
		}},
	}
	data := cat(le32(1, 2, 3, 4), []byte{0, 1, 2, 255})
	shards := map[string][]byte{
		// The first shard ends inside w, so w spans both shards.
		"group1-shard1of2.bin": data[:10],
		"group1-shard2of2.bin": data[10:],
		"group2-shard1of1.bin": le16(0x3400), // 0.25
	}
	sig := map[string]any{
		"inputs":  map[string]any{"x": map[string]any{"name": "x:0", "dtype": "DT_FLOAT", "tensorShape": map[string]any{"dim": []any{map[string]any{"size": "-1"}, map[string]any{"size": "4"}, map[string]any{"size": "4"}, map[string]any{"size": "1"}}}}},
		"outputs": map[string]any{"out": map[string]any{"name": "out:0", "dtype": "DT_FLOAT"}},
	}
	dir := writeTFJS(t, tfjsTopology, groups, shards, map[string]any{"signature": sig})

	m, err := Load(dir)
	require.NoError(t, err)
	assert.Equal(t, FormatTFJS, m.Format)
	assert.Equal(t, filepath.Join(dir, "model.json"), m.File)
	assert.Equal(t, dir, m.Path)

	nodes := m.MetaGraphs[0].Def.GetGraphDef().GetNode()
	require.Len(t, nodes, 6)
	assert.Equal(t, "_FusedDepthwiseConv2dNative", nodes[3].GetOp())
	assert.Equal(t, OpPrelu, nodes[5].GetOp(), "Prelu is kept as a pseudo-op")
	assert.Equal(t, map[string]string{"dw": "FusedDepthwiseConv2dNative"}, m.Renamed)
	assert.Equal(t, []byte("SAME"), nodes[3].GetAttr()["padding"].GetS())

	require.Len(t, m.Weights, 3)
	assert.Equal(t, &Weight{Name: "w", DType: tpb.DataType_DT_FLOAT, Shape: []int64{2, 2}, Data: le32(1, 2, 3, 4)}, m.Weights["w"])
	assert.Equal(t, le32(-1, -0.5, 0, 126.5), m.Weights["b"].Data)
	assert.Equal(t, le32(0.25), m.Weights["alpha"].Data)

	sigs := m.MetaGraphs[0].Signatures
	require.Len(t, sigs, 1)
	assert.Equal(t, TFJSSignatureKey, sigs[0].Key)
	require.Len(t, sigs[0].Inputs, 1)
	assert.Equal(t, &TensorInfo{Key: "x", Name: "x:0", DType: tpb.DataType_DT_FLOAT, Shape: []int64{-1, 4, 4, 1}}, sigs[0].Inputs[0])
	assert.Equal(t, "out:0", sigs[0].Outputs[0].Name)

	// The same model loads from the model.json path.
	m2, err := Load(filepath.Join(dir, "model.json"))
	require.NoError(t, err)
	assert.Equal(t, m.Weights, m2.Weights)
}

// TestTFJSDequantize checks decoding against values worked out by hand from
// tfjs-core's decodeWeight.
func TestTFJSDequantize(t *testing.T) {
	tests := []struct {
		name  string
		spec  testWeight
		shard []byte
		dtype tpb.DataType
		want  []byte
	}{
		{"uint8 to float32", testWeight{Shape: []int64{4}, DType: "float32", Quantization: map[string]any{"dtype": "uint8", "scale": 0.5, "min": -1.0}},
			[]byte{0, 1, 2, 255}, tpb.DataType_DT_FLOAT, le32(-1, -0.5, 0, 126.5)},
		{"uint16 to float32", testWeight{Shape: []int64{3}, DType: "float32", Quantization: map[string]any{"dtype": "uint16", "scale": 0.001, "min": 0.25}},
			le16(0, 1000, 65535), tpb.DataType_DT_FLOAT, le32(0.25, 1.25, 65.785)},
		// Math.round rounds halves up: -1.5 → -1, 1.5 → 2.
		{"uint8 to int32", testWeight{Shape: []int64{2, 2}, DType: "int32", Quantization: map[string]any{"dtype": "uint8", "scale": 1.5, "min": -3.0}},
			[]byte{0, 1, 2, 3}, tpb.DataType_DT_INT32, leI32(-3, -1, 0, 2)},
		{"float16", testWeight{Shape: []int64{7}, DType: "float32", Quantization: map[string]any{"dtype": "float16"}},
			le16(0x3c00, 0xc000, 0x7bff, 0x0001, 0x7c00, 0x3555, 0x8000), tpb.DataType_DT_FLOAT,
			le32(1, -2, 65504, float32(math.Ldexp(1, -24)), float32(math.Inf(1)), 0.333251953125, float32(math.Copysign(0, -1)))},
		{"int32", testWeight{Shape: []int64{2}, DType: "int32"}, leI32(-7, 1<<30), tpb.DataType_DT_INT32, leI32(-7, 1<<30)},
		{"bool", testWeight{Shape: []int64{3}, DType: "bool"}, []byte{1, 0, 1}, tpb.DataType_DT_BOOL, []byte{1, 0, 1}},
		{"scalar float32", testWeight{Shape: []int64{}, DType: "float32"}, le32(2.5), tpb.DataType_DT_FLOAT, le32(2.5)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.spec.Name = "w"
			dir := writeTFJS(t, `{"node": [{"name": "w", "op": "Const"}]}`,
				[]testGroup{{Paths: []string{"w.bin"}, Weights: []testWeight{tt.spec}}},
				map[string][]byte{"w.bin": tt.shard}, nil)
			m, err := Load(dir)
			require.NoError(t, err)
			w := m.Weights["w"]
			require.NotNil(t, w)
			assert.Equal(t, tt.dtype, w.DType)
			assert.Equal(t, tt.want, w.Data)
		})
	}
}

func TestTFJSStrings(t *testing.T) {
	shard := cat(leI32(2), []byte("ab"), leI32(0), leI32(3), []byte("xyz"))
	dir := writeTFJS(t, `{"node": [{"name": "s", "op": "Const"}]}`,
		[]testGroup{{Paths: []string{"s.bin"}, Weights: []testWeight{{Name: "s", Shape: []int64{3}, DType: "string"}}}},
		map[string][]byte{"s.bin": shard}, nil)
	m, err := Load(dir)
	require.NoError(t, err)
	w := m.Weights["s"]
	assert.Equal(t, tpb.DataType_DT_STRING, w.DType)
	assert.Equal(t, [][]byte{[]byte("ab"), {}, []byte("xyz")}, w.Strings)
	assert.Nil(t, w.Data)
}

func TestTFJSErrors(t *testing.T) {
	const oneConst = `{"node": [{"name": "w", "op": "Const"}]}`
	f32w := func(n int64) []testGroup {
		return []testGroup{{Paths: []string{"a.bin", "b.bin"}, Weights: []testWeight{{Name: "w", Shape: []int64{n}, DType: "float32"}}}}
	}
	tests := []struct {
		name     string
		topology string
		groups   []testGroup
		shards   map[string][]byte
		extra    map[string]any
		file     string // base name of the file the error names
		want     string
	}{
		{"short shard", oneConst, f32w(4), map[string][]byte{"a.bin": le32(1), "b.bin": le32(2, 3)}, nil,
			"b.bin", `weight shard is short: weight "w" needs bytes up to 16 of its group, the shards hold 12`},
		{"missing shard", oneConst, f32w(1), map[string][]byte{"a.bin": le32(1)}, nil,
			"b.bin", "weight shard: no such file or directory"},
		{"shard outside the directory", oneConst,
			[]testGroup{{Paths: []string{"../w.bin"}, Weights: []testWeight{{Name: "w", Shape: []int64{1}, DType: "float32"}}}}, nil, nil,
			"model.json", `weight shard path "../w.bin" is not inside the model directory`},
		{"unknown quantization", oneConst,
			[]testGroup{{Paths: []string{"a.bin"}, Weights: []testWeight{{Name: "w", Shape: []int64{1}, DType: "float32", Quantization: map[string]any{"dtype": "int4"}}}}},
			map[string][]byte{"a.bin": {0}}, nil,
			"model.json", `weight "w" has unknown quantization dtype "int4" (supported: uint8, uint16, float16)`},
		{"uint8 without scale", oneConst,
			[]testGroup{{Paths: []string{"a.bin"}, Weights: []testWeight{{Name: "w", Shape: []int64{1}, DType: "float32", Quantization: map[string]any{"dtype": "uint8", "min": 0}}}}},
			map[string][]byte{"a.bin": {0}}, nil,
			"model.json", `weight "w" with quantization uint8 has no min and scale`},
		{"float16 into int32", oneConst,
			[]testGroup{{Paths: []string{"a.bin"}, Weights: []testWeight{{Name: "w", Shape: []int64{1}, DType: "int32", Quantization: map[string]any{"dtype": "float16"}}}}},
			map[string][]byte{"a.bin": {0, 0}}, nil,
			"model.json", `weight "w" is quantized with float16, which only supports float32 weights, not int32`},
		{"unsupported dtype", oneConst,
			[]testGroup{{Paths: []string{"a.bin"}, Weights: []testWeight{{Name: "w", Shape: []int64{1}, DType: "float64"}}}},
			map[string][]byte{"a.bin": make([]byte, 8)}, nil,
			"model.json", `weight "w" has unsupported dtype "float64"`},
		{"absurd weight shape", oneConst,
			[]testGroup{{Paths: []string{"a.bin"}, Weights: []testWeight{{Name: "w", Shape: []int64{1 << 62}, DType: "float32"}}}},
			map[string][]byte{"a.bin": le32(1)}, nil,
			"model.json", `weight "w": shape [4611686018427387904] has dimension 4611686018427387904, over the limit of 2147483648 elements`},
		{"negative weight shape", oneConst,
			[]testGroup{{Paths: []string{"a.bin"}, Weights: []testWeight{{Name: "w", Shape: []int64{-1}, DType: "float32"}}}},
			map[string][]byte{"a.bin": le32(1)}, nil,
			"model.json", `weight "w": shape [-1] has negative dimension -1`},
		{"short string", oneConst,
			[]testGroup{{Paths: []string{"a.bin"}, Weights: []testWeight{{Name: "w", Shape: []int64{1}, DType: "string"}}}},
			map[string][]byte{"a.bin": cat(leI32(10), []byte("abc"))}, nil,
			"a.bin", `weight shard is short: weight "w" needs bytes up to 14 of its group, the shards hold 7`},
		{"const without weight or value", `{"node": [{"name": "c", "op": "Const"}]}`, nil, nil, nil,
			"model.json", `node "c" (Const) has no "value" attr`},
		{"topology not a GraphDef", `{"node": 3}`, nil, nil, nil,
			"model.json", "modelTopology is not a GraphDef: "},
		{"layers model", `{"class_name": "Sequential", "config": {}}`, nil, nil, map[string]any{"format": "layers-model"},
			"model.json", "TF.js layers models (Keras topology) are not supported; convert to a graph model"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeTFJS(t, tt.topology, tt.groups, tt.shards, tt.extra)
			_, err := Load(dir)
			require.Error(t, err)
			var e *Error
			require.True(t, errors.As(err, &e), "%T %v", err, err)
			assert.Equal(t, tt.file, filepath.Base(e.File))
			assert.Contains(t, e.Err.Error(), tt.want)
			assert.NotContains(t, err.Error(), "\n")
		})
	}
}

func TestTFJSBadJSON(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "model.json", []byte("{\n  \"modelTopology\": {\"node\": []},\n  \"weightsManifest\": [\n}"))
	_, err := Load(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "model.json: not a TF.js model.json: line 4:1: invalid character '}'")
}

func TestJSRound(t *testing.T) {
	for x, want := range map[float64]float64{-1.5: -1, 1.5: 2, 0.49999999999999994: 0, -0.5: 0, 2.5: 3, -2.6: -3} {
		assert.Equal(t, want, jsRound(x), "%v", x)
	}
	assert.Equal(t, int32(-2147483648), jsToInt32(2147483648))
	assert.Equal(t, int32(0), jsToInt32(math.NaN()))
	assert.Equal(t, int32(-1), jsToInt32(4294967295))
}
