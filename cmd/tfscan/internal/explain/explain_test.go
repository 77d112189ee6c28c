package explain

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/cmd/tfscan/internal/scan"
	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/internal/testutil"
	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/reports/jsonout"
	"github.com/tfscan/tfscan/reports/markdown"
	"github.com/tfscan/tfscan/reports/table"
	"github.com/tfscan/tfscan/tflog"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.json")

// models names a bundled model relative to the test's directory, so that
// goldens that quote the path are the same in every checkout.
func models(name string) string {
	return filepath.Join("..", "..", "..", "..", "testdata", "models", name)
}

// The logs in testdata are written from the templates tflog cites, about
// models the project generates (testdata/models) or holds here.
var cases = []struct {
	log, model, target string
}{
	{"xpu_run.log", models("convnet_frozen.pb"), "intel-xpu"},
	{"ascend_run.log", models("convnet_frozen.pb"), "ascend"},
	{"ascend_strings.log", models("string_ops_meta.pbtxt"), "ascend"},
	{"other_model.log", models("convnet_frozen.pb"), "intel-xpu"},
	{"pinned_run.log", filepath.Join("testdata", "pinned.pbtxt"), "intel-xpu"},
	{"resource_run.log", models("resource_vars.pbtxt"), "intel-xpu"},
}

func explainCase(t *testing.T, logName, model, target string, registries ...string) *reports.ExplainReport {
	t.Helper()
	return explainWith(t, logName, Options{Model: model, Target: target, Registries: registries, Version: "test"})
}

func explainWith(t *testing.T, logName string, opts Options) *reports.ExplainReport {
	t.Helper()
	model := opts.Model
	log, err := ReadLog(filepath.Join("testdata", logName), nil)
	require.NoError(t, err)
	log.Path = logName
	rep, err := Run(context.Background(), log, opts)
	require.NoError(t, err)
	rep.Model = filepath.Base(model)
	return rep
}

func TestExplainGolden(t *testing.T) {
	for _, c := range cases {
		t.Run(c.log, func(t *testing.T) {
			rep := explainCase(t, c.log, c.model, c.target)
			var got bytes.Buffer
			for ext, write := range map[string]func(io.Writer, *reports.ExplainReport) error{
				".golden.json": jsonout.WriteExplainJSON, ".golden.txt": table.WriteExplainTable, ".golden.md": markdown.WriteExplainMarkdown,
			} {
				var out bytes.Buffer
				require.NoError(t, write(&out, rep))
				golden := filepath.Join("testdata", strings.TrimSuffix(c.log, ".log")+ext)
				if *update {
					require.NoError(t, os.WriteFile(golden, out.Bytes(), 0o644))
				}
				want, err := os.ReadFile(golden)
				require.NoError(t, err, "go test ./cmd/tfscan/internal/explain -update")
				assert.Equal(t, string(want), out.String(), golden)
				if ext == ".golden.json" {
					got = out
				}
			}
			// the same input gives the same bytes
			var again bytes.Buffer
			require.NoError(t, jsonout.WriteExplainJSON(&again, explainCase(t, c.log, c.model, c.target)))
			assert.Equal(t, got.String(), again.String())
		})
	}
}

func find(t *testing.T, rep *reports.ExplainReport, kind, node string) reports.Explanation {
	t.Helper()
	for _, e := range rep.Explanations {
		if e.MessageKind == kind && (node == "" || e.Node == node || e.LoggedNode == node) {
			return e
		}
	}
	t.Fatalf("no %s explanation for %q in %+v", kind, node, rep.Explanations)
	return reports.Explanation{}
}

func fixKinds(e reports.Explanation) []string {
	var out []string
	for _, f := range e.Fixes {
		out = append(out, f.Kind)
	}
	return out
}

