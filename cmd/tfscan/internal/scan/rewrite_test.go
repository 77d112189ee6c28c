package scan

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/internal/testutil"
	"github.com/tfscan/tfscan/reports"
)

// rewriteCorpus are the shared corpus's readable models.
var rewriteCorpus = []string{
	"tf/gd_if_op/if_op.pbtxt", "tf/gd_keras_imagenet_train/keras_imagenet_main.pbtxt",
	"tf/gd_lstm_layer_inference/lstm_layer_inference.pbtxt", "tf/gd_unknown_op/test_graph_tfunknownop.pbtxt",
	"tf/mg_text_in_dot_pb/metrics_export_meta_graph.pb", "tf/sm_half_plus_two_pbtxt", "tf/sm_half_plus_two_v1",
	"tf/sm_simple_while_loop", "tf/sm_static_hashtable", "tf/sm_x_plus_y_debuginfo",
	"tfjs/emotion", "tfjs/meet", "tfjs/mobilefacenet", "tfjs/centernet",
}

// fallbackNodes counts, in a scan, the counted nodes without a kernel on
// the target that the placement puts on CPU: the figure rewrite must not
// make worse, read through the scan's own report rather than the planner.
func fallbackNodes(t *reports.Target) int {
	n := 0
	for i := range t.Nodes {
		nd := &t.Nodes[i]
		if t.Counts(nd) && !reports.IsCovered(nd.Reason) && t.LeavesDevice(nd) {
			n++
		}
	}
	return n
}

// TestRewriteCorpus rewrites every corpus model for musa, rocm, intel-xpu
// and ascend: the model is written, tfscan loads and scans it, it has no
// more fallback nodes than the original, and the proof held (Rewrite
// fails otherwise). On rocm, centernet loses its 62 _FusedConv2D nodes.
func TestRewriteCorpus(t *testing.T) {
	corpus := testutil.Corpus(t)
	for _, model := range rewriteCorpus {
		for _, target := range []string{"musa", "rocm", "intel-xpu", "ascend"} {
			t.Run(model+"/"+target, func(t *testing.T) {
				t.Parallel()
				if testing.Short() && (strings.Contains(model, "centernet") || strings.Contains(model, "keras_imagenet")) {
					t.Skip("seconds per target; skipped with -short")
				}
				path := filepath.Join(corpus, model)
				out := filepath.Join(t.TempDir(), filepath.Base(model))
				rep, err := Rewrite(context.Background(), RewriteOptions{Path: path, Target: target, Output: out, Seed: 1, Dim: 8, From: "none"})
				require.NoError(t, err)
				rw := rep.Models[0].Targets[0].Rewrite
				require.NotNil(t, rw)
				assert.LessOrEqual(t, rw.After.FallbackNodes, rw.Before.FallbackNodes)
				assert.LessOrEqual(t, rw.After.TransferBytes, rw.Before.TransferBytes+boolInt(rw.Before.UnplaceableNodes > rw.After.UnplaceableNodes)*rw.After.TransferBytes)
				assert.GreaterOrEqual(t, rw.After.CoveragePercent, rw.Before.CoveragePercent)
				for _, r := range rw.Rules {
					if r.Exactness == "exact" {
						assert.Zero(t, r.MaxAbsError, r.Rule)
					}
				}
				for _, run := range rw.Proof.Runs {
					assert.NotEmpty(t, run.Name)
				}
				// The written model loads, builds and scans; the scan agrees.
				// (The report holds the original's scan.)
				orig := rep.Models[0].Targets[0]
				again, err := Run(context.Background(), Options{Paths: []string{out}, Targets: []string{target}, From: "none"})
				require.NoError(t, err)
				require.Empty(t, again.Errors)
				before, after := fallbackNodes(orig), fallbackNodes(again.Models[0].Targets[0])
				assert.LessOrEqual(t, after, before, "fallback nodes in a scan of the written model")
				if model == "tfjs/centernet" && target == "rocm" {
					assert.Equal(t, 62, countOp(orig, "_FusedConv2D"))
					assert.Zero(t, countOp(again.Models[0].Targets[0], "_FusedConv2D"), "centernet on rocm loses its _FusedConv2D fallbacks")
					// The 15 _FusedDepthwiseConv2dNative nodes have CPU kernels
					// (oneDNN) but none on ROCm; the model pins them to CPU and a
					// rewritten node keeps its pin, so unfusing them would add
					// transfers and the planner leaves them (--clear-devices
					// takes them too).
					assert.Equal(t, countOp(orig, "_FusedDepthwiseConv2dNative"), after)
				}
			})
		}
	}
}

// bodyAcos is a GraphDef whose work is in a function body, as a TF2
// SavedModel's is: StatefulPartitionedCall → __inference_body_7, where a
// Const feeds Acos, which MUSA's pack has no kernel for.
const bodyAcos = `node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 4 } } } } }
node { name: "call" op: "StatefulPartitionedCall" input: "x"
  attr { key: "Tin" value { list { type: DT_FLOAT } } } attr { key: "Tout" value { list { type: DT_FLOAT } } }
  attr { key: "f" value { func { name: "__inference_body_7" } } } }
node { name: "y" op: "Identity" input: "call" attr { key: "T" value { type: DT_FLOAT } } }
library { function {
  signature { name: "__inference_body_7" input_arg { name: "a" type: DT_FLOAT } output_arg { name: "out" type: DT_FLOAT } }
  node_def { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 4 } } float_val: 0.5 float_val: -1 float_val: 0.25 float_val: 1 } } } }
  node_def { name: "acos" op: "Acos" input: "c:output:0" attr { key: "T" value { type: DT_FLOAT } } }
  node_def { name: "sum" op: "AddV2" input: "a" input: "acos:y:0" attr { key: "T" value { type: DT_FLOAT } } }
  ret { key: "out" value: "sum:z:0" }
} }
`

