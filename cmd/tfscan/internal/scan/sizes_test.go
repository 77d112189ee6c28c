package scan

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/dtype"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/graph/shape"
	"github.com/tfscan/tfscan/internal/testutil"
	"github.com/tfscan/tfscan/reports"
)

// sizeTargets are the targets whose transfer sizes are measured.
var sizeTargets = []string{"cuda", "rocm", "musa", "intel-xpu", "ascend"}

// sizeModels are the loadable corpus models and the generated ones, each
// with the nodes every transfer of unknown size must trace back to (by
// name): what static shape inference truly cannot know.
var sizeModels = []struct {
	path  string
	roots []string
}{
	{"tf/sm_half_plus_two_v1", nil},
	{"tf/sm_half_plus_two_pbtxt", nil},
	{"tf/sm_simple_while_loop", nil},
	// the signature's input "word" has an unknown rank
	{"tf/sm_static_hashtable", []string{"serving_default_word"}},
	{"tf/sm_x_plus_y_debuginfo", nil},
	// Placeholders a and b have no shape
	{"tf/gd_if_op", []string{"a", "b"}},
	{"tf/gd_lstm_layer_inference", nil},
	// the image input _Arg has no _output_shapes
	{"tf/gd_keras_imagenet_train", []string{"input_1_1"}},
	// an op no registry knows
	{"tf/gd_unknown_op", []string{"z"}},
	{"tf/mg_text_in_dot_pb", nil},
	{"tfjs/emotion", nil},
	{"tfjs/meet", nil},
	{"tfjs/mobilefacenet", nil},
	{"tfjs/centernet", nil},
	{"gen/convnet.meta", nil},
	{"gen/convnet_frozen.pb", nil},
	{"gen/convnet_saved_model", nil},
	{"gen/keras_pinned_frozen.pb", nil},
	// no variables/ beside it: nothing tells what the saver restores
	{"gen/keras_saved_model", []string{"RestoreV2"}},
	{"gen/resource_vars.pbtxt", nil},
	{"gen/string_ops_meta.pbtxt", nil},
	{"gen/tf2_while_saved_model", nil},
}

func sizeModelPath(t *testing.T, p string) string {
	if rest, ok := strings.CutPrefix(p, "gen/"); ok {
		return filepath.Join(testutil.RepoRoot(), "testdata", "models", rest)
	}
	return filepath.Join(testutil.Corpus(t), p)
}

// unknownTransfer is one transfer of unknown size and the node it traces
// back to.
type unknownTransfer struct {
	target, phase, src, op string
	io                     bool
	root                   *graph.Node
}

// placementSizes places a model on every size target, counting the step
// and then every phase, and returns each placement's counts and the
// transfers of unknown size.
func placementSizes(t *testing.T, path string) (rows []string, unknown []unknownTransfer) {
	ts, err := ResolveTargets(sizeTargets, nil)
	require.NoError(t, err)
	paths, _, err := ExpandPaths([]string{path})
	require.NoError(t, err)
	require.Len(t, paths, 1)
	_, g, err := Load(paths[0], nil)
	require.NoError(t, err)
	ckpt, err := shape.OpenCheckpoint(g.Model.VariablesPrefix)
	require.NoError(t, err)
	opts := Options{checkpoint: ckpt}
	sh := shape.Infer(g, shape.Options{Checkpoint: opts.checkpoint})
	byPath := map[string]*graph.Node{}
	for _, n := range g.Nodes {
		byPath[n.Path()] = n
	}
	for _, phase := range []string{"step", "all"} {
		counted, err := ParsePhases([]string{phase})
		require.NoError(t, err)
		nodes := PrepareNodes(g, nil, ts.withFrom()).WithPhases(g.Phases(""), counted)
		for _, tg := range ts.List {
			res, err := place(g, nodes, tg, ts, opts, nil, true)
			require.NoError(t, err)
			ops := map[string]int{}
			for _, x := range res.TransferList {
				if x.BytesKnown {
					continue
				}
				i := strings.LastIndex(x.Src, ":")
				n := byPath[x.Src[:i]]
				require.NotNil(t, n, x.Src)
				port := 0
				fmt.Sscanf(x.Src[i+1:], "%d", &port)
				u := unknownTransfer{target: tg.Name, phase: phase, src: x.Src, op: n.Op + x.Src[i:], io: x.IO, root: rootCause(sh, n, port, map[*graph.Node]bool{})}
				unknown = append(unknown, u)
				k := u.op
				if u.io {
					k += "(io)"
				}
				ops[k]++
			}
			var keys []string
			for k, v := range ops {
				keys = append(keys, fmt.Sprintf("%s=%d", k, v))
			}
			sort.Strings(keys)
			rows = append(rows, fmt.Sprintf("%-4s %-10s unknown %3d of %3d transfers + %2d io, %d bytes  %s",
				phase, tg.Name, res.UnknownBytes, res.Transfers, res.IOTransfers, res.TransferBytes, strings.Join(keys, " ")))
		}
	}
	return rows, unknown
}

