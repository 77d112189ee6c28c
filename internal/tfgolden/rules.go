package tfgolden

// Rule is how an op's results are held to TensorFlow's, with the reason a
// tolerance is not zero (citing TensorFlow's or Eigen's source).
type Rule struct {
	Tol Tol
	// Skip lists outputs not compared (what TensorFlow leaves unwritten).
	Skip   []int
	Reason string
}

// Why an op is not held to bit-identical results.
const (
	approxReason = "TensorFlow evaluates it with Eigen's functors (Eigen/src/Core/arch/Default/" +
		"GenericPacketMathFunctions.h: float polynomials, SSE rcpps/rsqrtps with a Newton step for " +
		"Reciprocal and Rsqrt) or libm for double, none correctly rounded; tfscan evaluates in float64 " +
		"and rounds once"
	sumReason = "summation order: Eigen's reductions and contractions add in packet-wide partial sums " +
		"and cache blocks (unsupported/Eigen/CXX11/src/Tensor/TensorReduction.h, TensorContraction*.h, " +
		"8 float lanes on the wheel, which is built for AVX), tfscan in its own blocked order; a rounding difference " +
		"bounded by n·ε·Σ|terms|, hence ULPs or an absolute bound where the sum cancels"
)

// onednnReason is why the ops whose only CPU kernel is oneDNN's (the
// goldens' onednn family) are not bit-identical.
const onednnReason = "TensorFlow's only CPU kernel is oneDNN's (kernels/mkl/, the stock kernel is a NoOp the " +
	"layout pass rewrites): its own summation order and blocking, a vectorised exp for Elu, batch norm folded " +
	"into one multiply-add per element"

// approx is the tolerance of the elementwise functions TensorFlow
// approximates.
var approx = Tol{ULP: 4}

// sumTol is the summation-order tolerance by dtype.
var sumTol = map[string]Tol{
	"float16":  {ULP: 16, Abs: 1e-2},
	"bfloat16": {ULP: 8, Abs: 1e-1},
	"float32":  {ULP: 4, Abs: 1e-5},
	"float64":  {ULP: 8, Abs: 1e-13},
}

// rules are per op (and, where one dtype differs, per "Op dtype"); an op
// not listed must be bit-identical.
var rules = map[string]Rule{
	"FusedBatchNormV3": {Skip: []int{3, 4}, Reason: "in inference TensorFlow's CPU kernel allocates reserve_space_1 and _2 " +
		"and never writes them (fused_batch_norm_op.cc:239-344, FusedBatchNorm<CPUDevice, T, U, false>): their " +
		"contents are whatever the allocator held"},
	"FusedBatchNorm": {Skip: []int{3, 4}, Reason: "in inference TensorFlow's CPU kernel allocates reserve_space_1 and _2 " +
		"and never writes them (fused_batch_norm_op.cc:239-344, FusedBatchNorm<CPUDevice, T, U, false>): their " +
		"contents are whatever the allocator held"},
	"FusedBatchNormV2": {Skip: []int{3, 4}, Reason: "in inference TensorFlow's CPU kernel allocates reserve_space_1 and _2 " +
		"and never writes them (fused_batch_norm_op.cc:239-344, FusedBatchNorm<CPUDevice, T, U, false>): their " +
		"contents are whatever the allocator held"},
	"_FusedBatchNormEx": {Tol: Tol{ULP: 2}, Skip: []int{3, 4, 5}, Reason: onednnReason + "; the reserve spaces are the " +
		"kernel's own scratch for the gradient (oneDNN's workspace layout), not compared"},
	"Sin float64": {Tol: Tol{ULP: 4, Abs: 1e-15}, Reason: approxReason + "; for |x| near DBL_MAX the argument reductions differ (25 ULP, 2e-17 absolute, on sin(DBL_MAX))"},
	"Tan float64": {Tol: Tol{ULP: 4, Abs: 1e-15}, Reason: approxReason + "; for |x| near DBL_MAX the argument reductions differ (25 ULP, 2e-17 absolute, on tan(DBL_MAX))"},
	"StatelessRandomNormalV2 float64": {Tol: approx, Reason: "BoxMullerDouble (random_distributions.h) takes log and " +
		"sincos from glibc's libm, tfscan from Go's math package; neither is correctly rounded, so a normal differs " +
		"in its last bit where they disagree"},
	"Elu":  {Tol: Tol{ULP: 16}, Reason: approxReason + "; exp(x) - 1 cancels near 0, so one ULP of exp(x) is several of the result"},
	"Selu": {Tol: Tol{ULP: 16}, Reason: approxReason + "; exp(x) - 1 cancels near 0, so one ULP of exp(x) is several of the result"},
}

