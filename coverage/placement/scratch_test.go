package placement_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/coverage/placement"
	"github.com/tfscan/tfscan/internal/testmodel"
	"github.com/tfscan/tfscan/internal/testutil"
)

// One Scratch lent to simulation after simulation, of models large and
// small and of targets whose graphs flatten differently, changes no
// result: each simulation gets its memory cleared.
func TestScratchChangesNothing(t *testing.T) {
	index := func(name string) *coverage.Index { return builtinIndex(t, name) }
	cpu := index("cpu")
	var sc placement.Scratch
	// Large before small, so that a small one runs in memory a large one
	// left, and back.
	for _, model := range []string{"tfjs/centernet", "tf/sm_simple_while_loop", "tfjs/emotion", "tf/gd_lstm_layer_inference/lstm_layer_inference.pbtxt", "tfjs/centernet"} {
		g := testmodel.Graph(t, filepath.Join(corpusDir(t), model))
		for _, target := range []string{"rocm", "musa", "intel-xpu"} {
			for _, precision := range []string{"", placement.PrecisionMixedFloat16} {
				tg := index(target)
				opts := placement.Options{Precision: precision, Stack: tg.Stack()}
				want, err := placement.Simulate(g, tg, cpu, opts)
				require.NoError(t, err)
				opts.Scratch = &sc
				got, err := placement.Simulate(g, tg, cpu, opts)
				require.NoError(t, err)
				assert.Equal(t, want, got, "%s on %s, precision %q", model, target, precision)
			}
		}
	}
}

// A simulation that reuses the flattened graph a simulation of another
// target left in the Scratch gives the whole Result a fresh simulation
// gives (nodes, reasons, transfers, islands, wishlist, fusions, AMP,
// errors and warnings), on every corpus model and the generated ones, for
// a CPU target and accelerators (GPU, pluggable devices, a stack with a
// vendor optimizer), built first by the CPU target and by an
// accelerator, with auto mixed precision, a function device, cleared
// devices and hard placement. No device type sorts after CPU
// (typePriority), so an accelerator is always device 0 and the CPU device
// 1, or 0 alone for a CPU target.
func TestSharedFlatteningChangesNothing(t *testing.T) {
	cpu, cuda := builtinIndex(t, "cpu"), builtinIndex(t, "cuda")
	targets := []struct {
		name string
		m    *coverage.Index
	}{
		{"cpu", cpu}, {"hand-made XPU", handMadeTarget().(*coverage.Index)}, {"cuda", cuda}, {"musa", builtinIndex(t, "musa")},
		{"cpu", cpu}, {"ascend", builtinIndex(t, "ascend")}, {"intel-xpu", builtinIndex(t, "intel-xpu")},
	}
	variants := []struct {
		name   string
		opts   placement.Options
		shared bool // every target shares one flattened graph
	}{
		{"default", placement.Options{}, true},
		{"mixed_float16", placement.Options{Precision: placement.PrecisionMixedFloat16}, true},
		{"mixed_bfloat16", placement.Options{Precision: placement.PrecisionMixedBFloat16}, true},
		{"function device CPU", placement.Options{FunctionDevice: "CPU"}, true},
		// GPU is cuda's device type alone: the others flatten apart.
		{"function device GPU", placement.Options{FunctionDevice: "GPU", Precision: placement.PrecisionMixedFloat16}, false},
		{"cleared devices, hard placement", placement.Options{ClearDevices: true, NoSoftPlacement: true}, true},
	}
	var graphs []string
	for _, name := range corpusModels {
		graphs = append(graphs, filepath.Join(corpusDir(t), name))
	}
	for _, name := range []string{"convnet_saved_model", "keras_saved_model", "resource_vars.pbtxt", "tf2_while_saved_model", "convnet.meta"} {
		graphs = append(graphs, filepath.Join(testutil.RepoRoot(), "testdata", "models", name))
	}
	for _, path := range graphs {
		g := testmodel.Graph(t, path)
		for _, v := range variants {
			var sc placement.Scratch
			var flat any
			for k, tg := range targets {
				opts := v.opts
				opts.Stack, opts.Source = tg.m.Stack(), cuda
				want, err := placement.Simulate(g, tg.m, cpu, opts)
				require.NoError(t, err)
				opts.Scratch = &sc
				got, err := placement.Simulate(g, tg.m, cpu, opts)
				require.NoError(t, err)
				assert.Equal(t, want, got, "%s, %s, on %s after %d others", path, v.name, tg.name, k)
				if v.shared && k > 0 {
					assert.Same(t, flat, placement.Flattened(&sc), "%s, %s, on %s: shared", path, v.name, tg.name)
				}
				flat = placement.Flattened(&sc)
				require.NotNil(t, flat)
			}
		}
	}
}
