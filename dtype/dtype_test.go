package dtype

import (
	"testing"

	"github.com/stretchr/testify/assert"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

func TestSize(t *testing.T) {
	for dt, want := range map[tpb.DataType]int{
		tpb.DataType_DT_FLOAT: 4, tpb.DataType_DT_FLOAT_REF: 4, tpb.DataType_DT_HALF: 2,
		tpb.DataType_DT_BFLOAT16: 2, tpb.DataType_DT_INT64: 8, tpb.DataType_DT_COMPLEX128: 16,
		tpb.DataType_DT_BOOL: 1, tpb.DataType_DT_STRING: 0, tpb.DataType_DT_RESOURCE: 0,
		tpb.DataType_DT_VARIANT: 0, tpb.DataType_DT_INVALID: 0,
	} {
		assert.Equal(t, want, Size(dt), dt.String())
	}
	assert.Equal(t, tpb.DataType_DT_INT32, Base(tpb.DataType_DT_INT32_REF))
	assert.Equal(t, tpb.DataType_DT_INT32_REF, Ref(tpb.DataType_DT_INT32))
	assert.Equal(t, tpb.DataType_DT_INT32_REF, Ref(tpb.DataType_DT_INT32_REF))
}

func TestIsFloat(t *testing.T) {
	for dt, want := range map[tpb.DataType]bool{
		tpb.DataType_DT_HALF: true, tpb.DataType_DT_BFLOAT16: true, tpb.DataType_DT_FLOAT: true,
		tpb.DataType_DT_DOUBLE: true, tpb.DataType_DT_FLOAT_REF: true, tpb.DataType_DT_INT32: false,
		tpb.DataType_DT_COMPLEX64: false, tpb.DataType_DT_BOOL: false, tpb.DataType_DT_STRING: false,
	} {
		assert.Equal(t, want, IsFloat(dt), dt.String())
	}
}