func init() {
	for _, op := range []string{"Acos", "Acosh", "Asin", "Asinh", "Atan", "Atan2", "Atanh", "Cos", "Cosh", "Elu",
		"Erf", "Erfc", "Exp", "Expm1", "Inv", "Log", "Log1p", "Pow", "Reciprocal", "Rsqrt", "Selu", "Sigmoid",
		"Sin", "Sinh", "Softplus", "Tan", "Tanh", "Xlog1py", "Xlogy"} {
		if _, ok := rules[op]; !ok {
			rules[op] = Rule{Tol: approx, Reason: approxReason}
		}
	}
	for _, op := range []string{"Sum", "Mean", "Prod", "EuclideanNorm", "MatMul", "BatchMatMulV2", "Conv2D",
		"Softmax", "LogSoftmax", "LRN", "BatchMatMul", "BatchMatMulV3", "Einsum", "L2Loss", "Conv3D",
		"Conv2DBackpropInput", "_FusedConv2D", "_FusedMatMul", "Conv2DBackpropFilter", "BiasAddGrad",
		"SparseSoftmaxCrossEntropyWithLogits"} {
		for dt, t := range sumTol {
			if dt == "float16" && (op == "MatMul" || op == "BatchMatMulV2" || op == "BatchMatMul" || op == "BatchMatMulV3") {
				continue // k-ordered with float16 rounding: bit-identical (matMulStorage)
			}
			if (dt == "float16" || dt == "bfloat16") && (op == "Conv3D" || op == "Conv2DBackpropFilter") {
				continue // rounded as Eigen::half and bfloat16 round (convStorage, conv_backprop_filter.go): bit-identical
			}
			rules[op+" "+dt] = Rule{Tol: t, Reason: sumReason}
		}
	}
}

// The complex reductions and contractions sum each part as a float of the
// part's dtype does: the summation tolerance of float32 (complex64) and
// float64 (complex128).
func init() {
	for _, op := range []string{"Sum", "Mean", "Prod", "MatMul", "BatchMatMulV2"} {
		rules[op+" complex64"] = Rule{Tol: sumTol["float32"], Reason: sumReason}
		rules[op+" complex128"] = Rule{Tol: sumTol["float64"], Reason: sumReason}
	}
	prodReason := sumReason + "; a complex product's part is a difference of two products (ac - bd), so a " +
		"product of 35 values multiplied in another order differs by more ULPs in a part that cancels " +
		"(7 ULP of float32, 11 of float64 seen)"
	rules["Prod complex64"] = Rule{Tol: Tol{ULP: 16, Abs: 1e-5}, Reason: prodReason}
	rules["Prod complex128"] = Rule{Tol: Tol{ULP: 16, Abs: 1e-13}, Reason: prodReason}
}

// complexLibmReason is why the complex functions TensorFlow takes from
// glibc (through std::exp, std::sin, ...) or that use libm's real
// functions (Eigen's complex log: log and atan2) are not bit-identical.
const complexLibmReason = "TensorFlow's CPU kernel calls std::exp, std::sin, ... of std::complex, which libstdc++ " +
	"hands to glibc's cexp, csin, ... (sysdeps/ieee754/{flt-32,dbl-64} s_c*_template.c, own formulas and " +
	"float-precision steps for complex64), or Eigen's formulas over glibc's real log, atan2, sin, expm1; " +
	"tfscan evaluates the same algorithms step for step over Go's math package; the real log, sin, ... of the " +
	"two are not correctly rounded; a part that cancels (much smaller than |f(z)|) is held to ULPs of |f(z)|"

// complexInverseReason is why the inverse functions are held closer:
// glibc's casin, cacos, catan, ... are ported step for step
// (kernels/complex_inverse.go), so only the real log, log1p, atan2 and
// hypot calls round differently.
const complexInverseReason = "TensorFlow's CPU kernel calls std::asin, std::acosh, ... of std::complex, which " +
	"libstdc++ hands to glibc's casin, cacosh, ... (math/s_casinh_template.c, k_casinh_template.c, " +
	"s_catan_template.c, ...; float steps for complex64); tfscan runs the same algorithms step for step, and " +
	"only the real log, log1p and atan2 (Go's math package, glibc's libm) may round differently: 1 ULP seen"

