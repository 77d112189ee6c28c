package scan

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/internal/testutil"
	"github.com/tfscan/tfscan/reports"
)

var kerasModel = filepath.Join("..", "..", "..", "..", "testdata", "models", "keras_saved_model")

func scanOne(t *testing.T, opts Options) *reports.Model {
	t.Helper()
	rep, err := Run(context.Background(), opts)
	require.NoError(t, err)
	require.Len(t, rep.Models, 1, "%v", rep.Errors)
	return rep.Models[0]
}

func newFallbackOps(d *reports.Delta) map[string]int {
	out := map[string]int{}
	for _, o := range d.NewFallbackOps {
		out[o.Op+" "+o.Reason] += o.Count
	}
	return out
}

// TestDeltaKeras compares the generated Keras-style model on several
// targets with cuda: the lookup table and the CPU-pinned Cast are on CPU
// under CUDA too (already on CPU), musa lacks Relu6 and Bucketize and
// directml Bucketize (new fallbacks); the saver and the table
// initialisation are load and save work and take no part.
func TestDeltaKeras(t *testing.T) {
	m := scanOne(t, Options{Paths: []string{kerasModel}, Targets: []string{"cuda", "musa", "directml"}, From: "cuda"})
	want := map[string]struct {
		newFB, already, better int
		ops                    map[string]int
	}{
		"cuda":     {0, 3, 0, map[string]int{}},
		"musa":     {2, 3, 0, map[string]int{"Relu6 no_kernel": 1, "Bucketize no_kernel": 1}},
		"directml": {1, 3, 0, map[string]int{"Bucketize no_kernel": 1}},
	}
	for _, tgt := range m.Targets {
		w := want[tgt.Target]
		d := tgt.Delta
		require.NotNil(t, d, tgt.Target)
		assert.Equal(t, "cuda", d.Source)
		assert.Equal(t, w.newFB, d.NewFallbackNodes, tgt.Target)
		assert.Equal(t, w.already, d.AlreadyOnCPUNodes, tgt.Target)
		assert.Equal(t, w.better, d.BetterOnTargetNodes, tgt.Target)
		assert.Equal(t, w.ops, newFallbackOps(d), tgt.Target)
		changed := 0
		for _, n := range tgt.Nodes {
			if n.Phase != reports.PhaseStep {
				assert.Empty(t, n.Change, "a %s node has no change: %s", n.Phase, n.Path)
			}
			if n.Device != "" {
				assert.NotEmpty(t, n.SourceDevice, n.Path)
			}
			if n.Change != "" {
				changed++
			}
		}
		assert.Equal(t, w.newFB+w.already+w.better, changed)
	}

	// Against no source there is no delta, and nothing else changes.
	none := scanOne(t, Options{Paths: []string{kerasModel}, Targets: []string{"musa"}, From: "none"})
	assert.Nil(t, none.Targets[0].Delta)
	for _, n := range none.Targets[0].Nodes {
		assert.Empty(t, n.SourceDevice)
		assert.Empty(t, n.Change)
	}
	// The source is simulated apart when it is no target, with the same result.
	apart := scanOne(t, Options{Paths: []string{kerasModel}, Targets: []string{"musa"}, From: "cuda"})
	assert.Equal(t, m.Targets[1].Delta, apart.Targets[0].Delta)

	// Another source: against musa, musa's own gaps are already on CPU and
	// cuda runs Relu6 and Bucketize on the GPU: better on that target.
	fromMusa := scanOne(t, Options{Paths: []string{kerasModel}, Targets: []string{"cuda"}, From: "musa"})
	d := fromMusa.Targets[0].Delta
	assert.Equal(t, "musa", d.Source)
	assert.Equal(t, 0, d.NewFallbackNodes)
	assert.Equal(t, 2, d.BetterOnTargetNodes)

	// Without placement the delta compares coverage.
	cov := scanOne(t, Options{Paths: []string{kerasModel}, Targets: []string{"musa"}, From: "cuda",
		Placement: PlacementOptions{Disabled: true}})
	assert.Equal(t, map[string]int{"Relu6 no_kernel": 1, "Bucketize no_kernel": 1}, newFallbackOps(cov.Targets[0].Delta))
	assert.Equal(t, 2, cov.Targets[0].Delta.AlreadyOnCPUNodes, "HashTableV2 and LookupTableFindV2: no kernel on either")
}