// TestRewriteFoldsFunctionBody: on musa, the Acos of a Const in a function
// body is folded into a Const of that body; the proof compares it; the
// written model scans with one fallback fewer.
func TestRewriteFoldsFunctionBody(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "body.pbtxt")
	require.NoError(t, os.WriteFile(path, []byte(bodyAcos), 0o644))
	out := filepath.Join(dir, "out.pbtxt")
	rep, err := Rewrite(context.Background(), RewriteOptions{Path: path, Target: "musa", Output: out, Seed: 1, Dim: 8, From: "none"})
	require.NoError(t, err)
	orig := rep.Models[0].Targets[0]
	rw := orig.Rewrite
	require.NotNil(t, rw)
	require.Len(t, rw.Rules, 1, "skipped: %+v", rw.Skipped)
	assert.Equal(t, "fold-constants", rw.Rules[0].Rule)
	assert.Equal(t, []string{"Acos"}, rw.Rules[0].Ops)
	assert.Equal(t, 1, rw.Rules[0].Checks, "the body's Acos, compared with its Const in the run")
	assert.Equal(t, 1, rw.Before.FallbackNodes)
	assert.Zero(t, rw.After.FallbackNodes)
	again, err := Run(context.Background(), Options{Paths: []string{out}, Targets: []string{"musa"}, From: "none"})
	require.NoError(t, err)
	require.Empty(t, again.Errors)
	assert.Equal(t, 1, fallbackNodes(orig))
	assert.Zero(t, fallbackNodes(again.Models[0].Targets[0]))
	assert.Zero(t, countOp(again.Models[0].Targets[0], "Acos"))
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func countOp(t *reports.Target, op string) int {
	n := 0
	for _, nd := range t.Nodes {
		if nd.Op == op {
			n++
		}
	}
	return n
}

// TestRewriteBadInput: usage problems before anything is read, a model
// that cannot be read, and nothing written on any of them.
func TestRewriteBadInput(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(testutil.RepoRoot(), "testdata", "models", "convnet_frozen.pb")
	// A copy: were the check missing, the rewrite would write into it.
	saved := filepath.Join(dir, "saved")
	require.NoError(t, os.CopyFS(saved, os.DirFS(filepath.Join(testutil.RepoRoot(), "testdata", "models", "convnet_saved_model"))))
	full := filepath.Join(dir, "full")
	require.NoError(t, os.MkdirAll(full, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(full, "x"), nil, 0o644))
	zero := filepath.Join(dir, "zero")
	require.NoError(t, os.WriteFile(zero, nil, 0o644))
	for _, tt := range []struct {
		name  string
		opts  RewriteOptions
		usage bool
		msg   string
	}{
		{"unknown rule", RewriteOptions{Path: model, Target: "musa", Rules: []string{"nope"}}, true, `unknown rewrite rule "nope"`},
		{"unknown target", RewriteOptions{Path: model, Target: "nope"}, true, `unknown target "nope"`},
		{"dump-only target", RewriteOptions{Path: model, Target: "cambricon-mlu"}, true, "has no public kernel registry"},
		{"output not empty", RewriteOptions{Path: model, Target: "musa", Output: full}, true, "output path exists and is a directory that is not empty"},
		{"output an empty file", RewriteOptions{Path: model, Target: "musa", Output: zero}, true, "output path exists and is a file"},
		{"output under a file", RewriteOptions{Path: model, Target: "musa", Output: filepath.Join(zero, "out")}, true, zero + " is a file, not a directory"},
		{"output inside the model", RewriteOptions{Path: saved, Target: "musa", Output: filepath.Join(saved, "rewritten")}, true, "output is inside the model directory"},
		{"unreadable model", RewriteOptions{Path: filepath.Join(dir, "missing.pb"), Target: "musa"}, false, "missing.pb"},
		{"unreadable inputs", RewriteOptions{Path: model, Target: "musa", Inputs: filepath.Join(dir, "missing.npz")}, false, "missing.npz: no such file or directory"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.opts.Output == "" {
				tt.opts.Output = filepath.Join(dir, "out-"+strings.ReplaceAll(tt.name, " ", "-"))
			}
			_, err := Rewrite(context.Background(), tt.opts)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.msg)
			var ue *UsageError
			assert.Equal(t, tt.usage, errors.As(err, &ue), "%v", err)
			switch {
			case tt.opts.Output == zero:
				fi, err := os.Stat(zero)
				require.NoError(t, err)
				assert.Zero(t, fi.Size(), "the empty file was written to")
			case tt.opts.Output != full:
				assert.NoFileExists(t, tt.opts.Output)
			}
		})
	}
}

// TestRewritePreviewPlacesAsCheck: check's preview places the model as
// check itself does. Centernet pins its 15 _FusedDepthwiseConv2dNative
// nodes to CPU, where unfusing them gains nothing; with --clear-devices
// they come loose and the preview counts them, as `tfscan rewrite
// --clear-devices` removes them (docs/rewrite.md).
func TestRewritePreviewPlacesAsCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds; skipped with -short")
	}
	path := filepath.Join(testutil.Corpus(t), "tfjs/centernet")
	for _, c := range []struct {
		clear bool
		want  int
	}{{false, 62}, {true, 77}} {
		rep, err := Run(context.Background(), Options{Paths: []string{path}, Targets: []string{"rocm"}, From: "none",
			RewritePreview: true, Placement: PlacementOptions{ClearDevices: c.clear}})
		require.NoError(t, err)
		got := rep.Models[0].Targets[0].RewriteRemovesFallback
		require.NotNil(t, got)
		assert.Equal(t, c.want, *got, "clear devices: %v", c.clear)
	}
}
