package tfgolden

import (
	"math"
	"reflect"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/kernels"
)

// TensorFlow runs its CPU kernels with denormals flushed: every executor
// thread and eager kernel call sets the SSE FTZ and DAZ bits
// (tensorflow/core/platform/denormal.cc, port::ScopedFlushDenormal, set in
// common_runtime/executor.cc and the eager kernel execution), so a
// subnormal float32 or float64 input reads as a zero of its sign and a
// subnormal result is written as one. bfloat16 values are float32s there,
// so the same holds for them; a float16 subnormal is a normal float32 and
// is untouched. tfscan's kernels keep IEEE subnormals (docs/conformance.md
// lists it as a difference of the executor); to compare the kernels'
// arithmetic, Check flushes tfscan's inputs and results the same way.

// movesBits reports whether TensorFlow's kernel for c moves its float
// inputs' bits without arithmetic (sign flips and masks, copies, casts to
// the same type), so that FTZ and DAZ never touch them: Abs, Neg and Sign
// of a subnormal give the subnormal's bits, so does Bitcast (a memcpy of
// the buffer, whose bits may spell a subnormal), and so do the array ops.
func movesBits(c *Case) bool {
	switch c.Op {
	case "Abs", "Neg", "OnesLike", "ZerosLike", "Select", "SelectV2", "Bitcast":
		return true
	case "Cast": // a float to float cast; a cast to bool or an integer compares
		dst := c.Attrs["DstT"].GetType()
		if src := c.Attrs["SrcT"].GetType(); isComplexDT(src) || isComplexDT(dst) {
			// To or from complex: a copy when the part does not narrow
			// (float64 → complex128, complex128 → float64); a narrowing
			// double → float conversion is arithmetic, flushed under FTZ.
			return partBits(dst) >= partBits(src)
		}
		return dst == tpb.DataType_DT_FLOAT || dst == tpb.DataType_DT_DOUBLE || dst == tpb.DataType_DT_HALF || dst == tpb.DataType_DT_BFLOAT16
	}
	return arrayOps[c.Op]
}

func isComplexDT(dt tpb.DataType) bool {
	return dt == tpb.DataType_DT_COMPLEX64 || dt == tpb.DataType_DT_COMPLEX128
}

// partBits is the width of a float dtype or of a complex dtype's parts; 0
// for the others.
func partBits(dt tpb.DataType) int {
	switch dt {
	case tpb.DataType_DT_HALF, tpb.DataType_DT_BFLOAT16:
		return 16
	case tpb.DataType_DT_FLOAT, tpb.DataType_DT_COMPLEX64:
		return 32
	case tpb.DataType_DT_DOUBLE, tpb.DataType_DT_COMPLEX128:
		return 64
	}
	return 0
}

// arrayOps are the ops of the array family (kernel_goldens.py), which copy
// elements.
var arrayOps = map[string]bool{}

func init() {
	for _, op := range []string{"Transpose", "Reshape", "GatherV2", "GatherNd", "Pad", "PadV2", "MirrorPad", "Slice",
		"StridedSlice", "Tile", "ReverseV2", "Pack", "ConcatV2", "ExpandDims", "Squeeze", "Fill", "BroadcastTo",
		"Unpack", "Split", "SplitV", "OneHot", "TopKV2", "Unique", "DepthToSpace", "SpaceToDepth", "Where"} {
		arrayOps[op] = true
	}
}

// flushInputs returns the inputs with float32, float64 and bfloat16
// subnormals (and the parts of complex64 and complex128 values) replaced by signed zeros (DAZ); tensors without any are
// returned as they are.
func flushInputs(in []*kernels.Tensor) []*kernels.Tensor {
	out := make([]*kernels.Tensor, len(in))
	for i, t := range in {
		out[i] = flushTensor(t)
	}
	return out
}

// flushTensor returns t with subnormals flushed to signed zeros (FTZ), a
// copy only when it has any.
func flushTensor(t *kernels.Tensor) *kernels.Tensor {
	if t == nil {
		return nil
	}
	switch d := t.Data.(type) {
	case []float32:
		return flushed(t, d, flush32)
	case []float64:
		return flushed(t, d, flush64)
	case []complex64:
		return flushed(t, d, func(v complex64) (complex64, bool) {
			re, a := flush32(real(v))
			im, b := flush32(imag(v))
			return complex(re, im), a || b
		})
	case []complex128:
		return flushed(t, d, func(v complex128) (complex128, bool) {
			re, a := flush64(real(v))
			im, b := flush64(imag(v))
			return complex(re, im), a || b
		})
	case []kernels.BFloat16:
		return flushed(t, d, func(v kernels.BFloat16) (kernels.BFloat16, bool) {
			if v&0x7f80 == 0 && v&0x7f != 0 {
				return v & 0x8000, true
			}
			return v, false
		})
	}
	return t
}

// flush32 and flush64 flush one subnormal to a zero of its sign.
func flush32(v float32) (float32, bool) {
	if v != 0 && math.Abs(float64(v)) < 0x1p-126 {
		return float32(math.Copysign(0, float64(v))), true
	}
	return v, false
}

func flush64(v float64) (float64, bool) {
	if v != 0 && math.Abs(v) < 0x1p-1022 {
		return math.Copysign(0, v), true
	}
	return v, false
}

func flushed[T any](t *kernels.Tensor, d []T, f func(T) (T, bool)) *kernels.Tensor {
	var out []T
	for i, v := range d {
		if w, ok := f(v); ok {
			if out == nil {
				out = append([]T(nil), d...)
			}
			out[i] = w
		}
	}
	if out == nil {
		return t
	}
	return &kernels.Tensor{DType: t.DType, Shape: t.Shape, Data: out}
}

// hasSubnormal reports whether a float32, float64 or bfloat16 input holds
// a subnormal.
func hasSubnormal(in []*kernels.Tensor) bool {
	for _, t := range in {
		if flushTensor(t) != t {
			return true
		}
	}
	return false
}

// subnormalAt marks the elements of t that are subnormal.
func subnormalAt(t *kernels.Tensor) []bool {
	f := flushTensor(t)
	m := make([]bool, t.NumElements())
	if f == t {
		return m
	}
	a, b := reflect.ValueOf(t.Data), reflect.ValueOf(f.Data)
	for i := range m {
		m[i] = a.Index(i).Interface() != b.Index(i).Interface()
	}
	return m
}

// maskAt returns got with the marked elements replaced by want's.
func maskAt(got, want *kernels.Tensor, mark []bool) *kernels.Tensor {
	if got.DType != want.DType || reflect.TypeOf(got.Data) != reflect.TypeOf(want.Data) {
		return got
	}
	g := reflect.ValueOf(got.Data)
	out := reflect.MakeSlice(g.Type(), g.Len(), g.Len())
	reflect.Copy(out, g)
	w := reflect.ValueOf(want.Data)
	for i, m := range mark {
		if m && i < w.Len() {
			out.Index(i).Set(w.Index(i))
		}
	}
	return &kernels.Tensor{DType: got.DType, Shape: got.Shape, Data: out.Interface()}
}
