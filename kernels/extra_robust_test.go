package kernels

import (
	"math/rand"
	"strings"
	"testing"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// TestExtraKernelsNeverPanic feeds the extra kernels random small inputs of
// random dtypes, shapes and index values: they may refuse them, but must
// return an error rather than panic.
func TestExtraKernelsNeverPanic(t *testing.T) {
	ops := map[string]int{
		"SpaceToBatchND": 3, "BatchToSpaceND": 3, "SegmentSum": 2, "SegmentMax": 2, "SegmentMean": 2,
		"UnsortedSegmentSum": 3, "UnsortedSegmentMin": 3, "SparseSegmentSum": 3, "SparseSegmentSqrtN": 3,
		"SparseSegmentMeanWithNumSegments": 4, "MatrixBandPart": 3, "MatrixDiagPartV3": 3, "MatrixDiagV3": 5,
		"MatrixSetDiagV3": 3, "MatrixDiag": 1, "L2Loss": 1, "SparseToDense": 4, "HistogramFixedWidth": 3,
		"CropAndResize": 4, "Substr": 3, "StringJoin": 2, "StatelessRandomUniform": 2,
	}
	attrs := xattrs("align", "RIGHT_LEFT", "dtype", tpb.DataType_DT_INT32, "method", "bilinear",
		"extrapolation_value", 0.0, "unit", "BYTE", "separator", ",", "validate_indices", true)
	r := rand.New(rand.NewSource(11))
	dts := []tpb.DataType{tpb.DataType_DT_FLOAT, tpb.DataType_DT_INT32, tpb.DataType_DT_INT64,
		tpb.DataType_DT_HALF, tpb.DataType_DT_BOOL, tpb.DataType_DT_STRING}
	randTensor := func() *Tensor {
		rank := r.Intn(4)
		shape := make([]int, rank)
		for i := range shape {
			shape[i] = r.Intn(4)
		}
		x, _ := NewTensor(dts[r.Intn(len(dts))], shape)
		switch d := x.Data.(type) {
		case []int32:
			for i := range d {
				d[i] = int32(r.Intn(9) - 3)
			}
		case []int64:
			for i := range d {
				d[i] = int64(r.Intn(9) - 3)
			}
		case []float32:
			for i := range d {
				d[i] = r.Float32()*4 - 1
			}
		case [][]byte:
			for i := range d {
				d[i] = []byte(strings.Repeat("x", r.Intn(3)))
			}
		}
		return x
	}
	for op, n := range ops {
		for iter := 0; iter < 2000; iter++ {
			in := make([]*Tensor, n)
			for i := range in {
				in[i] = randTensor()
			}
			if _, err := xRunSafe(op, attrs, in...); err != nil && strings.HasPrefix(err.Error(), "PANIC") {
				t.Fatalf("%s panicked on %v: %v", op, describe(in), err)
			}
		}
	}
}

func describe(in []*Tensor) []string {
	var s []string
	for _, x := range in {
		s = append(s, x.DType.String()+dimsString(x.Shape))
	}
	return s
}
