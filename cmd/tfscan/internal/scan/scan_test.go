package scan

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/internal/testutil"
	"github.com/tfscan/tfscan/reports"
)

func TestRunIsDeterministic(t *testing.T) {
	corpus := testutil.Corpus(t)
	opts := Options{
		Paths:   []string{filepath.Join(corpus, "tf"), filepath.Join(corpus, "tfjs", "emotion")},
		Targets: []string{"cuda", "cpu"},
		Jobs:    2,
	}
	// The tf/ directory holds two bad models; scan them apart.
	opts.Paths = []string{
		filepath.Join(corpus, "tf", "gd_if_op"),
		filepath.Join(corpus, "tf", "sm_half_plus_two_v1"),
		filepath.Join(corpus, "tf", "sm_static_hashtable"),
		filepath.Join(corpus, "tfjs", "emotion"),
	}
	var outs [2][]byte
	for i := range outs {
		rep, err := Run(context.Background(), opts)
		require.NoError(t, err)
		require.Len(t, rep.Models, 4)
		outs[i], err = json.Marshal(rep)
		require.NoError(t, err)
	}
	assert.True(t, bytes.Equal(outs[0], outs[1]), "two scans of the same models differ")
}

func TestRunFlagsHostOnlyOpsOnGPU(t *testing.T) {
	corpus := testutil.Corpus(t)
	rep, err := Run(context.Background(), Options{
		Paths:   []string{filepath.Join(corpus, "tf", "sm_static_hashtable")},
		Targets: []string{"cuda"},
	})
	require.NoError(t, err)
	tgt := rep.Models[0].Targets[0]
	uncovered := map[string]string{}
	for _, u := range tgt.Uncovered {
		uncovered[u.Op] = u.Reason
	}
	// Hash tables have CPU kernels only (tensorflow/core/kernels/lookup_table_op.cc).
	assert.Equal(t, "no_kernel", uncovered["LookupTableFindV2"])
	assert.Less(t, tgt.Coverage.NodesCovered, tgt.Coverage.NodesTotal)
}

func TestRunSignatureScope(t *testing.T) {
	corpus := testutil.Corpus(t)
	path := filepath.Join(corpus, "tf", "sm_half_plus_two_v1")
	all, err := Run(context.Background(), Options{Paths: []string{path}, Targets: []string{"cpu"}})
	require.NoError(t, err)
	one, err := Run(context.Background(), Options{Paths: []string{path}, Targets: []string{"cpu"}, Signature: "regress_x_to_y"})
	require.NoError(t, err)
	assert.Less(t, one.Models[0].Targets[0].Coverage.NodesTotal, all.Models[0].Targets[0].Coverage.NodesTotal)

	rep, err := Run(context.Background(), Options{Paths: []string{path}, Targets: []string{"cpu"}, Signature: "nope"})
	require.NoError(t, err)
	require.Empty(t, rep.Models)
	require.Len(t, rep.Errors, 1)
	assert.Contains(t, rep.Errors[0].Message, `no signature "nope"`)
}

func TestRunErrors(t *testing.T) {
	corpus := testutil.Corpus(t)
	var ue *UsageError
	_, err := Run(context.Background(), Options{Paths: []string{filepath.Join(corpus, "tf", "gd_if_op")}, Targets: []string{"no-such-target"}})
	require.True(t, errors.As(err, &ue), "got %v", err)
	_, err = Run(context.Background(), Options{Paths: []string{filepath.Join(corpus, "tf", "gd_if_op")}})
	require.True(t, errors.As(err, &ue), "got %v", err)

	for _, bad := range []string{"gd_malformed", "sm_fuzz_const_no_value", "does_not_exist"} {
		path := filepath.Join(corpus, "tf", bad)
		rep, err := Run(context.Background(), Options{Paths: []string{path}, Targets: []string{"cpu"}})
		require.NoError(t, err, bad)
		require.Empty(t, rep.Models, bad)
		require.Len(t, rep.Errors, 1, bad)
		assert.Equal(t, path, rep.Errors[0].Path)
		assert.Equal(t, reports.ErrorClassModel, rep.Errors[0].Class)
		assert.Contains(t, rep.Errors[0].Message, path)
	}
}

