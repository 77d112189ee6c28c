package kernels

import (
	"strconv"
	"strings"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// SparseToDense (core/kernels/sparse_to_dense_op.cc): a dense tensor of
// output_shape filled with default_value, with sparse_values written at
// sparse_indices in order (a later duplicate overwrites an earlier one when
// validate_indices is false). With validate_indices (the default) the
// indices must be in bounds, lexicographically increasing and distinct, as
// SparseTensor::IndicesValid checks, with its messages. TensorFlow registers
// it on CPU for the real number types, bool and string, with int32 or int64
// indices.

func sparseToDenseKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 4); err != nil {
		return nil, err
	}
	ixT, shT, vals, def := ctx.Inputs[0], ctx.Inputs[1], ctx.Inputs[2], ctx.Inputs[3]
	if len(ixT.Shape) > 2 {
		return nil, ctx.Errorf("sparse_indices should be a scalar, vector, or matrix, got shape %s", dimsString(ixT.Shape))
	}
	numElems, numDims := 1, 1
	if len(ixT.Shape) > 0 {
		numElems = ixT.Shape[0]
	}
	if len(ixT.Shape) > 1 {
		numDims = ixT.Shape[1]
	}
	if len(shT.Shape) != 1 {
		return nil, ctx.Errorf("output_shape must be rank 1, got shape %s", dimsString(shT.Shape))
	}
	if shT.NumElements() != numDims {
		return nil, ctx.Errorf("output_shape has incorrect number of elements: %d should be: %d", shT.NumElements(), numDims)
	}
	if len(vals.Shape) != 0 && (len(vals.Shape) != 1 || vals.NumElements() != numElems) {
		return nil, ctx.Errorf("sparse_values has incorrect shape %s, should be [] or [%d]", dimsString(vals.Shape), numElems)
	}
	if len(def.Shape) != 0 {
		return nil, ctx.Errorf("default_value should be a scalar.")
	}
	if !isRealNumber(vals) && vals.DType != tpb.DataType_DT_BOOL && vals.DType != tpb.DataType_DT_STRING {
		return nil, ctx.Unsupported("dtype %s", dtypeName(vals.DType))
	}
	ix, err := indexValues(ixT)
	if err != nil {
		return nil, ctx.Errorf("sparse_indices: %v", err)
	}
	dims64, err := indexValues(shT)
	if err != nil {
		return nil, ctx.Errorf("output_shape: %v", err)
	}
	shape := make([]int, len(dims64))
	for i, d := range dims64 {
		if d < 0 {
			return nil, ctx.Errorf("Dimension %d must be >= 0", d)
		}
		if d > MaxElements {
			return nil, ctx.Errorf("output_shape %v is too large", dims64)
		}
		shape[i] = int(d)
	}
	total, err := CheckShape(shape)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	validate := true
	if ctx.HasAttr("validate_indices") {
		if validate, err = ctx.AttrBool("validate_indices"); err != nil {
			return nil, err
		}
	}
	if validate {
		if err := sparseIndicesValid(ix, numElems, numDims, dims64); err != nil {
			return nil, ctx.Errorf("%v", err)
		}
	}
	idx := make([]int, total)
	for i := range idx {
		idx[i] = -1
	}
	strides := rowMajorStrides(shape)
	scalarVals := len(vals.Shape) == 0
	for n := 0; n < numElems; n++ {
		off := 0
		for d := 0; d < numDims; d++ {
			v := ix[n*numDims+d]
			if v < 0 || v >= dims64[d] {
				return nil, ctx.Errorf("Indices are not valid (out of bounds).  Shape: %s", dimsString(shape))
			}
			off += int(v) * strides[d]
		}
		if scalarVals {
			idx[off] = -2
		} else {
			idx[off] = -n - 2
		}
	}
	out, err := podSelect(def, vals, def, shape, idx)
	if err != nil {
		return nil, selectErr(ctx, err)
	}
	return []*Tensor{out}, nil
}

// sparseIndicesValid is SparseTensor::IndicesValidHelper in standard order.
func sparseIndicesValid(ix []int64, n, dims int, shape []int64) error {
	for i := 0; i < n; i++ {
		row := ix[i*dims : (i+1)*dims]
		valid, different, increasing := true, i == 0, true
		for d, v := range row {
			if v < 0 || v >= shape[d] {
				valid = false
			}
			if i > 0 {
				diff := v - ix[(i-1)*dims+d]
				if diff > 0 {
					different = true
				}
				if !different && diff < 0 {
					increasing = false
				}
			}
		}
		if valid && increasing && different {
			continue
		}
		parts := make([]string, len(row))
		for d, v := range row {
			parts[d] = strconv.FormatInt(v, 10)
		}
		index := "indices[" + strconv.Itoa(i) + "] = [" + strings.Join(parts, ",") + "]"
		switch {
		case !valid:
			sh := make([]string, len(shape))
			for d, v := range shape {
				sh[d] = strconv.FormatInt(v, 10)
			}
			return errorf("%s is out of bounds: need 0 <= index < [%s]", index, strings.Join(sh, ","))
		case !increasing:
			return errorf("%s is out of order. Many sparse ops require sorted indices.\n    Use `tf.sparse.reorder` to create a correctly ordered copy.\n\n", index)
		default:
			return errorf("%s is repeated", index)
		}
	}
	return nil
}

func init() {
	Register("SparseToDense", sparseToDenseKernel)
}