// complexLibm lists the complex ops held with complexLibmReason's
// tolerance.
var complexLibm = []string{"Cos", "Cosh", "Exp", "Expm1",
	"Log", "Log1p", "Sigmoid", "Sin", "Sinh", "Tan", "Tanh", "Pow", "Xlogy", "Xlog1py"}

// complexLibmWide are the complex128 functions farther from glibc's:
// cpow's error is that of clog times |y|; csin/ccos of a part near
// DBL_MAX reduce the argument differently.
var complexLibmWide = map[string]bool{"Pow": true, "Sin": true, "Cos": true, "Tan": true}

func init() {
	for _, op := range complexLibm {
		rules[op+" complex64"] = Rule{Tol: Tol{ULP: 4, Mod: 4}, Reason: complexLibmReason}
		r := Rule{Tol: Tol{ULP: 4, Mod: 4}, Reason: complexLibmReason}
		if complexLibmWide[op] {
			r = Rule{Tol: Tol{ULP: 4, Mod: 48}, Reason: complexLibmReason + "; cpow's error is clog's times |y|, " +
				"csin, ccos and ctan of a part near DBL_MAX " +
				"reduce the argument differently (as Sin and Tan float64): up to 39 ULP of |z| seen"}
		}
		rules[op+" complex128"] = r
	}
	for _, op := range []string{"Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh"} {
		for _, dt := range []string{" complex64", " complex128"} {
			rules[op+dt] = Rule{Tol: Tol{ULP: 2}, Reason: complexInverseReason}
		}
	}
	// Angle is std::arg, glibc's atan2f and atan2 (atan2 correctly rounded,
	// atan2f within 1 ULP); tfscan's is Go's math.Atan2.
	for _, k := range []string{"Angle complex64", "Angle complex128"} {
		rules[k] = Rule{Tol: Tol{ULP: 2}, Reason: "std::arg is glibc's atan2f and atan2, tfscan's Go's math.Atan2 " +
			"(evaluated in float64 for complex64); neither is correctly rounded everywhere: 1 ULP seen"}
	}
	// Reciprocal and Inv of a complex value are Eigen's complex division
	// (pdiv_complex, and Smith's for the last elements), not the float
	// reciprocal approximations: bit-identical, FTZ's flush of a scaled
	// part included (1/(FLT_MAX + i)).
	for _, k := range []string{"Reciprocal complex64", "Reciprocal complex128", "Inv complex64", "Inv complex128"} {
		rules[k] = Rule{Reason: "1/x of a complex value is Eigen's complex division as Div computes it " +
			"(pdiv_complex, Smith's after the last packet, with TensorFlow's FTZ flushing a subnormal scaled part), " +
			"not the float reciprocal's approximation: bit-identical"}
	}
}

// Float32 Sigmoid and Erf are Eigen's scalar_logistic_op<float> and
// generic_fast_erf_float ported in float32 (kernels/sigmoid.go, erf.go), and
// half and bfloat16 Erf widen to the latter as Eigen's do: bit-identical, so
// they have no tolerance; the keys override the elementwise rules for those
// dtypes only.
func init() {
	for _, k := range []string{"Sigmoid float32", "Erf float32", "Erf float16", "Erf bfloat16"} {
		rules[k] = Rule{Reason: "Eigen's float32 functor (scalar_logistic_op, generic_fast_erf_float) ported " +
			"operation for operation, packets and tail alike (kernels/sigmoid.go, erf.go): bit-identical"}
	}
}

func init() {
	for _, op := range []string{"_FusedConv3D", "_FusedDepthwiseConv2dNative"} {
		rules[op+" float32"] = Rule{Tol: sumTol["float32"], Reason: onednnReason}
	}
}

// RuleFor returns the rule of a case's op and dtype.
func RuleFor(c *Case) Rule {
	if r, ok := rules[c.Op+" "+c.DType()]; ok {
		return r
	}
	return rules[c.Op]
}

// Rules returns every rule by key, for the conformance report.
func Rules() map[string]Rule { return rules }
