package kernels

import (
	expb "github.com/wamuir/graft/tensorflow/core/example/example_protos_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
	"google.golang.org/protobuf/proto"
)

// ParseExample (core/kernels/example_parsing_ops.cc with
// util/example_proto_fast_parsing.cc): decodes a batch of serialized
// tf.Example protos into dense tensors [batch] + dense_shape (a missing
// feature takes its dense_default; an empty default makes it required) and
// sparse (indices, values, shape) triples. It is what the classify and
// regress signatures of TF1 SavedModels start with. Dense shapes must be
// fully defined (the variable-length form with an unknown first dimension
// is reported as unsupported). Error texts follow the fast parser's.

// featureValues is a feature's values as the dtype dt reads them. A
// float64 run (Numerics.Float64) rewrites float dtype attrs to DT_DOUBLE:
// float lists are read for DT_DOUBLE too, as []float32, and widened into
// the float64 outputs (copyValues).
func featureValues(f *expb.Feature, dt tpb.DataType) (any, int, bool) {
	switch dt {
	case tpb.DataType_DT_FLOAT, tpb.DataType_DT_DOUBLE:
		if l := f.GetFloatList(); l != nil {
			return l.GetValue(), len(l.GetValue()), true
		}
	case tpb.DataType_DT_INT64:
		if l := f.GetInt64List(); l != nil {
			return l.GetValue(), len(l.GetValue()), true
		}
	case tpb.DataType_DT_STRING:
		if l := f.GetBytesList(); l != nil {
			return l.GetValue(), len(l.GetValue()), true
		}
	}
	if f.GetKind() == nil { // an empty Feature is an empty list of any type
		return nil, 0, true
	}
	return nil, 0, false
}

// copyValues copies the values src (a []float32, []float64, []int64 or
// [][]byte) into dst from index at and returns how many, widening float32
// into a float64 run's outputs.
func copyValues(dst any, at int, src any) int {
	switch d := dst.(type) {
	case []float32:
		return copy(d[at:], src.([]float32))
	case []float64:
		if f, ok := src.([]float32); ok {
			for i, v := range f {
				d[at+i] = float64(v)
			}
			return len(f)
		}
		return copy(d[at:], src.([]float64))
	case []int64:
		return copy(d[at:], src.([]int64))
	case [][]byte:
		for i, v := range src.([][]byte) {
			d[at+i] = append([]byte{}, v...)
		}
		return len(src.([][]byte))
	}
	return 0
}

func typeName(dt tpb.DataType) string {
	switch dt {
	case tpb.DataType_DT_FLOAT, tpb.DataType_DT_DOUBLE:
		return "float"
	case tpb.DataType_DT_INT64:
		return "int64"
	case tpb.DataType_DT_STRING:
		return "string"
	}
	return dt.String()
}

