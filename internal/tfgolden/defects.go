package tfgolden

// defects are the cases, by "Op dtype", where tfscan's kernel is known to
// give other numbers than TensorFlow's: Go kernel defects not fixed yet,
// each with what differs. The kernel test fails on any other difference
// and when a listed one no longer differs (so the list only shrinks);
// docs/conformance.md lists them.
var defects = map[string]string{
	"Conv2DBackpropFilter float32":  "dilations above 1: TensorFlow's CPU kernel refuses them (conv_grad_filter_ops.cc: \"Current CPU implementations do not yet support dilation rates larger than 1\"), tfscan computes the dilated gradient as a GPU does",
	"Conv2DBackpropFilter float64":  "as Conv2DBackpropFilter float32",
	"Conv2DBackpropFilter float16":  "as Conv2DBackpropFilter float32; and where the sum cancels, up to tens of ULP: TensorFlow's contraction rounds its partial sums to float16, tfscan accumulates in float32 and rounds once",
	"Conv2DBackpropFilter bfloat16": "as Conv2DBackpropFilter float16, rounding to bfloat16",
}

// Defect returns the known defect of a case's op and dtype, or "".
func Defect(c *Case) string { return defects[c.Op+" "+c.DType()] }

// Defects returns every known defect by "Op dtype".
func Defects() map[string]string { return defects }
