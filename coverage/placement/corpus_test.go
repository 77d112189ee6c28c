package placement_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/tfscan/tfscan/internal/testutil"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/coverage/placement"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/savedmodel"
)

// corpusDir is ../shared/corpus relative to the repo root; missing under
// CI=true is a failure.
func corpusDir(t testing.TB) string {
	t.Helper()
	return testutil.Corpus(t)
}

// corpusModels are the loadable models of ../shared/corpus (the BAD INPUT
// ones, sm_fuzz_const_no_value and gd_malformed, are left out).
var corpusModels = []string{
	"tf/sm_half_plus_two_v1", "tf/sm_half_plus_two_pbtxt", "tf/sm_simple_while_loop",
	"tf/sm_static_hashtable", "tf/sm_x_plus_y_debuginfo", "tf/gd_if_op/if_op.pbtxt",
	"tf/gd_lstm_layer_inference/lstm_layer_inference.pbtxt",
	"tf/gd_keras_imagenet_train/keras_imagenet_main.pbtxt",
	"tf/gd_unknown_op/test_graph_tfunknownop.pbtxt",
	"tf/mg_text_in_dot_pb/metrics_export_meta_graph.pb",
	"tfjs/emotion", "tfjs/meet", "tfjs/mobilefacenet", "tfjs/centernet",
}

// everything is a CPU matcher that has a kernel for every known op: the
// hand-made stand-in for a full CPU registry.
type everything struct{ dev string }

func (e everything) DeviceType() string { return e.dev }
func (e everything) Match(n *graph.Node) coverage.Match {
	if n.OpDef == nil {
		if len(n.Calls()) > 0 {
			return coverage.Match{Reason: coverage.ReasonFunctionCall}
		}
		return coverage.Match{Reason: coverage.ReasonUnknownOp}
	}
	return coverage.Match{Reason: coverage.ReasonCovered, Kernel: &kdpb.KernelDef{Op: n.Op, DeviceType: e.dev}}
}

// handMadeTarget is a small XPU registry: float math and conv, no strings,
// no int64, no resource ops.
func handMadeTarget() coverage.Matcher {
	f := []tpb.DataType{tpb.DataType_DT_FLOAT, tpb.DataType_DT_HALF}
	var ks []*kdpb.KernelDef
	for _, op := range []string{"MatMul", "Conv2D", "BiasAdd", "Relu", "Relu6", "AddV2", "Add", "Mul", "Sub",
		"Identity", "Reshape", "ConcatV2", "Sigmoid", "Tanh", "Softmax", "DepthwiseConv2dNative",
		"_FusedConv2D", "MaxPool", "AvgPool", "Mean", "Transpose", "Pad", "ResizeBilinear"} {
		ks = append(ks, &kdpb.KernelDef{Op: op, DeviceType: "XPU", Constraint: []*kdpb.KernelDef_AttrConstraint{{
			Name: "T", AllowedValues: listTypes(f)}}})
	}
	ks = append(ks, &kdpb.KernelDef{Op: "Const", DeviceType: "XPU", Constraint: []*kdpb.KernelDef_AttrConstraint{{
		Name: "dtype", AllowedValues: listTypes(f)}}})
	return coverage.NewIndex(&coverage.Pack{Name: "xpu", DeviceType: "XPU", Kernels: ks}, nil)
}

func TestCorpusSimulates(t *testing.T) {
	dir := corpusDir(t)
	targets := map[string]coverage.Matcher{"hand-made XPU": handMadeTarget()}
	packs, err := coverage.BuiltinPacks()
	require.NoError(t, err)
	var defaults *coverage.Pack
	for _, p := range packs {
		if p.Name == coverage.DefaultPackName {
			defaults = p
		}
	}
	for _, p := range packs {
		if p.DeviceType != coverage.DeviceDefault && p.DeviceType != "CPU" {
			targets["builtin "+p.Name] = coverage.NewIndex(p, defaults)
		}
	}
	cpu := coverage.Matcher(everything{"CPU"})
	for _, p := range packs {
		if p.DeviceType == "CPU" {
			cpu = coverage.NewIndex(p, defaults)
		}
	}
	for _, name := range corpusModels {
		t.Run(name, func(t *testing.T) {
			m, err := savedmodel.Load(filepath.Join(dir, name))
			require.NoError(t, err)
			mg := m.MetaGraphs[0]
			for tname, tm := range targets {
				var first []byte
				runs := 2
				if testing.Short() {
					runs = 1
				}
				for run := 0; run < runs; run++ {
					g, err := graph.Build(m, mg)
					require.NoError(t, err)
					r, err := placement.Simulate(g, tm, cpu, placement.Options{})
					require.NoError(t, err, tname)
					placed := 0
					for _, n := range r.Nodes {
						if n.Device != "" {
							placed++
						}
						assert.NotEmpty(t, n.Reasons, "%s %s", tname, n.Path)
					}
					assert.Equal(t, len(g.Nodes), placed, "%s: every node gets a device", tname)
					b, err := json.Marshal(r)
					require.NoError(t, err)
					if first == nil {
						first = b
					} else {
						assert.JSONEq(t, string(first), string(b), "%s: deterministic", tname)
						assert.Equal(t, string(first), string(b))
					}
				}
			}
		})
	}
}

// builtinIndex is the built-in pack name, indexed over the default pack.
func builtinIndex(t testing.TB, name string) *coverage.Index {
	t.Helper()
	defaults, err := coverage.BuiltinPack(coverage.DefaultPackName)
	require.NoError(t, err)
	p, err := coverage.BuiltinPack(name)
	require.NoError(t, err)
	return coverage.NewIndex(p, defaults)
}

func listTypes(ts []tpb.DataType) *attrValue {
	return &attrValue{Value: &attrList{List: &attrListValue{Type: ts}}}
}

type (
	attrValue     = attrpb.AttrValue
	attrList      = attrpb.AttrValue_List
	attrListValue = attrpb.AttrValue_ListValue
)
