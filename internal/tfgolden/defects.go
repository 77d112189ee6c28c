package tfgolden

// defects are the cases, by "Op dtype", where tfscan's kernel is known to
// give other numbers than TensorFlow's: Go kernel defects not fixed yet,
// each with what differs. The kernel test fails on any other difference
// and when a listed one no longer differs (so the list only shrinks);
// docs/conformance.md lists them.
var defects = map[string]string{
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
}

// Defect returns the known defect of a case's op and dtype, or "".
func Defect(c *Case) string { return defects[c.Op+" "+c.DType()] }

// Defects returns every known defect by "Op dtype".
func Defects() map[string]string { return defects }
