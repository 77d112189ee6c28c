package savedmodel

import (
	"maps"
	"slices"

	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"
)

// decodeSignatures turns a signature_def map into Signatures sorted by key,
// each with inputs and outputs sorted by key.
func decodeSignatures(defs map[string]*mgpb.SignatureDef) []*Signature {
	if len(defs) == 0 {
		return nil
	}
	keys := slices.Sorted(maps.Keys(defs))
	sigs := make([]*Signature, 0, len(keys))
	for _, k := range keys {
		d := defs[k]
		sigs = append(sigs, &Signature{
			Key:     k,
			Method:  d.GetMethodName(),
			Inputs:  decodeTensorInfos(d.GetInputs()),
			Outputs: decodeTensorInfos(d.GetOutputs()),
		})
	}
	return sigs
}

func decodeTensorInfos(m map[string]*mgpb.TensorInfo) []*TensorInfo {
	if len(m) == 0 {
		return nil
	}
	out := make([]*TensorInfo, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, decodeTensorInfo(k, m[k]))
	}
	return out
}

// decodeTensorInfo reads one TensorInfo. A sparse tensor binds to its values
// tensor; a composite tensor has no single graph tensor, so Name is "".
// A missing tensor_shape is the default TensorShapeProto, a scalar, as in
// TensorFlow's C++ accessors.
func decodeTensorInfo(key string, ti *mgpb.TensorInfo) *TensorInfo {
	t := &TensorInfo{Key: key, DType: ti.GetDtype()}
	switch enc := ti.GetEncoding().(type) {
	case *mgpb.TensorInfo_Name:
		t.Name = enc.Name
	case *mgpb.TensorInfo_CooSparse_:
		t.Name = enc.CooSparse.GetValuesTensorName()
	}
	sh := ti.GetTensorShape()
	if sh.GetUnknownRank() {
		t.UnknownRank = true
		return t
	}
	t.Shape = make([]int64, len(sh.GetDim()))
	for i, d := range sh.GetDim() {
		t.Shape[i] = d.GetSize()
	}
	if checkDims(t.Shape, true, MaxShapeElements) != nil {
		// A shape no tensor has (a dimension below -1, more elements than
		// MaxShapeElements) is read as unknown: TensorFlow's loaders find
		// a signature's tensors by name and never read its shapes
		// (python/saved_model/load_v1_in_v2.py:158-161), so the model
		// loads and runs.
		t.Shape, t.UnknownRank = nil, true
	}
	return t
}
