package precision

import (
	"math"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/kernels"
)

// NaNULP is the ULP distance reported when exactly one of two values is NaN:
// no finite number of steps separates them.
const NaNULP = math.MaxUint64

// ULPDistance is the number of representable values of the storage format
// between a and b after each is rounded (to nearest even) to that format:
// 0 when they round to the same value, 1 for neighbours. ±0 are the same
// value; ±Inf are one step beyond the largest finite value. Two NaNs are 0
// apart; one NaN gives NaNULP. storage is DT_FLOAT, DT_HALF or DT_BFLOAT16;
// any other dtype is measured as float64.
func ULPDistance(a, b float64, storage tpb.DataType) uint64 {
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an && bn:
		return 0
	case an || bn:
		return NaNULP
	}
	var ka, kb int64
	switch storage {
	case tpb.DataType_DT_FLOAT:
		ka, kb = ordered32(math.Float32bits(float32(a))), ordered32(math.Float32bits(float32(b)))
	case tpb.DataType_DT_HALF:
		ka = ordered16(uint16(kernels.Float16FromFloat32(float32(a))))
		kb = ordered16(uint16(kernels.Float16FromFloat32(float32(b))))
	case tpb.DataType_DT_BFLOAT16:
		ka = ordered16(uint16(kernels.BFloat16FromFloat32(float32(a))))
		kb = ordered16(uint16(kernels.BFloat16FromFloat32(float32(b))))
	default:
		x, y := ordered64(math.Float64bits(a)), ordered64(math.Float64bits(b))
		if x < y {
			x, y = y, x
		}
		// The difference of two int64s may overflow int64 but not uint64.
		return uint64(x) - uint64(y)
	}
	if ka < kb {
		ka, kb = kb, ka
	}
	return uint64(ka - kb)
}

// ordered16 maps the bits of a sign-magnitude 16-bit float to an integer
// that grows with the value (−0 and +0 both map to 0).
func ordered16(h uint16) int64 {
	if h&0x8000 != 0 {
		return -int64(h & 0x7fff)
	}
	return int64(h)
}

func ordered32(b uint32) int64 {
	if b&0x80000000 != 0 {
		return -int64(b & 0x7fffffff)
	}
	return int64(b)
}

func ordered64(b uint64) int64 {
	if b&(1<<63) != 0 {
		return -int64(b &^ (1 << 63))
	}
	return int64(b)
}
