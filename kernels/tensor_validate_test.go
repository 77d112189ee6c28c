package kernels

import (
	"fmt"
	"testing"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// TestValidateDataTypes holds Validate's type check, a table lookup, to
// makeData's slice types for every dtype and every Go data type a tensor
// can hold: each pair passes exactly when makeData gives that type.
func TestValidateDataTypes(t *testing.T) {
	datas := []any{
		[]float32{0}, []float64{0}, []Float16{0}, []BFloat16{0}, []int8{0}, []uint8{0}, []int16{0},
		[]uint16{0}, []int32{0}, []int64{0}, []uint32{0}, []uint64{0}, []bool{false}, []complex64{0},
		[]complex128{0}, [][]byte{nil}, []*Resource{nil}, []any{nil}, []string{""}, []int{0}, nil,
	}
	for v := range tpb.DataType_name {
		dt := tpb.DataType(v)
		want, werr := makeData(dt, 0)
		for _, d := range datas {
			err := (&Tensor{DType: dt, Shape: []int{1}, Data: d}).Validate()
			ok := werr == nil && fmt.Sprintf("%T", want) == fmt.Sprintf("%T", d)
			if (err == nil) != ok {
				t.Errorf("%s holding %T: Validate gives %v, makeData's type %T (%v)", dt, d, err, want, werr)
			}
			if werr != nil && (err == nil || err.Error() != werr.Error()) {
				t.Errorf("%s: Validate gives %v, want makeData's error %v", dt, err, werr)
			}
		}
	}
	if err := (&Tensor{DType: tpb.DataType(-1), Shape: []int{}, Data: []float32{0}}).Validate(); err == nil {
		t.Errorf("dtype -1: Validate gives no error")
	}
}