// TestModelErrorNamesTheFileOnce: an error that already names the file
// inside the model path is not prefixed with the path again.
func TestModelErrorNamesTheFileOnce(t *testing.T) {
	corpus := testutil.Corpus(t)
	path := filepath.Join(corpus, "tf", "sm_half_plus_two_v1")
	rep, err := Run(context.Background(), Options{Paths: []string{path}, Targets: []string{"cpu"}, Tags: []string{"nope"}})
	require.NoError(t, err)
	require.Len(t, rep.Errors, 1)
	msg := rep.Errors[0].Message
	assert.Equal(t, 1, strings.Count(msg, path), "got %v", msg)
	assert.Contains(t, msg, "no meta graph tagged [nope]")

	for _, tc := range []struct {
		err  *ModelError
		want string
	}{
		{&ModelError{Path: "m", Err: errors.New("m/saved_model.pb: bad")}, "m/saved_model.pb: bad"},
		{&ModelError{Path: "m", Err: errors.New("bad")}, "m: bad"},
	} {
		assert.Equal(t, tc.want, tc.err.Error())
	}
}

// corpusModels are the readable models of ../shared/corpus.
func corpusModels(t *testing.T) []string {
	corpus := testutil.Corpus(t)
	var out []string
	for _, m := range []string{
		"tf/gd_if_op", "tf/gd_keras_imagenet_train", "tf/gd_lstm_layer_inference", "tf/gd_unknown_op",
		"tf/mg_text_in_dot_pb", "tf/sm_half_plus_two_pbtxt", "tf/sm_half_plus_two_v1", "tf/sm_simple_while_loop",
		"tf/sm_static_hashtable", "tf/sm_x_plus_y_debuginfo",
		"tfjs/centernet", "tfjs/emotion", "tfjs/meet", "tfjs/mobilefacenet",
	} {
		out = append(out, filepath.Join(corpus, m))
	}
	return out
}

// TestCorpusAgainstEveryPack scans every corpus model against every built-in
// pack, placement included, and checks what must hold whatever the vendor:
// host-only op families (strings, hash tables, example parsing) never count
// as covered on TensorFlow's own accelerator builds.
func TestCorpusAgainstEveryPack(t *testing.T) {
	if testing.Short() {
		t.Skip("scans the whole corpus against every pack")
	}
	packs, err := coverage.BuiltinPacks()
	require.NoError(t, err)
	var targets []string
	for _, p := range packs {
		if p.Name != "default" {
			targets = append(targets, p.Name)
		}
	}
	rep, err := Run(context.Background(), Options{Paths: corpusModels(t), Targets: targets, Jobs: 2, AllNodes: true})
	require.NoError(t, err)
	att, err := Run(context.Background(), Options{Paths: corpusModels(t), Targets: targets, Jobs: 2})
	require.NoError(t, err)
	checkAttention(t, rep, att)
	hostOnly := map[string]bool{
		"StringJoin": true, "LookupTableFindV2": true, "HashTableV2": true,
		"LookupTableImportV2": true, "ParseExample": true,
	} // FIFOQueueV2 and QueueDequeueV2 have DEFAULT kernels (fifo_queue_op.cc:24, queue_ops.cc:63)
	seen := map[string]bool{}
	for _, m := range rep.Models {
		for _, tg := range m.Targets {
			require.Equal(t, tg.Coverage.NodesTotal, len(tg.Nodes), "%s on %s", m.Path, tg.Target)
			if tg.Target != "cuda" && tg.Target != "rocm" && tg.Target != "xla" {
				// Vendor packs are the vendors' own data: MUSA registers
				// StringJoin with host memory, Ascend's AI CPU has hash
				// tables.
				continue
			}
			for _, n := range tg.Nodes {
				if hostOnly[n.Op] {
					seen[n.Op] = true
					assert.NotContains(t, []string{"covered", "covered_default"}, n.Reason, "%s %s on %s", m.Path, n.Path, tg.Target)
				}
			}
		}
	}
	assert.True(t, seen["StringJoin"] && seen["LookupTableFindV2"], "corpus host-only ops not seen: %v", seen)
}

