package extract

import (
	"strings"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// cppTypes maps C++ element types, as they appear after the TF_CALL_* macros
// expand (tensorflow/core/framework/register_types.h, numeric_types.h,
// types.h DataTypeToEnum specialisations), to TensorFlow dtypes. Keys have
// namespaces and spaces removed.
var cppTypes = map[string]tpb.DataType{
	"float": tpb.DataType_DT_FLOAT, "double": tpb.DataType_DT_DOUBLE,
	"half": tpb.DataType_DT_HALF, "bfloat16": tpb.DataType_DT_BFLOAT16,
	"int": tpb.DataType_DT_INT32, "int32": tpb.DataType_DT_INT32, "int32_t": tpb.DataType_DT_INT32,
	"int64": tpb.DataType_DT_INT64, "int64_t": tpb.DataType_DT_INT64, "longlong": tpb.DataType_DT_INT64,
	"int16": tpb.DataType_DT_INT16, "int16_t": tpb.DataType_DT_INT16,
	"int8": tpb.DataType_DT_INT8, "int8_t": tpb.DataType_DT_INT8,
	"uint8": tpb.DataType_DT_UINT8, "uint8_t": tpb.DataType_DT_UINT8,
	"uint16": tpb.DataType_DT_UINT16, "uint16_t": tpb.DataType_DT_UINT16,
	"uint32": tpb.DataType_DT_UINT32, "uint32_t": tpb.DataType_DT_UINT32,
	"uint64": tpb.DataType_DT_UINT64, "uint64_t": tpb.DataType_DT_UINT64,
	"bool":    tpb.DataType_DT_BOOL,
	"tstring": tpb.DataType_DT_STRING, "string": tpb.DataType_DT_STRING,
	"complex64": tpb.DataType_DT_COMPLEX64, "complex<float>": tpb.DataType_DT_COMPLEX64,
	"complex128": tpb.DataType_DT_COMPLEX128, "complex<double>": tpb.DataType_DT_COMPLEX128,
	"qint8": tpb.DataType_DT_QINT8, "QInt8": tpb.DataType_DT_QINT8,
	"quint8": tpb.DataType_DT_QUINT8, "QUInt8": tpb.DataType_DT_QUINT8,
	"qint16": tpb.DataType_DT_QINT16, "QInt16": tpb.DataType_DT_QINT16,
	"quint16": tpb.DataType_DT_QUINT16, "QUInt16": tpb.DataType_DT_QUINT16,
	"qint32": tpb.DataType_DT_QINT32, "QInt32": tpb.DataType_DT_QINT32,
	"Variant": tpb.DataType_DT_VARIANT, "ResourceHandle": tpb.DataType_DT_RESOURCE,
	"float8_e5m2": tpb.DataType_DT_FLOAT8_E5M2, "float8_e4m3fn": tpb.DataType_DT_FLOAT8_E4M3FN,
	"int4": tpb.DataType_DT_INT4, "uint4": tpb.DataType_DT_UINT4,
}

// tfCTypes are the TF_DataType names of tensorflow/c/tf_datatype.h, used by
// PluggableDevice plugins (DirectML's RegisterWithTypes<..., TF_FLOAT>).
var tfCTypes = map[string]tpb.DataType{
	"TF_FLOAT": tpb.DataType_DT_FLOAT, "TF_DOUBLE": tpb.DataType_DT_DOUBLE,
	"TF_INT32": tpb.DataType_DT_INT32, "TF_UINT8": tpb.DataType_DT_UINT8,
	"TF_INT16": tpb.DataType_DT_INT16, "TF_INT8": tpb.DataType_DT_INT8,
	"TF_STRING": tpb.DataType_DT_STRING, "TF_COMPLEX64": tpb.DataType_DT_COMPLEX64,
	"TF_COMPLEX": tpb.DataType_DT_COMPLEX64, "TF_INT64": tpb.DataType_DT_INT64,
	"TF_BOOL": tpb.DataType_DT_BOOL, "TF_QINT8": tpb.DataType_DT_QINT8,
	"TF_QUINT8": tpb.DataType_DT_QUINT8, "TF_QINT32": tpb.DataType_DT_QINT32,
	"TF_BFLOAT16": tpb.DataType_DT_BFLOAT16, "TF_QINT16": tpb.DataType_DT_QINT16,
	"TF_QUINT16": tpb.DataType_DT_QUINT16, "TF_UINT16": tpb.DataType_DT_UINT16,
	"TF_COMPLEX128": tpb.DataType_DT_COMPLEX128, "TF_HALF": tpb.DataType_DT_HALF,
	"TF_RESOURCE": tpb.DataType_DT_RESOURCE, "TF_VARIANT": tpb.DataType_DT_VARIANT,
	"TF_UINT32": tpb.DataType_DT_UINT32, "TF_UINT64": tpb.DataType_DT_UINT64,
}

// CppType maps a C++ element type (float, Eigen::half, ::tensorflow::tstring,
// std::complex<float>, typename EnumToDataType<DT_HALF>::Type) to a dtype.
func CppType(s string) (tpb.DataType, bool) {
	s = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "typename"))
	s = strings.TrimPrefix(s, "const ")
	// EnumToDataType<DT_X>::Type (tensorflow/core/framework/types.h).
	if i := strings.Index(s, "EnumToDataType<"); i >= 0 {
		rest := s[i+len("EnumToDataType<"):]
		if j := strings.IndexByte(rest, '>'); j >= 0 && strings.HasPrefix(strings.ReplaceAll(rest[j+1:], " ", ""), "::Type") {
			return dtEnum(rest[:j])
		}
		return 0, false
	}
	key := strings.ReplaceAll(s, " ", "")
	for _, ns := range []string{"::tensorflow::", "tensorflow::", "::tsl::", "tsl::", "::Eigen::", "Eigen::", "::itex::", "itex::", "::std::", "std::", "ml_dtypes::", "::ml_dtypes::"} {
		key = strings.ReplaceAll(key, ns, "")
	}
	key = strings.TrimPrefix(key, "::")
	t, ok := cppTypes[key]
	return t, ok
}

// dtEnum maps DT_FLOAT, tensorflow::DT_HALF and the C API's TF_FLOAT.
func dtEnum(s string) (tpb.DataType, bool) {
	s = lastComponent(s)
	if t, ok := tfCTypes[s]; ok {
		return t, true
	}
	if !strings.HasPrefix(s, "DT_") {
		return 0, false
	}
	v, ok := tpb.DataType_value[s]
	if !ok || v == 0 || v > 100 {
		return 0, false
	}
	return tpb.DataType(v), true
}