// TestUnknownSizeTransfersHaveKnownCauses places every corpus and
// generated model on five targets (step, and every phase) and checks that
// each transfer left of unknown size traces back to what no shape rule can
// know: an input without a shape, an op no registry knows, a restore with
// no checkpoint. TFSCAN_MEASURE=1 prints the counts per model and target.
func TestUnknownSizeTransfersHaveKnownCauses(t *testing.T) {
	if testing.Short() {
		t.Skip("places 22 models 10 times each")
	}
	var report strings.Builder
	for _, m := range sizeModels {
		t.Run(m.path, func(t *testing.T) {
			rows, unknown := placementSizes(t, sizeModelPath(t, m.path))
			for _, r := range rows {
				fmt.Fprintf(&report, "%-30s %s\n", m.path, r)
			}
			roots := map[string]bool{}
			for _, u := range unknown {
				name := u.root.Name
				if u.root.Op == "RestoreV2" {
					name = "RestoreV2"
				}
				roots[name] = true
				assert.Contains(t, m.roots, name, "%s %s: %s (%s) traces to %s (%s)", u.target, u.phase, u.src, u.op, u.root.Path(), u.root.Op)
			}
			for _, r := range m.roots {
				assert.True(t, roots[r], "%s no longer leaves a transfer of unknown size: update sizeModels", r)
			}
		})
	}
	if os.Getenv("TFSCAN_MEASURE") != "" {
		t.Log("\n" + report.String())
	}
}

// inputShape is what inference knows of input i of n.
func inputShape(sh *shape.Shapes, n *graph.Node, i int) shape.Shape {
	in := n.Inputs[i]
	var t shape.Tensor
	ok := false
	if in.Node == nil {
		t, ok = sh.Arg(n.Func, int(in.Arg))
	} else {
		t, ok = sh.Output(in.Node, int(in.Output))
	}
	if !ok {
		return shape.Shape{UnknownRank: true}
	}
	return t.Shape
}

// rootCause is the first node up output port of n's data inputs
// (resources aside, whose handles are not what is missing) whose output
// is not fully known while its inputs' are, through function calls: into
// a callee's result, out of an argument to its first caller's input.
func rootCause(sh *shape.Shapes, n *graph.Node, port int, seen map[*graph.Node]bool) *graph.Node {
	seen[n] = true
	if len(n.Calls()) > 0 {
		f := n.Calls()[0]
		if outs := f.Def.GetSignature().GetOutputArg(); port < len(outs) {
			ret := f.Def.GetRet()[outs[port].GetName()]
			name, rest, _ := strings.Cut(ret, ":")
			for _, b := range f.Nodes {
				if b.Name == name && !seen[b] {
					p := 0
					if _, idx, ok := strings.Cut(rest, ":"); ok {
						fmt.Sscanf(idx, "%d", &p)
					}
					return rootCause(sh, b, p, seen)
				}
			}
		}
	}
	for i, in := range n.Inputs {
		if inputShape(sh, n, i).FullyKnown() || (i < len(n.InputTypes()) && dtype.Base(n.InputTypes()[i]) == tpb.DataType_DT_RESOURCE) {
			continue
		}
		for in.Node == nil && n.Func != nil && len(n.Func.Callers) > 0 {
			// an argument: what the first caller passes
			c := n.Func.Callers[0]
			k := int(in.Arg)
			if c.Op == "If" || c.Op == "StatelessIf" || c.Op == "Case" || c.Op == "StatelessCase" {
				k++
			}
			if k < 0 || k >= len(c.Inputs) {
				break
			}
			n, in = c, c.Inputs[k]
		}
		if in.Node == nil {
			continue
		}
		if seen[in.Node] {
			continue
		}
		return rootCause(sh, in.Node, int(in.Output), seen)
	}
	return n
}

