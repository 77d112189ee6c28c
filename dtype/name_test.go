package dtype

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

func TestName(t *testing.T) {
	tests := []struct {
		dt   tpb.DataType
		want string
	}{
		{tpb.DataType_DT_FLOAT, "float32"},
		{tpb.DataType_DT_DOUBLE, "float64"},
		{tpb.DataType_DT_HALF, "float16"},
		{tpb.DataType_DT_BFLOAT16, "bfloat16"},
		{tpb.DataType_DT_INT8, "int8"},
		{tpb.DataType_DT_UINT8, "uint8"},
		{tpb.DataType_DT_INT16, "int16"},
		{tpb.DataType_DT_UINT16, "uint16"},
		{tpb.DataType_DT_INT32, "int32"},
		{tpb.DataType_DT_INT64, "int64"},
		{tpb.DataType_DT_UINT32, "uint32"},
		{tpb.DataType_DT_UINT64, "uint64"},
		{tpb.DataType_DT_BOOL, "bool"},
		{tpb.DataType_DT_STRING, "string"},
		{tpb.DataType_DT_RESOURCE, "resource"},
		{tpb.DataType_DT_VARIANT, "variant"},
		{tpb.DataType_DT_COMPLEX64, "complex64"},
		{tpb.DataType_DT_COMPLEX128, "complex128"},
		{tpb.DataType_DT_QINT8, "qint8"},
		{tpb.DataType_DT_QUINT8, "quint8"},
		{tpb.DataType_DT_QINT32, "qint32"},
		{tpb.DataType_DT_FLOAT_REF, "float32_ref"},
		{tpb.DataType_DT_HALF_REF, "float16_ref"},
		{tpb.DataType_DT_INVALID, "invalid"},
		{tpb.DataType(27), "dtype(27)"},
		{tpb.DataType(100), "dtype(100)"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			assert.Equal(t, tt.want, Name(tt.dt))
		})
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		in     string
		want   tpb.DataType
		wantOK bool
	}{
		{"float32", tpb.DataType_DT_FLOAT, true},
		{"DT_FLOAT", tpb.DataType_DT_FLOAT, true},
		{"dt_half", tpb.DataType_DT_HALF, true},
		{"float", tpb.DataType_DT_FLOAT, true},
		{"half", tpb.DataType_DT_HALF, true},
		{"Float16", tpb.DataType_DT_HALF, true},
		{"float32_ref", tpb.DataType_DT_FLOAT_REF, true},
		{"DT_INT32_REF", tpb.DataType_DT_INT32_REF, true},
		{"resource", tpb.DataType_DT_RESOURCE, true},
		{"invalid", 0, false},
		{"DT_INVALID", 0, false},
		{"float33", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := Parse(tt.in)
			assert.Equal(t, tt.wantOK, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

// Every name Name produces must parse back to the same dtype.
func TestNameRoundTrip(t *testing.T) {
	for v := range tpb.DataType_name {
		dt := tpb.DataType(v)
		if dt == tpb.DataType_DT_INVALID {
			continue
		}
		got, ok := Parse(Name(dt))
		require.True(t, ok, "%v", dt)
		assert.Equal(t, dt, got)
	}
}
