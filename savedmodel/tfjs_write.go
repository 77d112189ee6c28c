package savedmodel

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path"
	"path/filepath"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	gpb "github.com/wamuir/graft/tensorflow/core/framework/graph_go_proto"
	tensorpb "github.com/wamuir/graft/tensorflow/core/framework/tensor_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// tfjsNewShard is the base name of the shard holding the constants a
// rewritten TF.js model adds; a number is appended if the manifest already
// names a file so.
const tfjsNewShard = "rewrite_constants"

// writeTFJSModel writes a TF.js graph model into the new directory dir:
// model.json with its keys in their order and every key but modelTopology
// and weightsManifest as it was, the graph as proto3 JSON (the form the
// converter writes, json_format.MessageToDict) with TF.js's own op names
// restored, the source's weight shards copied byte for byte, and one more
// shard, in a manifest group of its own, for the values of top-level
// Consts that no manifest weight holds (TF.js takes every Const's value
// from the weights: tfjs-converter operations/executors/graph_executor.ts).
func writeTFJSModel(m *Model, dir string) error {
	src := m.File
	raw, err := readFile(src)
	if err != nil {
		return err
	}
	keys, vals, err := orderedObject(raw)
	if err != nil {
		return fileErrorf(src, "re-reading model.json: %v", err)
	}
	// The manifest is kept as written (every field of every group, which
	// the loader's structs do not all hold); a group is appended.
	var groups []tfjsWeightGroup
	var rawGroups []json.RawMessage
	for i, k := range keys {
		if k == "weightsManifest" {
			if err := json.Unmarshal(vals[i], &groups); err != nil {
				return fileErrorf(src, "re-reading weightsManifest: %v", err)
			}
			if err := json.Unmarshal(vals[i], &rawGroups); err != nil {
				return fileErrorf(src, "re-reading weightsManifest: %v", err)
			}
		}
	}
	gd := proto.Clone(m.MetaGraphs[0].Def.GetGraphDef()).(*gpb.GraphDef)
	withoutTFJSInit(m, gd)
	restoreTFJSOps(m, gd)
	shard, specs, err := moveConstants(m, gd)
	if err != nil {
		return err
	}
	if len(specs) > 0 {
		name := newShardName(groups)
		g, err := json.Marshal(newWeightGroup{Paths: []string{name}, Weights: specs})
		if err != nil {
			return fmt.Errorf("encoding the new weight group: %v", err)
		}
		rawGroups = append(rawGroups, g)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return outputError(dir, err)
		}
		if err := writeNew(filepath.Join(dir, name), shard); err != nil {
			return err
		}
	}
	topo, err := protojson.MarshalOptions{}.Marshal(gd)
	if err != nil {
		return fmt.Errorf("encoding modelTopology: %v", err)
	}
	if rawGroups == nil {
		rawGroups = []json.RawMessage{}
	}
	manifest, err := json.Marshal(rawGroups)
	if err != nil {
		return fmt.Errorf("encoding weightsManifest: %v", err)
	}
	set := func(k string, v []byte) {
		for i := range keys {
			if keys[i] == k {
				vals[i] = v
				return
			}
		}
		keys, vals = append(keys, k), append(vals, v)
	}
	set("modelTopology", topo)
	set("weightsManifest", manifest)
	var b bytes.Buffer
	b.WriteString("{")
	for i, k := range keys {
		if i > 0 {
			b.WriteString(",")
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteString(":")
		b.Write(vals[i])
	}
	b.WriteString("}")
	var out bytes.Buffer
	// Indent also drops protojson's deliberately unstable spacing, so
	// that the same model gives the same bytes.
	if err := json.Indent(&out, b.Bytes(), "", " "); err != nil {
		return fmt.Errorf("encoding model.json: %v", err)
	}
	out.WriteByte('\n')
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return &Error{File: dir, Err: unwrapPathError(err)}
	}
	if err := writeNew(filepath.Join(dir, tfjsModelJSON), out.Bytes()); err != nil {
		return err
	}
	srcDir := filepath.Dir(src)
	for _, g := range groups {
		for _, p := range g.Paths {
			if !filepath.IsLocal(filepath.FromSlash(p)) {
				return fileErrorf(src, "weight shard path %q is not inside the model directory", p)
			}
			to := filepath.Join(dir, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
				return &Error{File: to, Err: unwrapPathError(err)}
			}
			if err := copyFile(filepath.Join(srcDir, filepath.FromSlash(p)), to); err != nil {
				return err
			}
		}
	}
	return nil
}

// newWeightGroup is the manifest group of the constants a rewrite adds:
// plain float32/int32/bool weights, no quantization (TF.js reads a
// "quantization" key, even null, as quantized: tfjs-core io_utils.ts
// getWeightBytelength).
type newWeightGroup struct {
	Paths   []string         `json:"paths"`
	Weights []newWeightEntry `json:"weights"`
}

type newWeightEntry struct {
	Name  string  `json:"name"`
	Shape []int64 `json:"shape"`
	DType string  `json:"dtype"`
}