// TestDeltaFromRegistry takes the source from a --registry pack file.
func TestDeltaFromRegistry(t *testing.T) {
	dir := t.TempDir()
	// A synthetic pack (not vendor data): the cuda pack less Relu6.
	pack := filepath.Join(dir, "gpu.json")
	require.NoError(t, os.WriteFile(pack, []byte(`{"format": "tfscan-pack/v1", "name": "old-gpu", "vendor": "tfscan tests", "device_type": "GPU",
  "mechanism": "kernel", "tf_version": "2.15.0", "source": "synthetic test pack (not vendor data)", "method": "documentation",
  "date": "2026-01-01", "confidence": "test", "kernels": [
    {"op": "MatMul", "device_type": "GPU"}, {"op": "BiasAdd", "device_type": "GPU"},
    {"op": "Bucketize", "device_type": "GPU"}, {"op": "ConcatV2", "device_type": "GPU"},
    {"op": "Cast", "device_type": "GPU"}, {"op": "ExpandDims", "device_type": "GPU"},
    {"op": "Identity", "device_type": "GPU"}, {"op": "Const", "device_type": "GPU"}]}`), 0o644))
	m := scanOne(t, Options{Paths: []string{kerasModel}, Targets: []string{"cuda"}, Registries: []string{pack}, From: "old-gpu"})
	d := m.Targets[0].Delta
	assert.Equal(t, "old-gpu", d.Source)
	assert.Equal(t, 0, d.NewFallbackNodes)
	assert.GreaterOrEqual(t, d.BetterOnTargetNodes, 1, "Relu6 has a kernel on cuda only")

	_, err := Run(context.Background(), Options{Paths: []string{kerasModel}, Targets: []string{"cuda"}, From: "no-such-pack"})
	var ue *UsageError
	require.True(t, errors.As(err, &ue), "got %v", err)
	assert.Contains(t, err.Error(), `unknown --from "no-such-pack"`)
}

// TestDeltaCorpus checks the corpus criteria: on cuda against cuda nothing
// is new for any model, and ROCm, which has no _FusedConv2D kernel, makes
// centernet's 62 _FusedConv2D nodes new fallbacks (they are pinned to CPU
// in the file, but would run on cuda's GPU without the pin).
func TestDeltaCorpus(t *testing.T) {
	corpus := testutil.Corpus(t)
	rep, err := Run(context.Background(), Options{Paths: []string{corpus}, Targets: []string{"cuda"}, From: "cuda"})
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(rep.Models), 13)
	for _, m := range rep.Models {
		d := m.Targets[0].Delta
		require.NotNil(t, d, m.Path)
		assert.Zero(t, d.NewFallbackNodes, m.Path)
		assert.Zero(t, d.BetterOnTargetNodes, m.Path)
		assert.Zero(t, d.TransferBytesDelta, m.Path)
	}
	m := scanOne(t, Options{Paths: []string{filepath.Join(corpus, "tfjs", "centernet")}, Targets: []string{"rocm"}, From: "cuda"})
	d := m.Targets[0].Delta
	require.Len(t, d.NewFallbackOps, 1)
	assert.Equal(t, "_FusedConv2D", d.NewFallbackOps[0].Op)
	assert.Equal(t, "no_kernel", d.NewFallbackOps[0].Reason)
	assert.Equal(t, 62, d.NewFallbackOps[0].Count)
	assert.Len(t, d.NewFallbackOps[0].Nodes, 62)
	assert.Equal(t, 62, d.NewFallbackNodes)
}