func TestExplainOutcomes(t *testing.T) {
	// intel-xpu's pack has a float32 Softmax; the log says the install does
	// not: tfscan disagrees and says how to learn the install's list.
	xpu := explainCase(t, "xpu_run.log", models("convnet_frozen.pb"), "intel-xpu")
	e := find(t, xpu, "explicit_device_unsatisfiable", "probs")
	require.NotNil(t, e.Agrees)
	assert.False(t, *e.Agrees)
	assert.Equal(t, "covered", e.Prediction.Reason)
	assert.Equal(t, []string{"float32"}, e.DTypes)
	assert.Equal(t, []string{"learn_registry", "live_dump", "soft_placement", "clear_devices"}, fixKinds(e))
	assert.Contains(t, e.Cause, "The log's XPU kernels of Softmax take T in {float16, bfloat16}.")
	assert.Equal(t, 2, xpu.UnparsedLines, "the reshape error and its [[{{node}}]] line")
	assert.Equal(t, 5, xpu.Summary.PlacementLines)
	assert.Equal(t, 1, xpu.Summary.PlacementNotFound, "_SOURCE")

	// Ascend: GE rejects the float16-only MaxPool in float32. Under the
	// pack's default (ascend910: allow_fp32_to_fp16) tfscan predicts it runs
	// in float16, so the run kept float32: the explanation says so.
	asc := explainCase(t, "ascend_run.log", models("convnet_frozen.pb"), "ascend")
	ge := find(t, asc, "ge_op_unsupported", "pool1/MaxPool")
	require.NotNil(t, ge.Agrees)
	assert.False(t, *ge.Agrees)
	assert.Equal(t, "covered_lower_precision", ge.Prediction.Reason)
	assert.Contains(t, ge.Cause, "under precision_mode allow_fp32_to_fp16 (the target's stack.assumed says why); this run kept float32")
	assert.Equal(t, []string{"precision_mode", "stack_option"}, fixKinds(ge))
	assert.Equal(t, "precision_mode=allow_fp32_to_fp16", ge.Fixes[0].Option)
	// Told the run's mode, tfscan predicts the graph engine's error.
	asc = explainWith(t, "ascend_run.log", Options{Model: models("convnet_frozen.pb"), Target: "ascend", Version: "test",
		Stack: coverage.StackSettings{PrecisionMode: "must_keep_origin_dtype"}})
	ge = find(t, asc, "ge_op_unsupported", "pool1/MaxPool")
	require.NotNil(t, ge.Agrees)
	assert.True(t, *ge.Agrees)
	assert.Equal(t, "precision_mode_error", ge.Prediction.Reason)
	assert.Equal(t, 2, ge.Count, "EZ3002 and GE's own log line are one explanation")
	assert.Equal(t, []string{"kernel_wishlist", "precision_mode", "stack_option"}, fixKinds(ge))
	assert.Equal(t, "precision_mode=allow_fp32_to_fp16", ge.Fixes[1].Option)

	// tf_adapter leaves StringJoin to the host (IsWhiteListSupport refuses
	// it by name): tfscan's Ascend pack has no StringJoin either
	str := explainCase(t, "ascend_strings.log", models("string_ops_meta.pbtxt"), "ascend")
	require.Len(t, str.Explanations, 3)
	for _, e := range str.Explanations {
		require.NotNil(t, e.Agrees, e.MessageKind)
		assert.True(t, *e.Agrees, e.MessageKind)
		assert.Equal(t, "joined", e.Node)
		assert.Equal(t, "no_kernel", e.Prediction.Reason)
	}

	// a log of another model: every message says so, nothing is guessed
	other := explainCase(t, "other_model.log", models("convnet_frozen.pb"), "intel-xpu")
	require.Len(t, other.Explanations, 1)
	nf := other.Explanations[0]
	require.NotNil(t, nf.Found)
	assert.False(t, *nf.Found)
	assert.Nil(t, nf.Prediction)
	assert.Nil(t, nf.Agrees)
	assert.Equal(t, "model/block_1/erf", nf.LoggedNode)
	assert.Equal(t, 1, other.Summary.NotFound)
	assert.Equal(t, 2, other.Summary.PlacementNotFound)

	// a pin in the model, a custom op: both known to tfscan
	pin := explainCase(t, "pinned_run.log", filepath.Join("testdata", "pinned.pbtxt"), "intel-xpu")
	dev := find(t, pin, "device_not_available", "x")
	assert.True(t, *dev.Agrees)
	assert.Equal(t, []string{"soft_placement", "clear_devices"}, fixKinds(dev))
	assert.Contains(t, dev.Fixes[1].Text, `"/device:GPU:0" on x`)
	op := find(t, pin, "op_not_registered", "gelu")
	assert.True(t, *op.Agrees)
	assert.Equal(t, "tensorflow-addons", op.Fixes[0].Library)
}

