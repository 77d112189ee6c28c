package kernels

import (
	"fmt"
	"math"
	"slices"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/dtype"
)

// Matrix band and diagonal ops (core/kernels/linalg/matrix_band_part_op.cc,
// matrix_diag_op.cc, matrix_set_diag_op.cc) and L2Loss (l2loss_op.cc).
// The band/diag ops only move elements; TensorFlow registers them on CPU for
// TF_CALL_POD_TYPES (every numeric dtype and bool). V1 and V2 diagonal ops
// align every diagonal to the left; V3 reads the align attr (default
// RIGHT_LEFT: superdiagonals right-aligned, subdiagonals left-aligned).

// isPOD reports whether t's dtype is in TF_CALL_POD_TYPES (numbers and
// bool) as far as this package represents it.
func isPOD(t *Tensor) bool { return isRealNumber(t) || t.DType == tpb.DataType_DT_BOOL }

// podSelect builds a tensor of a's dtype and shape out where element i is
// a[idx[i]] when idx[i] >= 0, fill when idx[i] == -1 (zero when fill is nil)
// and b[-idx[i]-2] when idx[i] <= -2. Strings are moved too (SparseToDense
// needs them); the diag ops refuse them first with isPOD.
func podSelect(a, b, fill *Tensor, shape []int, idx []int) (*Tensor, error) {
	out := &Tensor{DType: dtype.Base(a.DType), Shape: shape}
	var bd, fd any
	if b != nil {
		bd = b.Data
	}
	if fill != nil {
		fd = fill.Data
	}
	var ok bool
	switch d := a.Data.(type) {
	case []float32:
		out.Data, ok = podSelectT(d, bd, fd, idx)
	case []float64:
		out.Data, ok = podSelectT(d, bd, fd, idx)
	case []Float16:
		out.Data, ok = podSelectT(d, bd, fd, idx)
	case []BFloat16:
		out.Data, ok = podSelectT(d, bd, fd, idx)
	case []int8:
		out.Data, ok = podSelectT(d, bd, fd, idx)
	case []uint8:
		out.Data, ok = podSelectT(d, bd, fd, idx)
	case []int16:
		out.Data, ok = podSelectT(d, bd, fd, idx)
	case []uint16:
		out.Data, ok = podSelectT(d, bd, fd, idx)
	case []int32:
		out.Data, ok = podSelectT(d, bd, fd, idx)
	case []int64:
		out.Data, ok = podSelectT(d, bd, fd, idx)
	case []uint32:
		out.Data, ok = podSelectT(d, bd, fd, idx)
	case []uint64:
		out.Data, ok = podSelectT(d, bd, fd, idx)
	case []bool:
		out.Data, ok = podSelectT(d, bd, fd, idx)
	case [][]byte:
		out.Data, ok = podSelectT(d, bd, fd, idx)
	default:
		return nil, &unsupportedDType{a.DType.String()}
	}
	if !ok {
		return nil, fmt.Errorf("inputs have different dtypes")
	}
	return out, nil
}

type unsupportedDType struct{ dt string }

func (e *unsupportedDType) Error() string { return "dtype " + e.dt }

func podSelectT[T any](a []T, bAny, fillAny any, idx []int) ([]T, bool) {
	var b []T
	var fv T
	if bAny != nil {
		var ok bool
		if b, ok = bAny.([]T); !ok {
			return nil, false
		}
	}
	if fillAny != nil {
		f, ok := fillAny.([]T)
		if !ok || len(f) == 0 {
			return nil, false
		}
		fv = f[0]
	}
	out := make([]T, len(idx))
	parallelFor(len(idx), 1, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			switch j := idx[i]; {
			case j >= 0:
				out[i] = a[j]
			case j == -1:
				out[i] = fv
			default:
				out[i] = b[-j-2]
			}
		}
	})
	return out, true
}

// selectErr turns a podSelect error into the kernel's error.
func selectErr(ctx *Context, err error) error {
	if u, ok := err.(*unsupportedDType); ok {
		return ctx.Unsupported("%s", u.Error())
	}
	return ctx.Errorf("%v", err)
}

func matrixBandPartKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 3); err != nil {
		return nil, err
	}
	x := ctx.Inputs[0]
	if !isPOD(x) {
		return nil, ctx.Unsupported("dtype %s", dtypeName(x.DType))
	}
	if len(x.Shape) < 2 {
		return nil, ctx.Errorf("input must be at least 2-dim, received shape: %s", dimsString(x.Shape))
	}
	r := len(x.Shape)
	m, n := x.Shape[r-2], x.Shape[r-1]
	if len(ctx.Inputs[1].Shape) != 0 {
		return nil, ctx.Errorf("num_lower must be scalar, got shape %s", dimsString(ctx.Inputs[1].Shape))
	}
	lower, err := scalarIndex(ctx.Inputs[1], "num_lower")
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	if lower > int64(m) {
		return nil, ctx.Errorf("num_lower must be negative or less or equal to number of rows (%d) got: %d", m, lower)
	}
	if len(ctx.Inputs[2].Shape) != 0 {
		return nil, ctx.Errorf("num_upper must be scalar, got shape %s", dimsString(ctx.Inputs[2].Shape))
	}
	upper, err := scalarIndex(ctx.Inputs[2], "num_upper")
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	if upper > int64(n) {
		return nil, ctx.Errorf("num_upper must be negative or less or equal to number of columns (%d) got: %d", n, upper)
	}
	total := x.NumElements()
	idx := make([]int, total)
	for i := range idx {
		row := (i / max(n, 1)) % max(m, 1)
		col := i % max(n, 1)
		in := (lower < 0 || int64(row-col) <= lower) && (upper < 0 || int64(col-row) <= upper)
		if in {
			idx[i] = i
		} else {
			idx[i] = -1
		}
	}
	out, err := podSelect(x, nil, nil, cloneShape(x.Shape), idx)
	if err != nil {
		return nil, selectErr(ctx, err)
	}
	return []*Tensor{out}, nil
}

// diagArgs reads the k input (a scalar or a 1- or 2-element vector) of the
// V2/V3 diag ops.
func diagArgs(ctx *Context, k *Tensor) (lower, upper int, err error) {
	if len(k.Shape) > 1 {
		return 0, 0, ctx.Errorf("diag_index must be a scalar or vector, received shape: %s", dimsString(k.Shape))
	}
	v, err := indexValues(k)
	if err != nil {
		return 0, 0, ctx.Errorf("k: %v", err)
	}
	if len(v) == 0 {
		return 0, 0, ctx.Errorf("Expected diag_index to have at least 1 element")
	}
	if len(k.Shape) == 1 && len(v) > 2 {
		return 0, 0, ctx.Errorf("diag_index must have only one or two elements, received %d elements.", len(v))
	}
	lo, up := v[0], v[0]
	if len(v) == 2 {
		up = v[1]
	}
	if lo < math.MinInt32 || lo > math.MaxInt32 || up < math.MinInt32 || up > math.MaxInt32 {
		return 0, 0, ctx.Errorf("diag_index out of int32 range")
	}
	return int(lo), int(up), nil
}

// alignment returns the left-align flags (ReadAlignment); ops without the
// align attr align both sides left.
func alignment(ctx *Context) (superLeft, subLeft bool, err error) {
	if !ctx.HasAttr("align") {
		return true, true, nil
	}
	a, err := ctx.AttrString("align")
	if err != nil {
		return false, false, err
	}
	switch a {
	case "LEFT_LEFT", "LEFT_RIGHT", "RIGHT_LEFT", "RIGHT_RIGHT":
	default:
		return false, false, ctx.Errorf("invalid align %q", a)
	}
	return a == "LEFT_LEFT" || a == "LEFT_RIGHT", a == "LEFT_LEFT" || a == "RIGHT_LEFT", nil
}

// diagLenOffset is ComputeDiagLenAndContentOffset.
func diagLenOffset(d, maxLen, rows, cols int, superLeft, subLeft bool) (length, offset int) {
	left := (d >= 0 && superLeft) || (d <= 0 && subLeft)
	length = min(rows+min(0, d), cols-max(0, d))
	if !left {
		offset = maxLen - length
	}
	return length, offset
}