// scanPlacement scans one model on cuda (no --from) and returns its
// placement.
func scanPlacement(t *testing.T, path string, phases ...string) *reports.Placement {
	t.Helper()
	rep, err := Run(context.Background(), Options{Paths: []string{path}, Targets: []string{"cuda"}, From: "none", Phases: phases, Jobs: 1, Version: "test"})
	require.NoError(t, err)
	require.Empty(t, rep.Errors)
	require.Len(t, rep.Models, 1)
	require.Len(t, rep.Models[0].Targets, 1)
	pl := rep.Models[0].Targets[0].Placement
	require.NotNil(t, pl)
	return pl
}

// Corpus models whose byte figures come from real shapes. centernet and
// meet are TF.js graph models: their constants (Reshape targets, Mean
// axes) are in the weight shards, and before those were read every
// transfer had an unknown size. Their outputs go back to the host: the
// io_bytes are the outputs' sizes as TensorFlow.js itself computes them
// running the models (../shared/oracle/run_model.js, batch 1): centernet
// wh 1x128x128x4, keypoints 1x128x128x80 and detections 1x100x6 float32;
// meet segment 1x144x256x2 float32. sm_half_plus_two_v1's signatures
// parse tf.Examples (ParseExample's dense x of shape [1], batch assumed
// 1) and its saver restores three float32 scalars, whose sizes its
// checkpoint records.
func TestCorpusTransferSizes(t *testing.T) {
	corpus := testutil.Corpus(t)
	for _, tc := range []struct {
		model   string
		phases  []string
		ioBytes int64
	}{
		{"tfjs/centernet", nil, 4 * (128*128*4 + 128*128*80 + 100*6)},
		{"tfjs/meet", nil, 4 * 144 * 256 * 2},
		{"tf/sm_half_plus_two_v1", nil, 2 * 4},
		{"tf/sm_half_plus_two_v1", []string{"all"}, 2 * 4},
	} {
		t.Run(tc.model+fmt.Sprint(tc.phases), func(t *testing.T) {
			pl := scanPlacement(t, filepath.Join(corpus, tc.model), tc.phases...)
			assert.Equal(t, 0, pl.UnknownSizeTransfers)
			assert.Equal(t, tc.ioBytes, pl.IOBytes)
			if tc.phases == nil {
				assert.Empty(t, pl.Warnings)
			}
		})
	}
}

// A checkpoint index that cannot be read does not stop the scan: every
// placement says it was not read (naming the file), and what the saver
// restores from it has no size, where the intact checkpoint gives every
// transfer one.
func TestUnreadableCheckpointIsNoted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "m")
	require.NoError(t, os.CopyFS(dir, os.DirFS(filepath.Join(testutil.Corpus(t), "tf", "sm_half_plus_two_v1"))))
	index := filepath.Join(dir, "variables", "variables.index")
	require.NoError(t, os.Chmod(index, 0o644))

	pl := scanPlacement(t, dir, "all")
	require.Equal(t, 0, pl.UnknownSizeTransfers)
	require.Empty(t, pl.Warnings)

	b, err := os.ReadFile(index)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(index, b[:len(b)/2], 0o644)) // cut short: no footer
	pl = scanPlacement(t, dir, "all")
	assert.Positive(t, pl.UnknownSizeTransfers)
	require.Len(t, pl.Warnings, 1)
	assert.Contains(t, pl.Warnings[0], "checkpoint not read ("+index+": ")
	assert.Contains(t, pl.Warnings[0], "what the model restores from it has no size")
}

// Where sizes are unknown the report says which sums leave them out:
// gd_if_op's Placeholders a and b have no shape, so their copies to the
// device (io) and the If's results have no size; transfer_bytes and
// io_bytes are lower bounds, and so the delta against cuda is between
// partial sums.
func TestPartialSizesAreMarked(t *testing.T) {
	rep, err := Run(context.Background(), Options{Paths: []string{filepath.Join(testutil.Corpus(t), "tf", "gd_if_op")},
		Targets: []string{"musa"}, From: "cuda", Jobs: 1, Version: "test"})
	require.NoError(t, err)
	require.Empty(t, rep.Errors)
	tg := rep.Models[0].Targets[0]
	pl := tg.Placement
	require.NotNil(t, pl)
	assert.Equal(t, 2, pl.UnknownSizeIOTransfers)
	assert.Equal(t, 4, pl.UnknownSizeTransfers)
	assert.True(t, pl.TransferBytesPartial())
	assert.True(t, pl.IOBytesPartial())
	require.NotNil(t, tg.Delta)
	assert.True(t, tg.Delta.TransferBytesPartial)

	// sizes all known: no mark
	pl = scanPlacement(t, filepath.Join(testutil.Corpus(t), "tfjs", "meet"))
	assert.False(t, pl.TransferBytesPartial())
	assert.False(t, pl.IOBytesPartial())
}