// A learned pack changes the scan: the log's kernel list replaces the
// intel-xpu pack's for Softmax, and the same log then agrees.
func TestLearnedPackChangesPrediction(t *testing.T) {
	log, err := ReadLog(filepath.Join("testdata", "xpu_run.log"), nil)
	require.NoError(t, err)
	p, skipped := LearnPack(log, "XPU", "kernel")
	assert.Empty(t, skipped)
	assert.Equal(t, "learned-xpu_run", p.Name)
	assert.True(t, strings.HasPrefix(p.Source, "log xpu_run.log sha256:"), p.Source)
	file := filepath.Join(t.TempDir(), "learned.json")
	var buf bytes.Buffer
	require.NoError(t, coverage.WritePack(&buf, p))
	require.NoError(t, os.WriteFile(file, buf.Bytes(), 0o644))

	before := scanProbs(t, nil)
	after := scanProbs(t, []string{file})
	assert.Equal(t, "covered", before.Reason)
	assert.Equal(t, "XPU:0", before.Device)
	assert.Equal(t, "no_kernel_for_dtype", after.Reason)
	assert.Equal(t, "CPU:0", after.Device)

	rep := explainCase(t, "xpu_run.log", models("convnet_frozen.pb"), "intel-xpu", file)
	e := find(t, rep, "explicit_device_unsatisfiable", "probs")
	assert.True(t, *e.Agrees)
	pl := find(t, rep, "placement", "probs")
	assert.True(t, *pl.Agrees, "the CPU placement of probs is now predicted")
	assert.Equal(t, []string{"log xpu_run.log sha256:" + log.SHA256}, rep.Registry.LearnedFrom)
}

func scanProbs(t *testing.T, registries []string) reports.NodeResult {
	t.Helper()
	rep, err := scan.Run(context.Background(), scan.Options{Paths: []string{models("convnet_frozen.pb")}, Targets: []string{"intel-xpu"}, Registries: registries, Jobs: 1, AllNodes: true})
	require.NoError(t, err)
	for _, n := range rep.Models[0].Targets[0].Nodes {
		if n.Path == "probs" {
			return n
		}
	}
	t.Fatal("no probs")
	return reports.NodeResult{}
}

// tfscan's own predicted placement errors are in TensorFlow's words: tflog
// reads them back, and explain agrees with itself.
func TestPredictedErrorsReadBack(t *testing.T) {
	model := filepath.Join("testdata", "pinned.pbtxt")
	rep, err := scan.Run(context.Background(), scan.Options{Paths: []string{model}, Targets: []string{"intel-xpu"}, Jobs: 1,
		Placement: scan.PlacementOptions{NoSoftPlacement: true}})
	require.NoError(t, err)
	predicted := rep.Models[0].Targets[0].Placement.Error
	require.NotEmpty(t, predicted)
	l, err := tflog.Parse(strings.NewReader(predicted))
	require.NoError(t, err)
	require.Len(t, l.Messages, 1, predicted)
	assert.Equal(t, 0, l.Unparsed)
	m := l.Messages[0]
	assert.Equal(t, "x", m.Node)
	assert.Equal(t, tflog.KindDeviceNotAvailable, m.Kind)

	log := &Log{Log: l, Path: "predicted", SHA256: "-"}
	ex, err := Run(context.Background(), log, Options{Model: model, Target: "intel-xpu", Placement: scan.PlacementOptions{NoSoftPlacement: true}})
	require.NoError(t, err)
	require.Len(t, ex.Explanations, 1)
	assert.True(t, *ex.Explanations[0].Agrees)
}