// orderedObject splits a JSON object into its keys and raw values, in order.
func orderedObject(b []byte) ([]string, []json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, nil, fmt.Errorf("not a JSON object")
	}
	var keys []string
	var vals []json.RawMessage
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		keys, vals = append(keys, k), append(vals, v)
	}
	return keys, vals, nil
}

// restoreTFJSOps gives back the TF.js-only op names the loader renamed
// (Model.Renamed), on the nodes that still have that name and the op it was
// renamed to.
func restoreTFJSOps(m *Model, gd *gpb.GraphDef) {
	if len(m.Renamed) == 0 {
		return
	}
	for _, n := range gd.GetNode() {
		if from, ok := m.Renamed[n.GetName()]; ok && tfjsOpRenames[from] == n.GetOp() {
			n.Op = from
		}
	}
	for _, f := range gd.GetLibrary().GetFunction() {
		prefix := f.GetSignature().GetName() + "/"
		for _, n := range f.GetNodeDef() {
			if from, ok := m.Renamed[prefix+n.GetName()]; ok && tfjsOpRenames[from] == n.GetOp() {
				n.Op = from
			}
		}
	}
}

// newShardName is a shard file name no group uses.
func newShardName(groups []tfjsWeightGroup) string {
	used := map[string]bool{}
	for _, g := range groups {
		for _, p := range g.Paths {
			used[path.Clean(p)] = true
		}
	}
	name := tfjsNewShard + ".bin"
	for i := 2; used[name]; i++ {
		name = fmt.Sprintf("%s_%d.bin", tfjsNewShard, i)
	}
	return name
}

// moveConstants takes the values of the top-level Consts that no manifest
// weight holds out of gd into one shard, leaving each Const's dtype and
// shape as the converter does, and returns the shard and its weight specs.
func moveConstants(m *Model, gd *gpb.GraphDef) ([]byte, []newWeightEntry, error) {
	var shard []byte
	var specs []newWeightEntry
	for _, n := range gd.GetNode() {
		if n.GetOp() != "Const" {
			continue
		}
		if _, ok := m.Weights[n.GetName()]; ok {
			continue
		}
		val := n.GetAttr()["value"].GetTensor()
		if val == nil {
			continue
		}
		name, data, err := tfjsWeightBytes(val)
		if err != nil {
			return nil, nil, fmt.Errorf("Const %q: %v", n.GetName(), err)
		}
		var shape []int64
		for _, d := range val.GetTensorShape().GetDim() {
			shape = append(shape, d.GetSize())
		}
		if shape == nil {
			shape = []int64{}
		}
		specs = append(specs, newWeightEntry{Name: n.GetName(), Shape: shape, DType: name})
		shard = append(shard, data...)
		stripped := &tensorpb.TensorProto{Dtype: val.GetDtype(), TensorShape: val.GetTensorShape()}
		n.Attr["value"] = &attrpb.AttrValue{Value: &attrpb.AttrValue_Tensor{Tensor: stripped}}
	}
	return shard, specs, nil
}

// tfjsWeightBytes encodes a tensor the way a TF.js shard stores it:
// little-endian float32 or int32, bool as one byte.
func tfjsWeightBytes(t *tensorpb.TensorProto) (string, []byte, error) {
	n := int64(1)
	for _, d := range t.GetTensorShape().GetDim() {
		if d.GetSize() < 0 {
			return "", nil, fmt.Errorf("value has an unknown dimension")
		}
		n *= d.GetSize()
		if n > MaxTensorElements {
			return "", nil, fmt.Errorf("value has over %d elements", int64(MaxTensorElements))
		}
	}
	var name string
	var size int
	switch t.GetDtype() {
	case tpb.DataType_DT_FLOAT:
		name, size = "float32", 4
	case tpb.DataType_DT_INT32:
		name, size = "int32", 4
	case tpb.DataType_DT_BOOL:
		name, size = "bool", 1
	default:
		return "", nil, fmt.Errorf("TF.js weights cannot hold %s values", strings.TrimPrefix(t.GetDtype().String(), "DT_"))
	}
	if c := t.GetTensorContent(); len(c) > 0 || n == 0 {
		if int64(len(c)) != n*int64(size) {
			return "", nil, fmt.Errorf("tensor_content has %d bytes, want %d", len(c), n*int64(size))
		}
		return name, append([]byte(nil), c...), nil
	}
	out := make([]byte, n*int64(size))
	var count int
	switch t.GetDtype() {
	case tpb.DataType_DT_FLOAT:
		v := t.GetFloatVal()
		count = len(v)
		for i := int64(0); i < n && count > 0; i++ {
			binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(v[min(int(i), count-1)]))
		}
	case tpb.DataType_DT_INT32:
		v := t.GetIntVal()
		count = len(v)
		for i := int64(0); i < n && count > 0; i++ {
			binary.LittleEndian.PutUint32(out[4*i:], uint32(v[min(int(i), count-1)]))
		}
	case tpb.DataType_DT_BOOL:
		v := t.GetBoolVal()
		count = len(v)
		for i := int64(0); i < n && count > 0; i++ {
			if v[min(int(i), count-1)] {
				out[i] = 1
			}
		}
	}
	// TensorFlow repeats the last value to fill the shape
	// (tensor_util: an empty list means zeros).
	return name, out, nil
}
