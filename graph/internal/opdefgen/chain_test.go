package opdefgen

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	opdefpb "github.com/wamuir/graft/tensorflow/core/framework/op_def_go_proto"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
)

func TestParseRegistrations(t *testing.T) {
	const src = `
// A comment with REGISTER_OP("_Nope") inside.
#define BINARY_T() Input("x: T").Input("y: T").Output("z: T")
namespace {
constexpr auto kModeAttr = "mode: {'a', 'b'} = 'a'";
}
REGISTER_OP("_Fused")
    .Input("input: T")
    .Input("args: num_args * T")
    .Input("list: Tlist")
    .Input("var: Ref(float)")
    .Output("output: T")
    .Output("handle: resource")
    .Attr("T: {half, float, numbertype}")
    .Attr("Tlist: list(type) >= 0")
    .Attr("num_args: int >= 0")
    .Attr(GetPaddingAttrString())
    .Attr(kModeAttr)
    .Attr(absl::StrCat("fused_ops: list(string) ", "= []"))
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .Attr("epsilon: float = 0.0001")
    .Attr("shape: shape = { unknown_rank: true }")
    .Attr("dt: type = DT_FLOAT")
    .Attr("label: string = \"x\" \"y\"")
    .SetIsCommutative()
    .SetShapeFn([](InferenceContext* c) { return OkStatus(); /* ; */ })
    .Doc(R"doc(
Docs with ) and "quotes" and ;.
)doc");

REGISTER_OP("Public").Input("x: float");
REGISTER_OP("_Sub").BINARY_T().Attr("T: {int32}").SetDoNotOptimize();
`
	helpers := map[string]string{"GetPaddingAttrString": "padding: {'SAME', 'VALID'}"}
	ops, err := ParseRegistrations(src, withConstants(helpers, []byte(src)), isInternal)
	require.NoError(t, err)
	require.Len(t, ops, 2)

	want := &opdefpb.OpDef{}
	require.NoError(t, prototext.Unmarshal([]byte(`
name: "_Fused"
input_arg { name: "input" type_attr: "T" }
input_arg { name: "args" type_attr: "T" number_attr: "num_args" }
input_arg { name: "list" type_list_attr: "Tlist" }
input_arg { name: "var" type: DT_FLOAT is_ref: true }
output_arg { name: "output" type_attr: "T" }
output_arg { name: "handle" type: DT_RESOURCE }
attr { name: "T" type: "type" allowed_values { list {
  type: [DT_HALF, DT_FLOAT, DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, DT_INT16, DT_INT8, DT_COMPLEX64,
         DT_INT64, DT_QINT8, DT_QUINT8, DT_QINT32, DT_BFLOAT16, DT_QINT16, DT_QUINT16, DT_UINT16,
         DT_COMPLEX128, DT_HALF, DT_UINT32, DT_UINT64] } } }
attr { name: "Tlist" type: "list(type)" has_minimum: true minimum: 0 }
attr { name: "num_args" type: "int" has_minimum: true minimum: 0 }
attr { name: "padding" type: "string" allowed_values { list { s: ["SAME", "VALID"] } } }
attr { name: "mode" type: "string" default_value { s: "a" } allowed_values { list { s: ["a", "b"] } } }
attr { name: "fused_ops" type: "list(string)" default_value { list {} } }
attr { name: "dilations" type: "list(int)" default_value { list { i: [1, 1, 1, 1] } } }
attr { name: "epsilon" type: "float" default_value { f: 0.0001 } }
attr { name: "shape" type: "shape" default_value { shape { unknown_rank: true } } }
attr { name: "dt" type: "type" default_value { type: DT_FLOAT } }
attr { name: "label" type: "string" default_value { s: "xy" } }
is_commutative: true
is_stateful: true
`), want))
	assert.True(t, proto.Equal(want, ops[0]), "got %v", ops[0])

	sub := ops[1]
	assert.Equal(t, "_Sub", sub.Name)
	assert.Len(t, sub.InputArg, 2)
	assert.True(t, sub.IsStateful, "SetDoNotOptimize sets is_stateful")
}

func TestParseRegistrationsErrors(t *testing.T) {
	tests := map[string]string{
		"unknown helper":  `REGISTER_OP("_X").Attr(GetNothing());`,
		"unknown method":  `REGISTER_OP("_X").Frobnicate();`,
		"unknown attr":    `REGISTER_OP("_X").Input("x: T");`,
		"bad type":        `REGISTER_OP("_X").Attr("T: {floaty}");`,
		"bad default":     `REGISTER_OP("_X").Attr("n: int = x");`,
		"unterminated":    `REGISTER_OP("_X").Input("x: float"`,
		"list no bracket": `REGISTER_OP("_X").Attr("l: list(int) = 1");`,
	}
	for name, src := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := ParseRegistrations(src, nil, isInternal)
			assert.Error(t, err)
		})
	}
}

// TestRegenerate checks that the committed graph/opdefs files are exactly
// what the generator makes from the TensorFlow tree (`make opdefs-check`
// runs the same comparison).
func TestRegenerate(t *testing.T) {
	root := tfTree(t)
	res, err := Generate(root)
	require.NoError(t, err)
	pb, err := Encode(res)
	require.NoError(t, err)
	dir := filepath.Join("..", "..", "opdefs")
	got, err := os.ReadFile(filepath.Join(dir, "ops.pb"))
	require.NoError(t, err)
	assert.True(t, bytes.Equal(got, pb), "graph/opdefs/ops.pb is stale: run go generate ./graph/...")
	gotGo, err := os.ReadFile(filepath.Join(dir, "zz_generated.go"))
	require.NoError(t, err)
	assert.Equal(t, string(GoSource(res)), string(gotGo))
}
