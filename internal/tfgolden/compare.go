// Package tfgolden holds tfscan's kernels to TensorFlow's: the goldens
// tools/tf/kernel_goldens.py writes from TensorFlow's CPU kernels
// (kernels/testdata/tf/), one case run on tfscan's kernel, and the
// comparison in ULPs that the kernel tests and the conformance tests share.
package tfgolden

import (
	"bytes"
	"fmt"
	"math"
	"math/cmplx"
	"reflect"
	"slices"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/dtype"
	"github.com/tfscan/tfscan/kernels"
)

// How tfscan's numbers are held against TensorFlow's: a float is measured
// in units in the last place of its own dtype (the distance between the two
// values' positions in the ordered list of that dtype's values), so that a
// tolerance says how many roundings apart the two kernels may end, whatever
// the magnitude. NaN equals NaN (any payload), -0.0 and +0.0 are one ULP
// apart, and ±Inf only equals itself. A complex value's real and imaginary
// parts are measured each as a float of the part's dtype. Integers, bools
// and strings must be equal.

// Tol is an allowed difference: ULPs of the dtype, or an absolute error
// (for values that cancel towards zero, where ULPs of a tiny result say
// nothing about the inputs' rounding). A value passes when it is within
// either. The zero Tol asks for bit-identical results.
type Tol struct {
	ULP int64
	Abs float64
	// Mod, for complex values, allows a part to differ by Mod·ε·|w| (ε the
	// part dtype's epsilon, |w| the modulus of TensorFlow's value, so about
	// Mod ULPs of |w|): a normwise bound, for functions
	// whose error is relative to |f(z)| rather than to each part, so that
	// a part much smaller than the other (cancelling) is not held to its
	// own ULPs.
	Mod int64
}

func (t Tol) String() string {
	var s string
	switch {
	case t.ULP == 0 && t.Abs == 0:
		s = "bit-identical"
	case t.Abs == 0:
		s = fmt.Sprintf("≤ %d ULP", t.ULP)
	case t.ULP == 0:
		s = fmt.Sprintf("abs ≤ %g", t.Abs)
	default:
		s = fmt.Sprintf("≤ %d ULP or abs ≤ %g", t.ULP, t.Abs)
	}
	if t.Mod > 0 {
		s += fmt.Sprintf(" or ≤ %d ULP of |z|", t.Mod)
	}
	return s
}

// Diff is how far one tensor is from TensorFlow's.
type Diff struct {
	N         int     // values compared
	Identical bool    // every value bit for bit (NaN payloads aside)
	MaxULP    int64   // largest ULP distance (floats)
	MaxAbs    float64 // largest absolute difference (floats)
	Bad       int     // values outside the tolerance
	First     string  // the first value outside it, for the message
}

// Compare measures got against TensorFlow's want under t. A dtype
// or shape difference is an error.
func Compare(got, want *kernels.Tensor, t Tol) (Diff, error) {
	var d Diff
	if got == nil {
		return d, fmt.Errorf("no result")
	}
	if got.DType != want.DType {
		return d, fmt.Errorf("dtype %s, TensorFlow's is %s", dtype.Name(got.DType), dtype.Name(want.DType))
	}
	if !slices.Equal(got.Shape, want.Shape) {
		return d, fmt.Errorf("shape %v, TensorFlow's is %v", got.Shape, want.Shape)
	}
	d.N = want.NumElements()
	d.Identical = true
	switch w := want.Data.(type) {
	case []float32:
		g := got.Data.([]float32)
		for i := range w {
			d.add(i, ulp32(g[i], w[i]), float64(g[i]), float64(w[i]), t)
		}
	case []float64:
		g := got.Data.([]float64)
		for i := range w {
			d.add(i, ulp64(g[i], w[i]), g[i], w[i], t)
		}
	case []kernels.Float16:
		g := got.Data.([]kernels.Float16)
		for i := range w {
			d.add(i, ulp16(uint16(g[i]), uint16(w[i]), 0x7c00, 0x3ff), g[i].Float64(), w[i].Float64(), t)
		}
	case []kernels.BFloat16:
		g := got.Data.([]kernels.BFloat16)
		for i := range w {
			d.add(i, ulp16(uint16(g[i]), uint16(w[i]), 0x7f80, 0x7f), g[i].Float64(), w[i].Float64(), t)
		}
	case []complex64:
		// Each part is a float32 of its own, measured as one.
		g := got.Data.([]complex64)
		for i := range w {
			tt := t.forModulus(float64(cmplx.Abs(complex128(w[i])))*0x1p-23, 0x1p-149)
			d.add(i, ulp32(real(g[i]), real(w[i])), float64(real(g[i])), float64(real(w[i])), tt)
			d.add(i, ulp32(imag(g[i]), imag(w[i])), float64(imag(g[i])), float64(imag(w[i])), tt)
		}
	case []complex128:
		g := got.Data.([]complex128)
		for i := range w {
			tt := t.forModulus(cmplx.Abs(w[i])*0x1p-52, 0x1p-1074)
			d.add(i, ulp64(real(g[i]), real(w[i])), real(g[i]), real(w[i]), tt)
			d.add(i, ulp64(imag(g[i]), imag(w[i])), imag(g[i]), imag(w[i]), tt)
		}
	case [][]byte:
		g := got.Data.([][]byte)
		for i := range w {
			if !bytes.Equal(g[i], w[i]) {
				d.Identical = false
				d.bad(i, fmt.Sprintf("%q, TensorFlow %q", g[i], w[i]))
			}
		}
	default:
		gv, wv := reflect.ValueOf(got.Data), reflect.ValueOf(want.Data)
		if gv.Kind() != reflect.Slice || gv.Type() != wv.Type() {
			return d, fmt.Errorf("cannot compare %T with %T", got.Data, want.Data)
		}
		for i := 0; i < wv.Len(); i++ {
			if a, b := gv.Index(i).Interface(), wv.Index(i).Interface(); a != b {
				d.Identical = false
				d.bad(i, fmt.Sprintf("%v, TensorFlow %v", a, b))
			}
		}
	}
	return d, nil
}