// TestRunPhases checks that one row has one denominator: on cuda,
// sm_static_hashtable's step is 8 nodes (the lookup and what it needs), of
// which the hash table and the lookup fall back to CPU; the saver, the
// restore function and the table initialisation are counted apart, and
// only with --phase all.
func TestRunPhases(t *testing.T) {
	corpus := testutil.Corpus(t)
	path := filepath.Join(corpus, "tf", "sm_static_hashtable")
	run := func(phases ...string) *reports.Target {
		rep, err := Run(context.Background(), Options{Paths: []string{path}, Targets: []string{"cuda"}, Phases: phases})
		require.NoError(t, err)
		return rep.Models[0].Targets[0]
	}
	step := run()
	total, covered := step.CountedNodes()
	assert.Equal(t, []string{"step"}, step.Coverage.Phases)
	assert.Equal(t, 8, total)
	assert.Equal(t, 6, covered)
	assert.Equal(t, 2, step.FallbackNodes())
	assert.Equal(t, map[string]reports.PhaseCount{"step": {Nodes: 8, Covered: 6}, "load": {Nodes: 25, Covered: 18},
		"save": {Nodes: 17, Covered: 5}, "unreachable": {Nodes: 6, Covered: 5}}, step.Coverage.ByPhase)
	for _, is := range step.Islands {
		for _, n := range is.Nodes {
			assert.NotContains(t, n, "__traced_", "an island of the saver")
		}
	}
	// Uncovered groups of the step come first.
	require.NotEmpty(t, step.Uncovered)
	assert.Equal(t, "step", step.Uncovered[0].Phase)

	all := run("all")
	total, covered = all.CountedNodes()
	assert.Equal(t, 56, total)
	assert.Equal(t, 34, covered)
	assert.LessOrEqual(t, all.FallbackNodes(), total)
	assert.Greater(t, all.FallbackNodes(), step.FallbackNodes())

	_, err := Run(context.Background(), Options{Paths: []string{path}, Targets: []string{"cuda"}, Phases: []string{"steps"}})
	var ue *UsageError
	require.True(t, errors.As(err, &ue), "got %v", err)
	assert.Contains(t, err.Error(), `--phase "steps"`)
}

// checkAttention compares a scan that lists every node (all) with the same
// scan listing only the nodes that need attention (att): everything but
// the list and the recorded --nodes is the same, the list is all's nodes
// that need attention, and Ops counts every counted node of all's.
func checkAttention(t *testing.T, all, att *reports.Report) {
	t.Helper()
	require.Equal(t, reports.NodesAll, all.Options.Nodes)
	require.Equal(t, reports.NodesAttention, att.Options.Nodes)
	require.Len(t, att.Models, len(all.Models))
	listed, total := 0, 0
	for i, m := range all.Models {
		am := att.Models[i]
		require.Equal(t, m.Path, am.Path)
		for j, tg := range m.Targets {
			at := am.Targets[j]
			var want []reports.NodeResult
			for k := range tg.Nodes {
				if tg.NeedsAttention(&tg.Nodes[k], attentionFlags(m, tg)) {
					want = append(want, tg.Nodes[k])
				}
			}
			require.Equal(t, want, nonNilNodes(at.Nodes), "%s on %s", m.Path, tg.Target)
			require.Equal(t, tg.CountOps(), tg.Ops, "%s on %s: Ops counts the counted nodes", m.Path, tg.Target)
			a, b := *tg, *at
			a.Nodes, b.Nodes = nil, nil
			require.Equal(t, a, b, "%s on %s: only the list differs", m.Path, tg.Target)
			listed += len(at.Nodes)
			total += len(tg.Nodes)
		}
	}
	require.Less(t, listed, total/2, "the corpus is mostly fine: most nodes need no attention")
}

// attentionFlags are the paths a finding names or AMP converts, as
// KeepAttention flags them.
func attentionFlags(m *reports.Model, tg *reports.Target) map[string]bool {
	out := map[string]bool{}
	for _, f := range append(append([]reports.Finding{}, m.Findings...), tg.Findings...) {
		out[f.Path] = true
	}
	if tg.Placement != nil {
		for _, a := range tg.Placement.AMP {
			out[a.Path] = true
		}
	}
	return out
}

func nonNilNodes(ns []reports.NodeResult) []reports.NodeResult {
	if len(ns) == 0 {
		return nil
	}
	return ns
}
