package dtype

import (
	"strconv"
	"strings"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// dtypeNames are tfscan's stable lowercase dtype names. They follow NumPy /
// TF Python naming (tf.float32.name) rather than TensorFlow's C++
// DataTypeString ("float", "half"), because that is what users see in Python
// and what reports, packs and baselines store. Ref types get a "_ref" suffix.
var dtypeNames = map[tpb.DataType]string{
	tpb.DataType_DT_INVALID:       "invalid",
	tpb.DataType_DT_FLOAT:         "float32",
	tpb.DataType_DT_DOUBLE:        "float64",
	tpb.DataType_DT_INT32:         "int32",
	tpb.DataType_DT_UINT8:         "uint8",
	tpb.DataType_DT_INT16:         "int16",
	tpb.DataType_DT_INT8:          "int8",
	tpb.DataType_DT_STRING:        "string",
	tpb.DataType_DT_COMPLEX64:     "complex64",
	tpb.DataType_DT_INT64:         "int64",
	tpb.DataType_DT_BOOL:          "bool",
	tpb.DataType_DT_QINT8:         "qint8",
	tpb.DataType_DT_QUINT8:        "quint8",
	tpb.DataType_DT_QINT32:        "qint32",
	tpb.DataType_DT_BFLOAT16:      "bfloat16",
	tpb.DataType_DT_QINT16:        "qint16",
	tpb.DataType_DT_QUINT16:       "quint16",
	tpb.DataType_DT_UINT16:        "uint16",
	tpb.DataType_DT_COMPLEX128:    "complex128",
	tpb.DataType_DT_HALF:          "float16",
	tpb.DataType_DT_RESOURCE:      "resource",
	tpb.DataType_DT_VARIANT:       "variant",
	tpb.DataType_DT_UINT32:        "uint32",
	tpb.DataType_DT_UINT64:        "uint64",
	tpb.DataType_DT_FLOAT8_E5M2:   "float8_e5m2",
	tpb.DataType_DT_FLOAT8_E4M3FN: "float8_e4m3fn",
	tpb.DataType_DT_INT4:          "int4",
	tpb.DataType_DT_UINT4:         "uint4",
}

// tfTypeNames are TensorFlow's own C++ spellings (DataTypeString in
// tensorflow/core/framework/types.cc) that differ from dtypeNames; OpDef
// spec strings ("T: {half, float}") and users coming from C++ use them.
var tfTypeNames = map[string]tpb.DataType{
	"float":   tpb.DataType_DT_FLOAT,
	"double":  tpb.DataType_DT_DOUBLE,
	"half":    tpb.DataType_DT_HALF,
	"tstring": tpb.DataType_DT_STRING,
}

var dtypeByName = func() map[string]tpb.DataType {
	m := make(map[string]tpb.DataType, 2*len(dtypeNames)+len(tfTypeNames))
	for t, n := range dtypeNames {
		m[n] = t
		if t != tpb.DataType_DT_INVALID {
			m[n+"_ref"] = t + refOffset
		}
	}
	for n, t := range tfTypeNames {
		m[n] = t
		m[n+"_ref"] = t + refOffset
	}
	return m
}()

// IsRef reports whether t is a reference dtype (DT_FLOAT_REF, ...), the
// TF1 variable types.
func IsRef(t tpb.DataType) bool { return t > refOffset }

// Ref is the reference dtype of t (DT_FLOAT → DT_FLOAT_REF); a reference
// dtype is its own.
func Ref(t tpb.DataType) tpb.DataType {
	if IsRef(t) {
		return t
	}
	return t + refOffset
}

// Name is the stable lowercase name of t ("float32", "float16",
// "int32_ref"); an enum value TensorFlow does not define is "dtype(N)".
func Name(t tpb.DataType) string {
	if IsRef(t) {
		if n, ok := dtypeNames[t-refOffset]; ok && t-refOffset != tpb.DataType_DT_INVALID {
			return n + "_ref"
		}
	} else if n, ok := dtypeNames[t]; ok {
		return n
	}
	return "dtype(" + strconv.Itoa(int(t)) + ")"
}

// Parse accepts a Name name ("float32", "float32_ref"), the proto
// enum name ("DT_FLOAT", "DT_FLOAT_REF") or TensorFlow's C++ name ("float",
// "half", "double"), case-insensitively. "invalid" and DT_INVALID are not
// accepted: nobody means them.
func Parse(s string) (tpb.DataType, bool) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "DT_") || strings.HasPrefix(s, "dt_") {
		v, ok := tpb.DataType_value[strings.ToUpper(s)]
		if !ok || v == 0 {
			return 0, false
		}
		return tpb.DataType(v), true
	}
	t, ok := dtypeByName[strings.ToLower(s)]
	if !ok || t == tpb.DataType_DT_INVALID {
		return 0, false
	}
	return t, true
}