// Learning from tfscan's own predicted "No OpKernel" error, whose kernel
// list placement renders from the packs as TensorFlow does, gives back the
// packs' kernels: merged over them it changes no match.
func TestLearningFromPredictedErrorsChangesNothing(t *testing.T) {
	model := filepath.Join("testdata", "erf_complex.pbtxt")
	rep, err := scan.Run(context.Background(), scan.Options{Paths: []string{model}, Targets: []string{"intel-xpu"}, Jobs: 1,
		Placement: scan.PlacementOptions{NoSoftPlacement: true}})
	require.NoError(t, err)
	predicted := rep.Models[0].Targets[0].Placement.Error
	l, err := tflog.Parse(strings.NewReader(predicted))
	require.NoError(t, err)
	require.Len(t, l.Messages, 1, predicted)
	m := l.Messages[0]
	assert.Equal(t, tflog.KindNoOpKernel, m.Kind)
	require.True(t, m.KernelsListed, predicted)
	assert.False(t, m.KernelsElided)
	require.NotEmpty(t, m.Kernels)

	learned, skipped := coverage.LearnFromLog(l, coverage.LearnOptions{Name: "self", DeviceType: "XPU", Source: "predicted"})
	require.Empty(t, skipped)
	require.Len(t, learned.Complete, 1)
	defaults, err := coverage.BuiltinPack("default")
	require.NoError(t, err)
	for _, name := range []string{"intel-xpu", "cpu"} {
		base, err := coverage.BuiltinPack(name)
		require.NoError(t, err)
		merged := coverage.MergeLearned(base, []*coverage.Pack{learned}, defaults)
		require.NotSame(t, base, merged, name)
		before, after := coverage.NewIndex(base, defaults), coverage.NewIndex(merged, defaults)
		for _, dt := range []tpb.DataType{tpb.DataType_DT_FLOAT, tpb.DataType_DT_DOUBLE, tpb.DataType_DT_HALF, tpb.DataType_DT_BFLOAT16, tpb.DataType_DT_COMPLEX64, tpb.DataType_DT_INT32} {
			n := &graph.Node{Name: "e", Op: "Erf", Attrs: map[string]*attrpb.AttrValue{"T": {Value: &attrpb.AttrValue_Type{Type: dt}}}}
			assert.Equal(t, before.Match(n).Reason, after.Match(n).Reason, "%s %s", name, dt)
		}
	}
}

func TestResolveInlinedNames(t *testing.T) {
	x := &explainer{byName: map[string][]*graph.Node{}}
	a := &graph.Node{Name: "model/dense/MatMul", Op: "MatMul"}
	b := &graph.Node{Name: "MatMul", Op: "MatMul"}
	x.byName[a.Name] = []*graph.Node{a}
	x.byName[b.Name] = []*graph.Node{b}
	assert.Equal(t, []*graph.Node{a}, x.nodes("StatefulPartitionedCall/model/dense/MatMul", "MatMul"))
	assert.Equal(t, []*graph.Node{a}, x.nodes("model/dense/MatMul", ""))
	assert.Empty(t, x.nodes("model/dense/MatMul", "Conv2D"), "another op is another node")
	assert.Empty(t, x.nodes("nothing/here", ""))
}

// Every golden satisfies the explain schema, and the schema's kind list is
// tflog's.
func TestGoldensMatchSchema(t *testing.T) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(reports.ExplainSchema()))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	require.NoError(t, c.AddResource("explain.schema.json", doc))
	s, err := c.Compile("explain.schema.json")
	require.NoError(t, err)
	files, err := filepath.Glob(filepath.Join("testdata", "*.golden.json"))
	require.NoError(t, err)
	require.Len(t, files, len(cases))
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		require.NoError(t, err)
		require.NoError(t, s.Validate(v), f)
	}
	var schema struct {
		Defs struct {
			Explanation struct {
				Properties struct {
					Kind struct {
						Enum []string `json:"enum"`
					} `json:"message_kind"`
				} `json:"properties"`
			} `json:"explanation"`
		} `json:"$defs"`
	}
	require.NoError(t, json.Unmarshal(reports.ExplainSchema(), &schema))
	assert.ElementsMatch(t, schema.Defs.Explanation.Properties.Kind.Enum, tflog.Kinds())
}

// FuzzExplain feeds arbitrary logs through the parser and the explainer of
// one scanned model: every message gets a cause, nothing panics.
func FuzzExplain(f *testing.F) {
	for _, c := range cases {
		b, err := os.ReadFile(filepath.Join("testdata", c.log))
		require.NoError(f, err)
		f.Add(string(b))
	}
	for _, name := range []string{"tf_graph_errors.log", "tf_soft_placement.log", "ascend_tf1.log"} {
		b, err := os.ReadFile(filepath.Join(testutil.RepoRoot(), "tflog", "testdata", name))
		require.NoError(f, err)
		f.Add(string(b))
	}
	ts, err := scan.ResolveTargets([]string{"ascend"}, nil)
	require.NoError(f, err)
	sm, err := scan.ScanModel(models("convnet_frozen.pb"), ts, scan.Options{Targets: []string{"ascend"}})
	require.NoError(f, err)
	x := newExplainer(sm.Graph, sm.Model.Targets[0], Options{Model: "m", Target: "ascend"})
	f.Fuzz(func(t *testing.T, s string) {
		l, err := tflog.Parse(strings.NewReader(s))
		if err != nil {
			return
		}
		for _, m := range l.Messages {
			if e := x.message(m); e.Cause == "" {
				t.Fatalf("no cause for %+v", m)
			}
		}
		var sum reports.ExplainSummary
		for _, p := range l.Placements {
			x.placement(p, false, &sum)
		}
		for _, p := range l.Eager {
			x.placement(p, true, &sum)
		}
	})
}