// forModulus turns Mod into an absolute bound for one complex value, given
// one ULP of its modulus (ulpMod, at least the smallest subnormal).
func (t Tol) forModulus(ulpMod, tiny float64) Tol {
	if t.Mod == 0 || math.IsInf(ulpMod, 0) || math.IsNaN(ulpMod) {
		return t
	}
	t.Abs = max(t.Abs, float64(t.Mod)*max(ulpMod, tiny))
	return t
}

func (d *Diff) add(i int, u int64, g, w float64, t Tol) {
	if u == 0 {
		return
	}
	d.Identical = false
	if u > d.MaxULP {
		d.MaxULP = u
	}
	abs := math.Abs(g - w)
	if math.IsNaN(abs) || math.IsInf(abs, 0) {
		abs = math.Inf(1)
	}
	if abs > d.MaxAbs {
		d.MaxAbs = abs
	}
	if u <= t.ULP || abs <= t.Abs {
		return
	}
	d.bad(i, fmt.Sprintf("%v, TensorFlow %v (%d ULP)", g, w, u))
}

func (d *Diff) bad(i int, s string) {
	if d.Bad == 0 {
		d.First = fmt.Sprintf("[%d] %s", i, s)
	}
	d.Bad++
}

// MaxULP stands for an unbounded distance (NaN against a number, Inf
// against a finite value).
const MaxULP = math.MaxInt64

// ulp32 is the distance between two float32s in ULPs.
func ulp32(a, b float32) int64 {
	an, bn := a != a, b != b
	if an || bn {
		if an && bn {
			return 0
		}
		return MaxULP
	}
	if math.IsInf(float64(a), 0) || math.IsInf(float64(b), 0) {
		if a == b {
			return 0
		}
		return MaxULP
	}
	return absDiff(ordered32(math.Float32bits(a)), ordered32(math.Float32bits(b)))
}

func ulp64(a, b float64) int64 {
	an, bn := a != a, b != b
	if an || bn {
		if an && bn {
			return 0
		}
		return MaxULP
	}
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		if a == b {
			return 0
		}
		return MaxULP
	}
	oa, ob := ordered64(math.Float64bits(a)), ordered64(math.Float64bits(b))
	if (oa > 0 && ob < 0 && oa > math.MaxInt64+ob) || (oa < 0 && ob > 0 && ob > math.MaxInt64+oa) {
		return MaxULP
	}
	if oa > ob {
		return oa - ob
	}
	return ob - oa
}

// ulp16 is ulp32 for a 16-bit float with the given exponent and mantissa
// masks (float16, bfloat16).
func ulp16(a, b uint16, exp, man uint16) int64 {
	nan := func(x uint16) bool { return x&exp == exp && x&man != 0 }
	inf := func(x uint16) bool { return x&exp == exp && x&man == 0 }
	if nan(a) || nan(b) {
		if nan(a) && nan(b) {
			return 0
		}
		return MaxULP
	}
	if inf(a) || inf(b) {
		if a == b {
			return 0
		}
		return MaxULP
	}
	o := func(x uint16) int64 {
		if x&0x8000 != 0 {
			return -int64(x&0x7fff) - 1
		}
		return int64(x)
	}
	return absDiff(o(a), o(b))
}

// ordered32 maps a float32's bits to an integer that grows with the value,
// -0.0 one below +0.0.
func ordered32(u uint32) int64 {
	if u&0x80000000 != 0 {
		return -int64(u&0x7fffffff) - 1
	}
	return int64(u)
}

func ordered64(u uint64) int64 {
	if u&(1<<63) != 0 {
		return -int64(u&(1<<63-1)) - 1
	}
	return int64(u)
}

func absDiff(a, b int64) int64 {
	if a > b {
		return a - b
	}
	return b - a
}

// DTypeName names a dtype as TensorFlow's Python does ("float32").
func DTypeName(dt tpb.DataType) string { return dtype.Name(dt) }
