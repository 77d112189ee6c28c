// Package dtype holds the facts about TensorFlow data types that every
// layer of tfscan needs — the loader, the shape inference, the checkpoint
// reader and the kernels — so that they are written once.
package dtype

import tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

// refOffset is the distance of a reference type from its base type
// (DT_FLOAT_REF = DT_FLOAT + 100, tensorflow/core/framework/types.proto).
const refOffset = 100

// Base strips the _REF offset of a reference dtype (DT_FLOAT_REF → DT_FLOAT).
func Base(dt tpb.DataType) tpb.DataType {
	if dt > refOffset {
		return dt - refOffset
	}
	return dt
}

// Size is DataTypeSize (tensorflow/core/framework/types.cc): the bytes one
// element occupies in TensorFlow's dense little-endian encoding
// (tensor_content, checkpoint shards, .npy), or 0 for dtypes without a fixed
// size (string, resource, variant) and unknown ones. Reference types have
// their base type's size.
func Size(dt tpb.DataType) int {
	switch Base(dt) {
	case tpb.DataType_DT_FLOAT, tpb.DataType_DT_INT32, tpb.DataType_DT_UINT32, tpb.DataType_DT_QINT32:
		return 4
	case tpb.DataType_DT_DOUBLE, tpb.DataType_DT_INT64, tpb.DataType_DT_UINT64, tpb.DataType_DT_COMPLEX64:
		return 8
	case tpb.DataType_DT_COMPLEX128:
		return 16
	case tpb.DataType_DT_HALF, tpb.DataType_DT_BFLOAT16, tpb.DataType_DT_INT16, tpb.DataType_DT_UINT16,
		tpb.DataType_DT_QINT16, tpb.DataType_DT_QUINT16:
		return 2
	case tpb.DataType_DT_INT8, tpb.DataType_DT_UINT8, tpb.DataType_DT_BOOL, tpb.DataType_DT_QINT8,
		tpb.DataType_DT_QUINT8, tpb.DataType_DT_FLOAT8_E5M2, tpb.DataType_DT_FLOAT8_E4M3FN,
		tpb.DataType_DT_INT4, tpb.DataType_DT_UINT4:
		return 1
	}
	return 0
}

// IsFloat reports whether dt, or the base type of a reference dtype, is a
// floating-point dtype (half, bfloat16, float, double).
func IsFloat(dt tpb.DataType) bool {
	switch Base(dt) {
	case tpb.DataType_DT_HALF, tpb.DataType_DT_BFLOAT16, tpb.DataType_DT_FLOAT, tpb.DataType_DT_DOUBLE:
		return true
	}
	return false
}
