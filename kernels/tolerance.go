package kernels

import (
	"bytes"
	"math"
	"slices"

	"github.com/tfscan/tfscan/dtype"
)

// How one tensor's values compare with a reference's, for every place that
// judges numbers against other numbers: the parity runs (parity) and the
// rewriter's proofs (rewrite).

// ErrInf stands for an infinite error (an Inf or NaN where the other side
// is finite, or Inf of the other sign): JSON has no Inf, so errors are
// clamped to the largest float64.
const ErrInf = math.MaxFloat64

// Tolerance is numpy.isclose's: a value a is close to the reference b
// when |a−b| ≤ ATol + RTol·|b|. Unlike numpy, NaN is close to NaN and an
// infinity to the same infinity: only changes count.
type Tolerance struct {
	ATol, RTol float64
}

// Close reports whether a is within the tolerance of the reference b.
func (t Tolerance) Close(a, b float64) bool {
	an, bn := math.IsNaN(a), math.IsNaN(b)
	if an || bn {
		return an && bn
	}
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return a == b
	}
	return math.Abs(a-b) <= t.ATol+t.RTol*math.Abs(b)
}

// AbsError is |x−y| with NaN/NaN and equal infinities 0 and every other
// non-finite case ErrInf.
func AbsError(x, y float64) float64 {
	switch {
	case math.IsNaN(x) && math.IsNaN(y):
		return 0
	case math.IsNaN(x) || math.IsNaN(y):
		return ErrInf
	case x == y:
		return 0
	}
	d := math.Abs(x - y)
	if math.IsInf(d, 0) {
		return ErrInf
	}
	return d
}

// FloatValues is a floating-point tensor's elements as float64 (exact for
// every float dtype), nil for other dtypes.
func FloatValues(t *Tensor) []float64 {
	if !dtype.IsFloat(t.DType) {
		return nil
	}
	v, _ := t.Float64s()
	return v
}

// Identical reports whether a and b hold the same bytes in TensorFlow's
// dense encoding (so -0 differs from 0 and NaNs by their payload), or the
// same strings element by element.
func Identical(a, b *Tensor) bool {
	ra, err1 := EncodeRaw(a)
	rb, err2 := EncodeRaw(b)
	if err1 == nil && err2 == nil {
		return bytes.Equal(ra, rb)
	}
	sa, ok1 := a.Data.([][]byte)
	sb, ok2 := b.Data.([][]byte)
	if ok1 && ok2 {
		return slices.EqualFunc(sa, sb, bytes.Equal)
	}
	return false
}
