package tfgolden

// defects are the cases, by "Op dtype", where tfscan's kernel is known to
// give other numbers than TensorFlow's: Go kernel defects not fixed yet,
// each with what differs. The kernel test fails on any other difference
// and when a listed one no longer differs (so the list only shrinks);
// docs/conformance.md lists them.
var defects = map[string]string{
	"Cast complex128→int16": "out of range and NaN: TensorFlow's loop over std::complex<double> runs 8 a step from 17 " +
		"elements on and gives, in each step, the scalar remainder's low bits in four lanes and saturated values in " +
		"the other four, by an order of lanes not modelled; tfscan takes the scalar rule everywhere",
	"Cast complex128→uint16": "as Cast complex128→int16",
}

// Defect returns the known defect of a case's op and dtype, or "".
func Defect(c *Case) string { return defects[c.Op+" "+c.DType()] }

// Defects returns every known defect by "Op dtype".
func Defects() map[string]string { return defects }