// TestRewriteFixPlansAsRewrite: explain's rewrite fix is planned as
// `tfscan rewrite` plans, with explain's settings, and its command line
// carries them. Centernet pins its 15 _FusedDepthwiseConv2dNative nodes to
// CPU: rewrite leaves them (unfusing adds transfers) unless the pins go,
// which the run's import with clear_devices=True does (docs/rewrite.md).
func TestRewriteFixPlansAsRewrite(t *testing.T) {
	noKernel := func(op, node, dev string) string {
		return "2024-01-01 00:00:00.000000: E tensorflow/core/common_runtime/executor.cc:1197] No OpKernel was registered to support Op '" + op +
			"' used by {{node " + node + "}} with these attrs: [T=DT_FLOAT]\nRegistered devices: [CPU, " + dev + "]\nRegistered kernels:\n  device='CPU'; T in [DT_FLOAT]\n"
	}
	centernet := filepath.Join(testutil.Shared(t), "corpus", "tfjs", "centernet")
	for _, tc := range []struct {
		name, log string
		opts      Options
		want      string // the rewrite fix's text, "" for none
	}{
		{name: "stack defaults", log: noKernel("_FusedConv2D", "conv", "NPU"),
			opts: Options{Model: filepath.Join("testdata", "fused.pbtxt"), Target: "ascend"},
			want: "tfscan rewrite MODEL --target ascend -o OUT replaces it by Conv2D, BiasAdd, Relu6, which ascend has kernels for (unfuse-conv2d, "},
		{name: "precision mode and stack option", log: noKernel("_FusedConv2D", "conv", "NPU"),
			opts: Options{Model: filepath.Join("testdata", "fused.pbtxt"), Target: "ascend",
				Stack: coverage.StackSettings{PrecisionMode: "must_keep_origin_dtype", Options: map[string]string{"soc": "ascend910b"}}},
			want: "tfscan rewrite MODEL --target ascend -o OUT --precision-mode must_keep_origin_dtype --stack-option soc=ascend910b replaces it by Conv2D, "},
		{name: "pinned depthwise", log: noKernel("_FusedDepthwiseConv2dNative", "tower_0/MobilenetV3/expanded_conv/depthwise/depthwise", "GPU"),
			opts: Options{Model: centernet, Target: "rocm"}},
		{name: "pinned depthwise, pins cleared", log: noKernel("_FusedDepthwiseConv2dNative", "tower_0/MobilenetV3/expanded_conv/depthwise/depthwise", "GPU"),
			opts: Options{Model: centernet, Target: "rocm", Placement: scan.PlacementOptions{ClearDevices: true}},
			want: "tfscan rewrite MODEL --target rocm -o OUT --clear-devices replaces it by DepthwiseConv2dNative, BiasAdd, Relu, which rocm has kernels for (unfuse-depthwise, "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "run.log")
			require.NoError(t, os.WriteFile(file, []byte(tc.log), 0o644))
			log, err := ReadLog(file, nil)
			require.NoError(t, err)
			tc.opts.RewriteFixes = true
			rep, err := Run(context.Background(), log, tc.opts)
			require.NoError(t, err)
			require.Len(t, rep.Explanations, 1)
			e := rep.Explanations[0]
			require.Equal(t, "no_kernel", e.Prediction.Reason, "the node lacks a kernel")
			var got []string
			for _, f := range e.Fixes {
				if f.Kind == reports.FixRewrite {
					got = append(got, f.Text)
				}
			}
			if tc.want == "" {
				assert.Empty(t, got, "rewrite leaves the node: no rewrite fix")
				return
			}
			require.Len(t, got, 1)
			assert.True(t, strings.HasPrefix(got[0], tc.want), "%s", got[0])
		})
	}
}
