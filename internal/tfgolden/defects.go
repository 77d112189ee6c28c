package tfgolden

// defects are the cases, by "Op dtype", where tfscan's kernel is known to
// give other numbers than TensorFlow's: Go kernel defects not fixed yet,
// each with what differs. The kernel test fails on any other difference
// and when a listed one no longer differs (so the list only shrinks);
// docs/conformance.md lists them.
var defects = map[string]string{
	"ResizeBilinear float32":        "FLT_MIN beside a zero: TensorFlow's FTZ flushes the subnormal step (tr - tl) * lerp to zero inside the interpolation and keeps FLT_MIN, tfscan keeps IEEE subnormals inside a kernel and its subnormal result flushes to 0",
	"ResizeBilinear bfloat16":       "as ResizeBilinear float32",
	"Softsign float32":              "1 ULP on some inputs: TensorFlow's x / (1 + |x|) goes through Eigen's packet division path",
	"FloorDiv float32":              "x/y subnormal: TensorFlow's FTZ flushes the quotient to -0 before floor (result -0), tfscan floors the subnormal (-1)",
	"FloorDiv bfloat16":             "as float32: the subnormal quotient is flushed before floor in TensorFlow",
	"Cast float16→int8":             "out-of-range and NaN: TensorFlow's x86 result (Eigen's saturating packet casts, C++ UB in the scalar tail) is not modelled; tfscan wraps",
	"Cast float16→int16":            "out-of-range and NaN, as Cast float16→int8",
	"Cast float16→uint8":            "out-of-range and negative values, as Cast float16→int8 (TensorFlow saturates to 0)",
	"Cast float16→uint16":           "out-of-range and negative values, as Cast float16→int8",
	"Cast float16→uint32":           "NaN and out of range: TensorFlow gives 2147483648 (cvttss2si's integer indefinite), tfscan 0",
	"Cast float16→uint64":           "NaN and out of range: TensorFlow gives 9223372036854775808, tfscan 0",
	"Cast bfloat16→int8":            "as Cast float16→int8",
	"Cast bfloat16→int16":           "as Cast float16→int8",
	"Cast bfloat16→uint8":           "as Cast float16→uint8",
	"Cast bfloat16→uint16":          "as Cast float16→uint8",
	"Cast bfloat16→uint32":          "as Cast float16→uint32",
	"Cast bfloat16→uint64":          "as Cast float16→uint64",
	"Cast float32→int8":             "as Cast float16→int8",
	"Cast float32→uint8":            "as Cast float16→uint8",
	"Cast float32→uint16":           "as Cast float16→uint8",
	"Cast float32→uint32":           "as Cast float16→uint32",
	"Cast float32→uint64":           "as Cast float16→uint64",
	"Cast float64→int8":             "as Cast float16→int8",
	"Cast float64→int16":            "as Cast float16→int8",
	"Cast float64→uint8":            "as Cast float16→uint8",
	"Cast float64→uint16":           "as Cast float16→uint8",
	"Cast float64→uint32":           "as Cast float16→uint32",
	"Cast float64→uint64":           "as Cast float16→uint64",
	"Conv2DBackpropFilter float32":  "dilations above 1: TensorFlow's CPU kernel refuses them (conv_grad_filter_ops.cc: \"Current CPU implementations do not yet support dilation rates larger than 1\"), tfscan computes the dilated gradient as a GPU does",
	"Conv2DBackpropFilter float64":  "as Conv2DBackpropFilter float32",
	"Conv2DBackpropFilter float16":  "as Conv2DBackpropFilter float32; and where the sum cancels, up to tens of ULP: TensorFlow's contraction rounds its partial sums to float16, tfscan accumulates in float32 and rounds once",
	"Conv2DBackpropFilter bfloat16": "as Conv2DBackpropFilter float16, rounding to bfloat16",
	"Cast complex64→uint32":         "as Cast float32→uint32 (the real part is cast)",
	"Cast complex64→uint64":         "as Cast float32→uint64 (the real part is cast)",
	"Cast complex128→int8":          "as Cast float64→int8 (the real part is cast)",
	"Cast complex128→int16":         "as Cast float64→int16 (the real part is cast)",
	"Cast complex128→uint8":         "as Cast float64→uint8 (the real part is cast)",
	"Cast complex128→uint16":        "as Cast float64→uint16 (the real part is cast)",
	"Cast complex128→uint64":        "as Cast float64→uint64 (the real part is cast)",
	"Div complex64": "a divisor with one part at the largest finite value and the other ±1: pdiv_complex scales it by " +
		"that part, and the small scaled part (1/FLT_MAX) is subnormal, which TensorFlow's FTZ flushes to zero inside " +
		"the kernel (NaN, or +0 for -0); tfscan keeps IEEE subnormals inside a kernel (±Inf)",
	"Div complex128":      "as Div complex64 (1/DBL_MAX)",
	"RealDiv complex64":   "as Div complex64",
	"RealDiv complex128":  "as Div complex64",
	"DivNoNan complex64":  "as Div complex64",
	"DivNoNan complex128": "as Div complex64",
	"Xdivy complex64":     "as Div complex64",
	"Xdivy complex128":    "as Div complex64",
	"Xlogy complex64": "log(y) of y = FLT_MAX + i has the subnormal imaginary part atan2(1, FLT_MAX), which " +
		"TensorFlow's FTZ flushes to zero inside the kernel: x = ±Inf times it gives NaN there, ±Inf in tfscan",
	"Xlogy complex128": "as Xlogy complex64 (DBL_MAX)",
	"Pow complex64": "overflowing powers of a part at FLT_MAX: cexp's sign of infinity follows sin and cos of " +
		"y·log(x)'s imaginary part, which holds atan2(1, FLT_MAX) (subnormal, flushed by TensorFlow's FTZ)",
	"Pow complex128": "as Pow complex64 (DBL_MAX); and x = 1e-40 ± i, y = -inf: glibc's clog gives log|x| = 5e-81 " +
		"(log1p(x² + y² - 1)/2 with __x2y2m1), tfscan's log(hypot(x)) rounds |x| to 1 and gives 0, so y·log(x) " +
		"is NaN instead of -inf and the power NaN instead of ±0",
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
