package executor_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/executor"
	"github.com/tfscan/tfscan/internal/testmodel"
	"github.com/tfscan/tfscan/kernels"
)

// TestCorpusOpCoverage lists every op of the corpus models (../shared/corpus
// tf and tfjs; graph and function nodes) other than training, saver, queue
// and hash-table machinery, and checks which of them a reference kernel or
// an executor intrinsic runs. corpusOpsWithoutKernel pins the ops still
// missing: the test fails when an op loses its kernel or a new uncovered op
// appears, and logs ops that gained one so the list can be trimmed.
func TestCorpusOpCoverage(t *testing.T) {
	dir := sharedDir(t)
	ops := map[string]int{}
	for _, sub := range []string{"tf", "tfjs"} {
		ents, err := os.ReadDir(filepath.Join(dir, "corpus", sub))
		require.NoError(t, err)
		for _, e := range ents {
			g, err := testmodel.TryGraph(filepath.Join(dir, "corpus", sub, e.Name()))
			if err != nil {
				if !brokenCorpusModels[e.Name()] {
					t.Errorf("%s/%s does not load: %v", sub, e.Name(), err)
				}
				continue
			}
			for _, n := range g.Nodes {
				ops[n.Op]++
			}
			for _, f := range g.Functions {
				for _, n := range f.Nodes {
					ops[n.Op]++
				}
			}
		}
	}
	require.NotEmpty(t, ops)
	var covered, missing, skipped []string
	for op := range ops {
		switch {
		case kernels.Lookup(op) != nil || executor.IsIntrinsic(op):
			covered = append(covered, op)
		case notInferenceOp(op):
			skipped = append(skipped, op)
		default:
			missing = append(missing, op)
		}
	}
	sort.Strings(covered)
	sort.Strings(missing)
	sort.Strings(skipped)
	t.Logf("%d corpus ops: %d covered, %d without kernel, %d training/saver/queue/table ops skipped",
		len(ops), len(covered), len(missing), len(skipped))
	t.Logf("without kernel: %s", strings.Join(missing, " "))
	t.Logf("skipped: %s", strings.Join(skipped, " "))
	t.Logf("covered: %s", strings.Join(covered, " "))
	want := map[string]bool{}
	for _, op := range corpusOpsWithoutKernel {
		want[op] = true
	}
	for _, op := range missing {
		assert.True(t, want[op], "corpus op %s (%d nodes) has no kernel and is not in corpusOpsWithoutKernel", op, ops[op])
	}
	for _, op := range corpusOpsWithoutKernel {
		if kernels.Lookup(op) != nil || executor.IsIntrinsic(op) {
			t.Logf("%s now has a kernel: drop it from corpusOpsWithoutKernel", op)
		}
	}
	t.Logf("kernels registered: %d", len(kernels.RegisteredOps()))
}

// brokenCorpusModels are the corpus's deliberately bad inputs
// (corpus/README.md).
var brokenCorpusModels = map[string]bool{"gd_malformed": true, "sm_fuzz_const_no_value": true}

// corpusOpsWithoutKernel are the inference ops of the corpus with neither a
// reference kernel nor an executor intrinsic (see TestCorpusOpCoverage).
var corpusOpsWithoutKernel = []string{
	"RandomUniform",                       // gd_keras_imagenet_train: stateful RNG, not reproducible
	"SomeUnknownOp",                       // gd_unknown_op: deliberately unknown
	"SparseSoftmaxCrossEntropyWithLogits", // gd_keras_imagenet_train: the training loss
}

// notInferenceOp reports ops that only training, checkpoint saving, input
// queues or lookup-table initialisation use; a reference run of a served
// model does not execute them.
func notInferenceOp(op string) bool {
	switch op {
	case "SaveV2", "RestoreV2", "Save", "Restore", "SaveSlices", "RestoreSlice",
		"MergeV2Checkpoints", "ShardedFilename", "ShardedFilespec":
		return true
	}
	for _, p := range []string{"Apply", "ResourceApply", "SparseApply", "ResourceSparseApply",
		"Queue", "FIFOQueue", "RandomShuffleQueue", "PaddingFIFOQueue", "PriorityQueue",
		"InitializeTable", "LookupTable", "HashTable", "MutableHashTable", "MutableDenseHashTable"} {
		if strings.HasPrefix(op, p) {
			return true
		}
	}
	return strings.HasSuffix(op, "Grad") || strings.HasSuffix(op, "GradV2") ||
		strings.HasSuffix(op, "GradGrad") || strings.Contains(op, "BackpropFilter")
}
