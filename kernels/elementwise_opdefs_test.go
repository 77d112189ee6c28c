package kernels

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/tfscan/tfscan/internal/testutil"

	"github.com/stretchr/testify/require"
)

// h8aOps lists the ops registered by the elementwise, comparison, cast,
// reduction and array files.
var h8aOps = []string{
	"Abs", "Neg", "Sign", "Square", "Sqrt", "Rsqrt", "Exp", "Expm1", "Log", "Log1p", "Sin", "Cos", "Tan",
	"Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Floor", "Ceil", "Round", "Rint",
	"Reciprocal", "Inv", "Erf", "Erfc", "Softplus", "Softsign", "IsNan", "IsInf", "IsFinite", "Invert",
	"Add", "AddV2", "Sub", "Mul", "Div", "RealDiv", "TruncateDiv", "FloorDiv", "FloorMod", "Mod",
	"TruncateMod", "Pow", "Maximum", "Minimum", "SquaredDifference", "DivNoNan", "MulNoNan", "Atan2",
	"Xlogy", "Xlog1py", "Xdivy", "AddN", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "LeftShift", "RightShift",
	"Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual", "LogicalAnd", "LogicalOr", "LogicalNot",
	"Cast", "Sum", "Mean", "Prod", "Max", "Min", "EuclideanNorm", "All", "Any", "ArgMax", "ArgMin",
	"Cumsum", "Cumprod", "Transpose", "ConjugateTranspose", "Shape", "ShapeN", "Size", "Rank", "Reshape",
	"ExpandDims", "Squeeze", "BroadcastArgs", "InvertPermutation", "ConcatV2", "Concat", "Pack", "Split",
	"SplitV", "Unpack", "Slice", "StridedSlice", "Pad", "PadV2", "MirrorPad", "Tile", "Reverse", "ReverseV2",
	"BroadcastTo", "Fill", "ZerosLike", "OnesLike", "Empty", "Range", "LinSpace", "Gather", "GatherV2",
	"GatherNd", "ScatterNd", "TensorScatterUpdate", "TensorScatterAdd", "TensorScatterSub",
	"TensorScatterMax", "TensorScatterMin", "OneHot", "Select", "SelectV2", "Where", "ClipByValue", "Unique",
}

// TestOpNamesExistInOpDefs checks every registered name against TF 2.15's
// op list, so that a misspelt registration cannot silently never match.
func TestOpNamesExistInOpDefs(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(testutil.Shared(t), "tf", "ops.pbtxt"))
	require.NoError(t, err)
	defs := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^  name: "([A-Za-z0-9_]+)"$`).FindAllSubmatch(raw, -1) {
		defs[string(m[1])] = true
	}
	require.Greater(t, len(defs), 1000)
	for _, op := range h8aOps {
		require.True(t, defs[op], "%s is not a TF 2.15 op", op)
		require.NotNil(t, Lookup(op), "%s has no kernel", op)
	}
}
