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
	"Pow complex128": "x = 1e-40 ± i, y = -inf: glibc's clog gives log|x| = 5e-81 (log1p(x² + y² - 1)/2 with " +
		"__x2y2m1), tfscan's log(hypot(x)) rounds |x| to 1 and gives 0, so y·log(x) is NaN instead of -inf and the " +
		"power NaN instead of ±0",
	"Acos complex64": "special values and extreme parts: tfscan evaluates Go's math/cmplx (textbook identities " +
		"through log and sqrt), glibc's cacos, casin, catan, ... have C99 Annex G's special values and a kernel per " +
		"region (k_casinh_template.c): infinite or NaN parts give other signs or NaN, a part at the largest finite " +
		"value overflows to Inf where glibc takes log(2|z|), and a tiny part beside a unit one (1e-40 + i in " +
		"complex128) is lost; finite ordinary values are within tolerance",
	"Acos complex128":  "as Acos complex64",
	"Acosh complex64":  "as Acos complex64 (cacosh)",
	"Acosh complex128": "as Acos complex64 (cacosh)",
	"Asin complex64":   "as Acos complex64 (casin)",
	"Asin complex128":  "as Acos complex64 (casin)",
	"Asinh complex128": "as Acos complex64 (casinh; complex64, evaluated in complex128, agrees)",
	"Atan complex64":   "as Acos complex64 (catan)",
	"Atan complex128":  "as Acos complex64 (catan)",
	"Atanh complex64":  "as Acos complex64 (catanh)",
	"Atanh complex128": "as Acos complex64 (catanh)",
}

// Defect returns the known defect of a case's op and dtype, or "".
func Defect(c *Case) string { return defects[c.Op+" "+c.DType()] }

// Defects returns every known defect by "Op dtype".
func Defects() map[string]string { return defects }