func parseExampleKernel(ctx *Context) ([]*Tensor, error) {
	nSparse, err := ctx.AttrInt("Nsparse")
	if err != nil {
		return nil, err
	}
	nDense, err := ctx.AttrInt("Ndense")
	if err != nil {
		return nil, err
	}
	if nSparse < 0 || nDense < 0 || int(2+nSparse+2*nDense) != len(ctx.Inputs) {
		return nil, ctx.Errorf("expected %d inputs for Nsparse=%d Ndense=%d, got %d", 2+nSparse+2*nDense, nSparse, nDense, len(ctx.Inputs))
	}
	if err := wantInputs(ctx, len(ctx.Inputs)); err != nil {
		return nil, err
	}
	sparseTypes, denseTypes := ctx.Attrs["sparse_types"].GetList().GetType(), ctx.Attrs["Tdense"].GetList().GetType()
	shapes := ctx.Attrs["dense_shapes"].GetList().GetShape()
	if len(sparseTypes) != int(nSparse) || len(denseTypes) != int(nDense) || len(shapes) != int(nDense) {
		return nil, ctx.Errorf("sparse_types, Tdense and dense_shapes do not match Nsparse/Ndense")
	}
	ser := ctx.Inputs[0]
	if len(ser.Shape) != 1 {
		return nil, ctx.Errorf("Expected serialized to be a vector, got shape: %s", dimsString(ser.Shape))
	}
	serialized, err := stringData(ctx, ser, "serialized")
	if err != nil {
		return nil, err
	}
	names, err := stringData(ctx, ctx.Inputs[1], "names")
	if err != nil {
		return nil, err
	}
	if len(names) > 0 && len(names) != len(serialized) {
		return nil, ctx.Errorf("Expected len(names) == len(serialized), but got: %d vs. %d", len(names), len(serialized))
	}
	key := func(i int) (string, error) {
		d, err := stringData(ctx, ctx.Inputs[i], "keys")
		if err != nil {
			return "", err
		}
		if len(d) != 1 {
			return "", ctx.Errorf("keys must be scalars")
		}
		return string(d[0]), nil
	}
	batch := len(serialized)
	exs := make([]*expb.Example, batch)
	for b, s := range serialized {
		exs[b] = &expb.Example{}
		if err := proto.Unmarshal(s, exs[b]); err != nil {
			return nil, ctx.Errorf("Could not parse example input, value: '%s'", s)
		}
	}
	name := func(b int) string {
		if len(names) > 0 && len(names[b]) > 0 {
			return string(names[b])
		}
		return "<unknown>"
	}
	nS := int(nSparse)
	outs := make([]*Tensor, 3*nS+int(nDense))
	for j := 0; j < nS; j++ {
		k, err := key(2 + j)
		if err != nil {
			return nil, err
		}
		dt := sparseTypes[j]
		var idx []int64
		var vals []any
		maxLen := 0
		for b, ex := range exs {
			f, ok := ex.GetFeatures().GetFeature()[k]
			if !ok {
				continue
			}
			v, n, ok := featureValues(f, dt)
			if !ok {
				return nil, ctx.Errorf("Name: %s, Feature: %s.  Data types don't match. Expected type: %s", name(b), k, typeName(dt))
			}
			for i := 0; i < n; i++ {
				idx = append(idx, int64(b), int64(i))
			}
			vals = append(vals, v)
			maxLen = max(maxLen, n)
		}
		n := len(idx) / 2
		out, err := newOutput(ctx, dt, []int{n})
		if err != nil {
			return nil, err
		}
		o := 0
		for _, v := range vals {
			o += copyValues(out.Data, o, v)
		}
		if idx == nil {
			idx = []int64{}
		}
		outs[j] = &Tensor{DType: tpb.DataType_DT_INT64, Shape: []int{n, 2}, Data: idx}
		outs[nS+j] = out
		outs[2*nS+j] = &Tensor{DType: tpb.DataType_DT_INT64, Shape: []int{2}, Data: []int64{int64(batch), int64(maxLen)}}
	}
	for j := 0; j < int(nDense); j++ {
		k, err := key(2 + nS + j)
		if err != nil {
			return nil, err
		}
		dt := denseTypes[j]
		var shape []int
		for _, d := range shapes[j].GetDim() {
			if d.GetSize() < 0 {
				return nil, ctx.Unsupported("variable-length dense feature %q", k)
			}
			shape = append(shape, int(d.GetSize()))
		}
		if shapes[j].GetUnknownRank() {
			return nil, ctx.Unsupported("dense feature %q of unknown rank", k)
		}
		per, err := CheckShape(shape)
		if err != nil {
			return nil, ctx.Errorf("dense_shapes[%d]: %v", j, err)
		}
		def := ctx.Inputs[2+nS+int(nDense)+j]
		if def.DType != dt {
			return nil, ctx.Errorf("dense_defaults[%d] has dtype %s, want %s", j, dtypeName(def.DType), dtypeName(dt))
		}
		if n := def.NumElements(); n != 0 && n != per {
			return nil, ctx.Errorf("dense_defaults[%d] has %d elements, dense_shapes[%d] needs %d", j, n, j, per)
		}
		out, err := newOutput(ctx, dt, append([]int{batch}, shape...))
		if err != nil {
			return nil, err
		}
		for b, ex := range exs {
			f, ok := ex.GetFeatures().GetFeature()[k]
			var src any
			if ok {
				v, n, ok := featureValues(f, dt)
				if !ok {
					return nil, ctx.Errorf("Name: %s, Feature: %s.  Data types don't match. Expected type: %s", name(b), k, typeName(dt))
				}
				if n != per {
					return nil, ctx.Errorf("Name: %s, Key: %s, Index: %d.  Number of %s values != expected.  Values size: %d but output shape: %s",
						name(b), k, b, typeName(dt), n, dimsString(shape))
				}
				src = v
			} else {
				if def.NumElements() == 0 {
					return nil, ctx.Errorf("Name: %s, Feature: %s (data type: %s) is required but could not be found.", name(b), k, typeName(dt))
				}
				src = def.Data
			}
			if src == nil { // an empty Feature: no values, per is 0
				continue
			}
			if copyValues(out.Data, b*per, src) != per {
				return nil, ctx.Unsupported("dense dtype %s", dtypeName(dt))
			}
		}
		outs[3*nS+j] = out
	}
	return outs, nil
}

func init() {
	Register("ParseExample", parseExampleKernel)
}