// checkDiagRange validates lower/upper against an M×N matrix.
func checkDiagRange(ctx *Context, lower, upper, m, n int, sep string) error {
	if !((-m < lower && lower < n) || lower == 0) {
		return ctx.Errorf("lower_diag_index is out of bound: %d%s It must be between %d and %d", lower, sep, -m, n)
	}
	if !((-m < upper && upper < n) || upper == 0) {
		return ctx.Errorf("upper_diag_index is out of bound: %d It must be between %d and %d", upper, -m, n)
	}
	if lower > upper {
		return ctx.Errorf("lower_diag_index must not be larger than upper_diag_index: %d > %d", lower, upper)
	}
	return nil
}

func matrixDiagPartKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 1); err != nil {
		return nil, err
	}
	x := ctx.Inputs[0]
	if !isPOD(x) {
		return nil, ctx.Unsupported("dtype %s", dtypeName(x.DType))
	}
	lower, upper := 0, 0
	var pad *Tensor
	if len(ctx.Inputs) > 1 {
		if err := wantInputs(ctx, 3); err != nil {
			return nil, err
		}
		var err error
		if lower, upper, err = diagArgs(ctx, ctx.Inputs[1]); err != nil {
			return nil, err
		}
		if pad = ctx.Inputs[2]; pad.NumElements() != 1 {
			return nil, ctx.Errorf("Padding must be scalar.")
		}
	}
	superLeft, subLeft, err := alignment(ctx)
	if err != nil {
		return nil, err
	}
	if len(x.Shape) < 2 {
		return nil, ctx.Errorf("input must be at least 2-dim, received shape: %s", dimsString(x.Shape))
	}
	r := len(x.Shape)
	m, n := x.Shape[r-2], x.Shape[r-1]
	if err := checkDiagRange(ctx, lower, upper, m, n, "."); err != nil {
		return nil, err
	}
	numDiags := upper - lower + 1
	maxLen := min(m+min(upper, 0), n-max(lower, 0))
	shape := cloneShape(x.Shape[:r-2])
	if numDiags > 1 {
		shape = append(shape, numDiags)
	}
	shape = append(shape, maxLen)
	total, err := CheckShape(shape)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	batches := product(x.Shape[:r-2])
	idx := make([]int, total)
	o := 0
	for b := 0; b < batches && total > 0; b++ {
		base := b * m * n
		for k := 0; k < numDiags; k++ {
			d := upper - k
			y0, x0 := max(0, -d), max(0, d)
			length, off := diagLenOffset(d, maxLen, m, n, superLeft, subLeft)
			for i := 0; i < maxLen; i++ {
				idx[o+i] = -1
			}
			for i := 0; i < length; i++ {
				idx[o+off+i] = base + (i+y0)*n + i + x0
			}
			o += maxLen
		}
	}
	out, err := podSelect(x, nil, pad, shape, idx)
	if err != nil {
		return nil, selectErr(ctx, err)
	}
	return []*Tensor{out}, nil
}

func scalarInput(ctx *Context, t *Tensor, what string) (int64, error) {
	if len(t.Shape) != 0 {
		return 0, ctx.Errorf("%s must be a scalar", what)
	}
	v, err := scalarIndex(t, what)
	if err != nil {
		return 0, ctx.Errorf("%v", err)
	}
	return v, nil
}

func matrixDiagKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 1); err != nil {
		return nil, err
	}
	diag := ctx.Inputs[0]
	if !isPOD(diag) {
		return nil, ctx.Unsupported("dtype %s", dtypeName(diag.DType))
	}
	lower, upper := 0, 0
	rows, cols := int64(-1), int64(-1)
	var pad *Tensor
	if len(ctx.Inputs) > 1 {
		if err := wantInputs(ctx, 5); err != nil {
			return nil, err
		}
		var err error
		if lower, upper, err = diagArgs(ctx, ctx.Inputs[1]); err != nil {
			return nil, err
		}
		if rows, err = scalarInput(ctx, ctx.Inputs[2], "num_rows"); err != nil {
			return nil, err
		}
		if cols, err = scalarInput(ctx, ctx.Inputs[3], "num_cols"); err != nil {
			return nil, err
		}
		if pad = ctx.Inputs[4]; len(pad.Shape) != 0 {
			return nil, ctx.Errorf("padding_value must be a scalar")
		}
	}
	superLeft, subLeft, err := alignment(ctx)
	if err != nil {
		return nil, err
	}
	dr := len(diag.Shape)
	numDiags := upper - lower + 1
	if dr < 1 {
		return nil, ctx.Errorf("diagonal must be at least 1-dim, received shape: %s", dimsString(diag.Shape))
	}
	if lower > upper {
		return nil, ctx.Errorf("lower_diag_index must not be larger than upper_diag_index: %d > %d", lower, upper)
	}
	if lower != upper && (dr < 2 || diag.Shape[dr-2] != numDiags) {
		return nil, ctx.Errorf("The number of diagonals provided in the input does not match the lower_diag_index and upper_diag_index range.")
	}
	maxLen := diag.Shape[dr-1]
	minRows := int64(maxLen - min(upper, 0))
	minCols := int64(maxLen + max(lower, 0))
	if rows != -1 && rows < minRows {
		return nil, ctx.Errorf("The number of rows is too small.")
	}
	if cols != -1 && cols < minCols {
		return nil, ctx.Errorf("The number of columns is too small.")
	}
	switch {
	case rows == -1 && cols == -1:
		rows = max(minRows, minCols)
		cols = rows
	case rows == -1:
		rows = minRows
	case cols == -1:
		cols = minCols
	}
	if rows != minRows && cols != minCols {
		return nil, ctx.Errorf("The number of rows or columns is not consistent with the specified d_lower, d_upper, and diagonal.")
	}
	if rows > MaxElements || cols > MaxElements {
		return nil, ctx.Errorf("output matrix %dx%d is too large", rows, cols)
	}
	var shape []int
	if numDiags == 1 {
		shape = append(cloneShape(diag.Shape[:dr-1]), int(rows), int(cols))
	} else {
		shape = append(cloneShape(diag.Shape[:dr-2]), int(rows), int(cols))
	}
	total, err := CheckShape(shape)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	m, n := int(rows), int(cols)
	batches := 0
	if m*n > 0 {
		batches = total / (m * n)
	}
	idx := make([]int, total)
	perBatch := numDiags * maxLen
	o := 0
	for b := 0; b < batches; b++ {
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				d := j - i
				if lower <= d && d <= upper {
					_, off := diagLenOffset(d, maxLen, m, n, superLeft, subLeft)
					idx[o] = b*perBatch + (upper-d)*maxLen + j - max(d, 0) + off
				} else {
					idx[o] = -1
				}
				o++
			}
		}
	}
	out, err := podSelect(diag, nil, pad, shape, idx)
	if err != nil {
		return nil, selectErr(ctx, err)
	}
	return []*Tensor{out}, nil
}

func matrixSetDiagKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 2); err != nil {
		return nil, err
	}
	x, diag := ctx.Inputs[0], ctx.Inputs[1]
	if !isPOD(x) {
		return nil, ctx.Unsupported("dtype %s", dtypeName(x.DType))
	}
	lower, upper := 0, 0
	if len(ctx.Inputs) > 2 {
		if err := wantInputs(ctx, 3); err != nil {
			return nil, err
		}
		var err error
		if lower, upper, err = diagArgs(ctx, ctx.Inputs[2]); err != nil {
			return nil, err
		}
	}
	superLeft, subLeft, err := alignment(ctx)
	if err != nil {
		return nil, err
	}
	if len(x.Shape) < 2 {
		return nil, ctx.Errorf("input must be at least 2-dim, received shape: %s", dimsString(x.Shape))
	}
	if len(diag.Shape) < 1 {
		return nil, ctx.Errorf("diagonal must be at least 1-dim, received shape: %s", dimsString(diag.Shape))
	}
	r := len(x.Shape)
	m, n := x.Shape[r-2], x.Shape[r-1]
	if err := checkDiagRange(ctx, lower, upper, m, n, ""); err != nil {
		return nil, err
	}
	numDiags := upper - lower + 1
	if lower != upper && (len(diag.Shape) <= r-2 || diag.Shape[r-2] != numDiags) {
		return nil, ctx.Errorf("The number of diagonals provided in `diag` is not consistent with `lower_diag_index` and `upper_diag_index`")
	}
	maxLen := min(m+min(upper, 0), n-max(lower, 0))
	want := cloneShape(x.Shape[:r-2])
	if numDiags > 1 {
		want = append(want, numDiags)
	}
	want = append(want, maxLen)
	if !slices.Equal(want, diag.Shape) {
		return nil, ctx.Errorf("Either first dimensions of diagonal don't match input.shape[:-2], or diagonal.shape[:-1] is not equal to the longests diagonal in range [lower_diag_index:upper_diag_index].\nInput shape: %s\nDiagonal shape: %s\nExpected diagonal shape: %s",
			dimsString(x.Shape), dimsString(diag.Shape), dimsString(want))
	}
	total := x.NumElements()
	idx := make([]int, total)
	for i := range idx {
		idx[i] = i
	}
	batches := 0
	if m*n > 0 {
		batches = total / (m * n)
	}
	for b := 0; b < batches; b++ {
		for k := 0; k < numDiags; k++ {
			d := upper - k
			length, off := diagLenOffset(d, maxLen, m, n, superLeft, subLeft)
			y0, x0 := max(0, -d), max(0, d)
			for i := 0; i < length; i++ {
				src := (b*numDiags+k)*maxLen + i + off
				idx[b*m*n+(i+y0)*n+i+x0] = -src - 2
			}
		}
	}
	out, err := podSelect(x, diag, nil, cloneShape(x.Shape), idx)
	if err != nil {
		return nil, selectErr(ctx, err)
	}
	return []*Tensor{out}, nil
}

// l2LossKernel computes sum(x²)/2. TensorFlow evaluates
// (x.square() * T(0.5)).sum() with Eigen's vectorised tree reduction, whose
// summation order is not specified; this kernel sums in float64 and rounds
// once, so float32 results agree to rounding and half/bfloat16 results may
// differ from TensorFlow's (which accumulates in the dtype) in the last bits.
func l2LossKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 1); err != nil {
		return nil, err
	}
	x := ctx.Inputs[0]
	var s float64
	switch d := x.Data.(type) {
	case []float32:
		for _, v := range d {
			s += float64(v) * float64(v)
		}
		return []*Tensor{ScalarFloat(float32(s / 2))}, nil
	case []float64:
		for _, v := range d {
			s += v * v
		}
		return []*Tensor{ScalarDouble(s / 2)}, nil
	case []Float16:
		for _, v := range d {
			f := v.Float64()
			s += f * f
		}
		return []*Tensor{ScalarHalf(float32(s / 2))}, nil
	case []BFloat16:
		for _, v := range d {
			f := v.Float64()
			s += f * f
		}
		return []*Tensor{ScalarBFloat16(float32(s / 2))}, nil
	}
	return nil, ctx.Unsupported("dtype %s", dtypeName(x.DType))
}

func init() {
	Register("MatrixBandPart", matrixBandPartKernel)
	for _, op := range []string{"MatrixDiag", "MatrixDiagV2", "MatrixDiagV3"} {
		Register(op, matrixDiagKernel)
	}
	for _, op := range []string{"MatrixDiagPart", "MatrixDiagPartV2", "MatrixDiagPartV3"} {
		Register(op, matrixDiagPartKernel)
	}
	for _, op := range []string{"MatrixSetDiag", "MatrixSetDiagV2", "MatrixSetDiagV3"} {
		Register(op, matrixSetDiagKernel)
	}
	Register("L2Loss", l2LossKernel)
}
