package kernels

import (
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// A float → integer cast out of the target's range (NaN included) is
// undefined in C++, and TensorFlow's CPU Cast is a plain static_cast in
// Eigen's scalar loop (cast_op.h: in.template cast<OUT>(); Eigen's
// cast_impl is static_cast, and no AVX pcast exists for the narrow integer
// types, so Eigen evaluates it element by element). What x86-64 TensorFlow
// 2.15 gives is what clang made of that loop: LLVM's loop vectoriser turns it
// into a main vector loop of M elements a step, an epilogue vector loop of E
// elements a step, and a scalar remainder, and the vector and scalar code
// treat out-of-range values differently:
//
//   - vector: cvttps2dq/cvttpd2dq (INT32_MIN for NaN and out of range), then
//     the saturating packs: int8 and int16 clamp to their range (packssdw,
//     packsswb), uint16 clamps to [0, 65535] (packusdw), uint8 clamps to
//     [0, 255] (packssdw, packuswb), except from float64, whose uint8 is
//     packusdw then packuswb, so that 32768 and above read as negative int16
//     and give 0; uint32 is small | (big & small>>31) with small =
//     cvtt32(x) and big = cvtt32(x - 2^31), so NaN and out of range give
//     2^31;
//   - scalar: cvttss2si/cvttsd2si into a 32-bit register (64-bit for uint32)
//     and the low bits kept, so NaN gives 0;
//   - uint64 everywhere: small | (big & small>>63) with 64-bit conversions
//     (2^63 for NaN and out of range); int32 and int64 everywhere: the
//     conversion's integer indefinite.
//
// castLoops holds M and E per source and target, read from TensorFlow's
// results on 31 lengths from 1 to 1000 filled with out-of-range values, and
// held by the cast goldens' position sweep (tools/tf/kernel_goldens.py, the
// cast family: lengths 7, 13, 20, 45 and 100, which tell every loop shape
// here apart). Eigen's thread pool evaluates a
// tensor in one block until its cost model splits it (around 10^5 elements
// for a cast), and each block has its own remainder; the block boundaries
// of a split depend on the machine's core count, so tfscan models one block
// for every size and says so in docs/conformance.md.
type castLoop struct{ main, epi int }

var castLoops = map[[2]tpb.DataType]castLoop{}

func init() {
	h, bf, f, d := tpb.DataType_DT_HALF, tpb.DataType_DT_BFLOAT16, tpb.DataType_DT_FLOAT, tpb.DataType_DT_DOUBLE
	i8, u8, i16, u16, u32 := tpb.DataType_DT_INT8, tpb.DataType_DT_UINT8, tpb.DataType_DT_INT16, tpb.DataType_DT_UINT16, tpb.DataType_DT_UINT32
	for _, dst := range []tpb.DataType{i8, u8, i16, u16, u32} {
		castLoops[[2]tpb.DataType{h, dst}] = castLoop{32, 8}
		castLoops[[2]tpb.DataType{bf, dst}] = castLoop{32, 8}
		castLoops[[2]tpb.DataType{f, dst}] = castLoop{32, 0}
		castLoops[[2]tpb.DataType{d, dst}] = castLoop{16, 0}
	}
	castLoops[[2]tpb.DataType{h, i16}] = castLoop{32, 4}
	castLoops[[2]tpb.DataType{h, u16}] = castLoop{32, 4}
	castLoops[[2]tpb.DataType{f, u32}] = castLoop{32, 8}
	castLoops[[2]tpb.DataType{d, u32}] = castLoop{32, 8}
}

// vectorized returns how many leading elements of n the vector loops
// convert.
func (l castLoop) vectorized(n int) int {
	v := n / l.main * l.main
	if l.epi > 0 {
		v += (n - v) / l.epi * l.epi
	}
	return v
}

func sat32(v, lo, hi int32) int32 { return min(max(v, lo), hi) }

// vectorU32 is LLVM's v8f32/v4f64 → v8i32 unsigned conversion without
// AVX-512.
func vectorU32(x float64) uint32 {
	small, big := cvtt32(x), cvtt32(x-two31)
	return uint32(small | (big & (small >> 31)))
}

// castFloatToInt converts float values (held exactly in float64) from src
// to an integer dst as x86-64 TensorFlow does, by position; ok is false for
// a dst that is not an integer type.
func castFloatToInt(f []float64, src, dst tpb.DataType) (any, bool) {
	l, positional := castLoops[[2]tpb.DataType{src, dst}]
	nv := 0
	if positional {
		nv = l.vectorized(len(f))
	}
	switch dst {
	case tpb.DataType_DT_INT8:
		return byPosition(f, nv, vecInt8, scalarInt8), true
	case tpb.DataType_DT_INT16:
		return byPosition(f, nv, vecInt16, scalarInt16), true
	case tpb.DataType_DT_UINT16:
		return byPosition(f, nv, vecUint16, scalarUint16), true
	case tpb.DataType_DT_UINT8:
		vec := vecUint8
		if src == tpb.DataType_DT_DOUBLE {
			vec = vecUint8ViaUint16
		}
		return byPosition(f, nv, vec, scalarUint8), true
	case tpb.DataType_DT_UINT32:
		return byPosition(f, nv, vectorU32, scalarUint32), true
	case tpb.DataType_DT_INT32:
		return mapTo(f, cvtt32), true
	case tpb.DataType_DT_INT64:
		return mapTo(f, cvtt64), true
	case tpb.DataType_DT_UINT64:
		return mapTo(f, cvttU64), true
	}
	return nil, false
}

// The conversions of one element by the vector loops (saturating packs) and
// by the scalar remainder (a 32-bit or 64-bit conversion's low bits).
func vecInt8(v float64) int8     { return int8(sat32(cvtt32(v), -128, 127)) }
func vecInt16(v float64) int16   { return int16(sat32(cvtt32(v), -32768, 32767)) }
func vecUint16(v float64) uint16 { return uint16(sat32(cvtt32(v), 0, 65535)) }
func vecUint8(v float64) uint8   { return uint8(sat32(cvtt32(v), 0, 255)) }

// vecUint8ViaUint16 is float64 → uint8 packed through uint16, so that 32768
// and above read as negative int16 and give 0.
func vecUint8ViaUint16(v float64) uint8 {
	return uint8(sat32(int32(int16(sat32(cvtt32(v), 0, 65535))), 0, 255))
}

func scalarInt8(v float64) int8     { return int8(cvtt32(v)) }
func scalarInt16(v float64) int16   { return int16(cvtt32(v)) }
func scalarUint16(v float64) uint16 { return uint16(cvtt32(v)) }
func scalarUint8(v float64) uint8   { return uint8(cvtt32(v)) }
func scalarUint32(v float64) uint32 { return uint32(cvtt64(v)) }

// byPosition converts the first nv elements with vec and the rest with
// scalar.
func byPosition[R any](f []float64, nv int, vec, scalar func(float64) R) []R {
	out := make([]R, len(f))
	mapUnary(f[:nv], out[:nv], 1, vec)
	mapUnary(f[nv:], out[nv:], 1, scalar)
	return out
}

// halfSaturated converts the first nv elements in steps of 8, lanes 0 to
// 3 with scalar and 4 to 7 with sat, and the rest with scalar.
func halfSaturated[R any](f []float64, nv int, sat, scalar func(float64) R) []R {
	out := make([]R, len(f))
	for i, v := range f {
		if i < nv && i%8 >= 4 {
			out[i] = sat(v)
		} else {
			out[i] = scalar(v)
		}
	}
	return out
}

// castComplexToInt converts the real parts of a complex tensor (held
// exactly in float64) to an integer dst as x86-64 TensorFlow does. Its loops
// over std::complex elements are vectorised otherwise than the float ones
// (read from TensorFlow's results on lengths 1 to 1000 filled with
// out-of-range values): complex64 → int8, int16, uint8 and uint16 and
// complex128 → uint32 are not vectorised (the scalar rule everywhere);
// complex64 → uint32 runs 8 a step with no epilogue; complex128 → int8 and
// uint8 run 16 a step from 17 elements on, and always leave at least one
// element to the scalar remainder; complex128 → int16 and uint16 run 8 a
// step from 17 elements on with the same remainder, and in each step the
// first four lanes keep cvttsd2si's low 16 bits (as the scalar rule) while
// the other four saturate the int32 to the 16-bit range (packssdw for
// int16, packusdw for uint16; the order read from TensorFlow on lengths
// 16 to 49 with distinct values per lane).
func castComplexToInt(f []float64, src, dst tpb.DataType) (any, bool) {
	part := tpb.DataType_DT_FLOAT
	if src == tpb.DataType_DT_COMPLEX128 {
		part = tpb.DataType_DT_DOUBLE
	}
	n := len(f)
	nv := 0
	switch {
	case src == tpb.DataType_DT_COMPLEX64 && dst == tpb.DataType_DT_UINT32:
		nv = n / 8 * 8
	case src == tpb.DataType_DT_COMPLEX128 && (dst == tpb.DataType_DT_INT8 || dst == tpb.DataType_DT_UINT8):
		if n >= 17 {
			nv = (n - 1) / 16 * 16
		}
	case src == tpb.DataType_DT_COMPLEX128 && (dst == tpb.DataType_DT_INT16 || dst == tpb.DataType_DT_UINT16):
		if n >= 17 {
			nv = (n - 1) / 8 * 8
		}
	}
	switch dst {
	case tpb.DataType_DT_INT8:
		return byPosition(f, nv, vecInt8, scalarInt8), true
	case tpb.DataType_DT_INT16:
		return halfSaturated(f, nv, vecInt16, scalarInt16), true
	case tpb.DataType_DT_UINT16:
		return halfSaturated(f, nv, vecUint16, scalarUint16), true
	case tpb.DataType_DT_UINT8:
		return byPosition(f, nv, vecUint8ViaUint16, scalarUint8), true
	case tpb.DataType_DT_UINT32:
		return byPosition(f, nv, vectorU32, scalarUint32), true
	}
	return castFloatToInt(f, part, dst)
}
