package executor

import (
	"fmt"
	"math"
	"unicode/utf16"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/kernels"
	"github.com/tfscan/tfscan/savedmodel"
)

// Seeded inputs, identical to the TF.js numeric oracle's
// (../shared/oracle/run_model.js, synthInput) so that tfscan and the oracle
// can be fed the same numbers: each input draws from mulberry32 seeded with
// FNV-1a(name) XOR seed, where name is the input's graph node name (the
// tensor name without ":0", which is what TF.js reports as the input's
// name). Floats are uniform in [0, 1), integers uniform in 0..255, bools
// true with probability 1/2.

// SeededFeeds returns the oracle's seeded value of each input (see
// Inputs), keyed by tensor name; unknown dimensions resolve as InputShape
// does with dim.
func SeededFeeds(inputs []*savedmodel.TensorInfo, seed uint32, dim int) (map[string]*kernels.Tensor, error) {
	feeds := make(map[string]*kernels.Tensor, len(inputs))
	for _, in := range inputs {
		node, _, err := ParseTensorName(in.Name)
		if err != nil {
			return nil, err
		}
		t, err := SeededInput(node, seed, in.DType, InputShape(in.Shape, in.UnknownRank, dim))
		if err != nil {
			return nil, err
		}
		feeds[in.Name] = t
	}
	return feeds, nil
}

// InputShape resolves a declared shape the oracle's way: an unknown first
// dimension becomes 1 (the batch), other unknown dimensions become dim, an
// unknown rank (nil shape with unknownRank) a scalar.
func InputShape(declared []int64, unknownRank bool, dim int) []int {
	if unknownRank {
		return []int{}
	}
	shape := make([]int, len(declared))
	for i, d := range declared {
		switch {
		case d >= 0:
			shape[i] = int(d)
		case i == 0:
			shape[i] = 1
		default:
			shape[i] = dim
		}
	}
	return shape
}

// SeededInput returns the oracle's input for name: dtype dt, the given
// shape, values from mulberry32(FNV-1a(name) ^ seed). Float types hold
// float32 draws (converted to the dtype); integer types draws in 0..255.
func SeededInput(name string, seed uint32, dt tpb.DataType, shape []int) (*kernels.Tensor, error) {
	t, err := kernels.NewTensor(dt, shape)
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", name, err)
	}
	rnd := mulberry32(fnv1a(name) ^ seed)
	switch d := t.Data.(type) {
	case []float32:
		for i := range d {
			d[i] = float32(rnd())
		}
	case []float64:
		for i := range d {
			d[i] = float64(float32(rnd()))
		}
	case []kernels.Float16:
		for i := range d {
			d[i] = kernels.Float16FromFloat32(float32(rnd()))
		}
	case []kernels.BFloat16:
		for i := range d {
			d[i] = kernels.BFloat16FromFloat32(float32(rnd()))
		}
	case []int32:
		for i := range d {
			d[i] = int32(math.Floor(256 * rnd()))
		}
	case []int64:
		for i := range d {
			d[i] = int64(math.Floor(256 * rnd()))
		}
	case []uint8:
		for i := range d {
			d[i] = uint8(math.Floor(256 * rnd()))
		}
	case []int8:
		for i := range d {
			d[i] = int8(int(math.Floor(256*rnd())) - 0) // 0..255 wraps as int8, like a cast
		}
	case []int16:
		for i := range d {
			d[i] = int16(math.Floor(256 * rnd()))
		}
	case []uint16:
		for i := range d {
			d[i] = uint16(math.Floor(256 * rnd()))
		}
	case []uint32:
		for i := range d {
			d[i] = uint32(math.Floor(256 * rnd()))
		}
	case []uint64:
		for i := range d {
			d[i] = uint64(math.Floor(256 * rnd()))
		}
	case []bool:
		for i := range d {
			d[i] = rnd() < 0.5
		}
	default:
		return nil, fmt.Errorf("input %s: cannot make seeded values of dtype %s", name, dtName(dt))
	}
	return t, nil
}

// fnv1a hashes the UTF-16 code units of s, as the oracle's JavaScript
// (String.charCodeAt) does.
func fnv1a(s string) uint32 {
	h := uint32(0x811c9dc5)
	for _, c := range utf16.Encode([]rune(s)) {
		h ^= uint32(c)
		h *= 0x01000193
	}
	return h
}

// mulberry32 is the oracle's PRNG: uniform float64 values in [0, 1) with 32
// random bits.
func mulberry32(a uint32) func() float64 {
	return func() float64 {
		a += 0x6D2B79F5
		t := a
		t = (t ^ t>>15) * (t | 1)
		t ^= t + (t^t>>7)*(t|61)
		return float64(t^t>>14) / 4294967296
	}
}
