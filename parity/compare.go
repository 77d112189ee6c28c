// Package parity compares a model's numbers under a target's precision
// profile with a float64 reference: per node and per output errors, the
// first node that diverges, error statistics against recorded outputs
// (Polygraphy-style), and test vectors for kernels a target lacks. It
// returns values and never prints.
package parity

import (
	"fmt"
	"math"
	"slices"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/dtype"
	"github.com/tfscan/tfscan/kernels"
	"github.com/tfscan/tfscan/kernels/precision"
)

// ErrInf stands for an infinite error (kernels.ErrInf).
const ErrInf = kernels.ErrInf

// Tolerance is numpy.isclose's with NaN close to NaN (kernels.Tolerance).
type Tolerance = kernels.Tolerance

// Metrics are the errors of one tensor (or the union of a node's outputs)
// against the reference.
type Metrics struct {
	// Count is the number of values compared.
	Count int
	// MaxAbs is max |a−b|; MaxRel max |a−b|/|b| over values with b ≠ 0.
	// Both are ErrInf for an infinite error.
	MaxAbs, MaxRel float64
	// MaxULP is the largest distance in units in the last place of the
	// storage format (precision.ULPDistance); 0 for integer and bool data.
	MaxULP uint64
	// Mismatches counts values outside the tolerance.
	Mismatches int
	// NaNInf is set when a value is NaN or ±Inf where the reference is
	// finite.
	NaNInf bool
	// Overflow counts values finite in the reference that are ±Inf or
	// larger in magnitude than the storage format's largest finite value.
	Overflow int
	// Underflow counts values non-zero in the reference but smaller in
	// magnitude than the storage format's smallest normal that are zero
	// (flushed, or rounded below the smallest subnormal).
	Underflow int
	// Scale is the largest finite |b| of the reference, the yardstick of
	// relative growth (see Result.Nodes).
	Scale float64
}

// Merge adds m2's counts to m and keeps the larger maxima.
func (m *Metrics) Merge(m2 Metrics) {
	m.Count += m2.Count
	m.MaxAbs = math.Max(m.MaxAbs, m2.MaxAbs)
	m.MaxRel = math.Max(m.MaxRel, m2.MaxRel)
	m.MaxULP = max(m.MaxULP, m2.MaxULP)
	m.Mismatches += m2.Mismatches
	m.NaNInf = m.NaNInf || m2.NaNInf
	m.Overflow += m2.Overflow
	m.Underflow += m2.Underflow
	m.Scale = math.Max(m.Scale, m2.Scale)
}

// Diverged reports whether any value is outside the tolerance.
func (m Metrics) Diverged() bool { return m.Mismatches > 0 }

// Values returns t's values as float64 (bools as 0/1); ok is false for
// dtypes without numbers (strings, resources, variants).
func Values(t *kernels.Tensor) ([]float64, bool) {
	if t == nil {
		return nil, false
	}
	return t.Float64s()
}

// Compare measures got against the reference ref (both are converted to
// float64; ref is usually the float64 run's tensor). storage is the
// format got was stored in, for the ULP distance and the overflow limit;
// it matters only when got holds floats. The tensors must have the same
// number of values.
func Compare(got, ref *kernels.Tensor, storage tpb.DataType, tol Tolerance) (Metrics, error) {
	a, ok := Values(got)
	if !ok {
		return Metrics{}, fmt.Errorf("cannot compare a %s tensor", dtype.Name(got.DType))
	}
	b, ok := Values(ref)
	if !ok {
		return Metrics{}, fmt.Errorf("cannot compare with a %s tensor", dtype.Name(ref.DType))
	}
	if len(a) != len(b) || !slices.Equal(got.Shape, ref.Shape) {
		return Metrics{}, fmt.Errorf("shape %v differs from the reference's %v", got.Shape, ref.Shape)
	}
	floats := dtype.IsFloat(got.DType)
	return CompareValues(a, b, storage, floats, tol), nil
}

// CompareValues is Compare on flat values. floats selects ULP distances
// and overflow checks (integer data has neither).
func CompareValues(a, b []float64, storage tpb.DataType, floats bool, tol Tolerance) Metrics {
	m := Metrics{Count: len(a)}
	limit := precision.StorageMax(storage)
	tiny := precision.StorageMinNormal(storage)
	for i, x := range a {
		y := b[i]
		yFinite := !math.IsNaN(y) && !math.IsInf(y, 0)
		if yFinite {
			m.Scale = math.Max(m.Scale, math.Abs(y))
		}
		if !tol.Close(x, y) {
			m.Mismatches++
		}
		xFinite := !math.IsNaN(x) && !math.IsInf(x, 0)
		if yFinite && !xFinite {
			m.NaNInf = true
		}
		if floats && yFinite && !math.IsNaN(x) && (math.IsInf(x, 0) || math.Abs(x) > limit) {
			m.Overflow++
		}
		if floats && y != 0 && math.Abs(y) < tiny && x == 0 {
			m.Underflow++
		}
		abs := kernels.AbsError(x, y)
		m.MaxAbs = math.Max(m.MaxAbs, abs)
		if y != 0 && yFinite {
			rel := ErrInf
			if abs < ErrInf {
				rel = math.Min(abs/math.Abs(y), ErrInf)
			}
			m.MaxRel = math.Max(m.MaxRel, rel)
		}
		if floats {
			m.MaxULP = max(m.MaxULP, precision.ULPDistance(x, y, storage))
		}
	}
	return m
}

// AbsErrors returns |a−b| for every value (kernels.AbsError), for statistics.
func AbsErrors(a, b []float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = kernels.AbsError(a[i], b[i])
	}
	return out
}
