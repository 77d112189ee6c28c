package placement_test

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/coverage/placement"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/internal/testmodel"
	"github.com/tfscan/tfscan/internal/testutil"
)

// One Scratch lent to simulation after simulation, of models large and
// small and of targets whose graphs flatten differently, changes no
// result: each simulation gets its memory cleared, unless it is the first
// lent the arrays Reserve made, which nothing has written yet.
func TestScratchChangesNothing(t *testing.T) {
	index := func(name string) *coverage.Index { return builtinIndex(t, name) }
	cpu := index("cpu")
	var sc placement.Scratch
	// Large before small, so that a small one runs in memory a large one
	// left, and back; the first in the arrays Reserve made, which the
	// later ones find written.
	for i, model := range []string{"tfjs/centernet", "tf/sm_simple_while_loop", "tfjs/emotion", "tf/gd_lstm_layer_inference/lstm_layer_inference.pbtxt", "tfjs/centernet"} {
		g := testmodel.Graph(t, filepath.Join(corpusDir(t), model))
		if i == 0 {
			sc.Reserve(placement.Extent{Nodes: len(g.Nodes), Inputs: 2 * len(g.Nodes), Functions: len(g.Functions) > 0}, false)
		}
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

// A simulation that reuses the flattened graph and the CPU's kernel lookups
// a simulation of another target left in the Scratch, and looks nodes of
// one lookup class up once, gives the whole Result a fresh simulation that
// looks every node up gives (nodes, reasons, transfers, islands, wishlist, fusions, AMP,
// errors and warnings), on every corpus model and the generated ones, for
// a CPU target and accelerators (GPU, pluggable devices, a stack with a
// vendor optimizer), built first by the CPU target and by an
// accelerator, with auto mixed precision, a function device, cleared
// devices and hard placement. No device type sorts after CPU
// (typePriority), so an accelerator is always device 0 and the CPU device
// 1, or 0 alone for a CPU target.
func TestSharedFlatteningChangesNothing(t *testing.T) {
	cpu, cuda := builtinIndex(t, "cpu"), builtinIndex(t, "cuda")
	xpu := builtinIndex(t, "intel-xpu")
	targets := []struct {
		name string
		m    *coverage.Index
		// otherCPU falls back to another CPU, whose lookups are its own.
		otherCPU bool
	}{
		{"cpu", cpu, false}, {"hand-made XPU", handMadeTarget().(*coverage.Index), false}, {"cuda", cuda, false},
		{"musa", builtinIndex(t, "musa"), false}, {"cpu", cpu, false}, {"ascend", builtinIndex(t, "ascend"), false},
		{"intel-xpu", xpu, false}, {"intel-xpu on another CPU", xpu, true}, {"intel-xpu", xpu, false},
	}
	variants := []struct {
		name   string
		opts   placement.Options
		shared bool // every target shares one flattened graph
		cpu    coverage.Matcher
	}{
		{"default", placement.Options{}, true, nil},
		{"mixed_float16", placement.Options{Precision: placement.PrecisionMixedFloat16}, true, nil},
		{"mixed_bfloat16", placement.Options{Precision: placement.PrecisionMixedBFloat16}, true, nil},
		// AMP's half-precision nodes have lookups of their own, on the
		// CPU too, which this one tells apart.
		{"mixed_float16, CPU without half kernels", placement.Options{Precision: placement.PrecisionMixedFloat16}, true, &noHalfCPU{cpu}},
		{"function device CPU", placement.Options{FunctionDevice: "CPU"}, true, nil},
		// GPU is cuda's device type alone: the others flatten apart.
		{"function device GPU", placement.Options{FunctionDevice: "GPU", Precision: placement.PrecisionMixedFloat16}, false, nil},
		{"cleared devices, hard placement", placement.Options{ClearDevices: true, NoSoftPlacement: true}, true, nil},
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
			var flat, lookups any
			host := coverage.Matcher(cpu)
			if v.cpu != nil {
				host = v.cpu
			}
			for k, tg := range targets {
				opts := v.opts
				opts.Stack, opts.Source = tg.m.Stack(), cuda
				tm, hm := coverage.Matcher(tg.m), host
				if tg.m == cpu {
					tm = host
				}
				if tg.otherCPU {
					hm = &noHalfCPU{cpu}
				}
				want, err := placement.Simulate(g, plain{tm}, plain{hm}, opts)
				require.NoError(t, err)
				opts.Scratch = &sc
				got, err := placement.Simulate(g, tm, hm, opts)
				require.NoError(t, err)
				assert.Equal(t, want, got, "%s, %s, on %s after %d others", path, v.name, tg.name, k)
				if v.shared && k > 0 {
					assert.Same(t, flat, placement.Flattened(&sc), "%s, %s, on %s: shared", path, v.name, tg.name)
					if same := lookups == placement.CPULookups(&sc); same == (tg.otherCPU || targets[k-1].otherCPU) {
						t.Errorf("%s, %s, on %s: CPU lookups shared %v", path, v.name, tg.name, same)
					}
				}
				flat, lookups = placement.Flattened(&sc), placement.CPULookups(&sc)
				require.NotNil(t, flat)
				require.NotNil(t, lookups)
			}
		}
	}
}

// noHalfCPU is a CPU without float16 and bfloat16 kernels (a pointer:
// simulations lent one Scratch share its lookups).
type noHalfCPU struct{ coverage.Matcher }

func (c *noHalfCPU) Match(n *graph.Node) coverage.Match {
	if t := placement.PrimaryDType(n); t == tpb.DataType_DT_HALF || t == tpb.DataType_DT_BFLOAT16 {
		return coverage.Match{Reason: coverage.ReasonNoKernelForDType}
	}
	return c.Matcher.Match(n)
}

// plain answers as the matcher it wraps, without saying so: a simulation
// looks every node up with it and shares none of its lookups.
type plain struct{ coverage.Matcher }

// Registered lists the wrapped matcher's kernels, for TensorFlow's
// placement errors.
func (p plain) Registered(op string) []*kdpb.KernelDef {
	if kl, ok := p.Matcher.(interface {
		Registered(string) []*kdpb.KernelDef
	}); ok {
		return kl.Registered(op)
	}
	return nil
}

// A simulation lent a Scratch that simulations of the same graph used
// before makes few arrays of its own: the flattened graph, the colocation
// groups and the arrays by node and device are the Scratch's.
func TestScratchLendsArrays(t *testing.T) {
	g := genGraph(20_000)
	cpu, tg := builtinIndex(t, "cpu"), builtinIndex(t, "musa")
	var sc placement.Scratch
	opts := placement.Options{Stack: tg.Stack(), Scratch: &sc, LazyNodes: true, NoNodeCounts: true}
	allocated := func() uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := placement.Simulate(g, tg, cpu, opts)
		require.NoError(t, err)
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	allocated()
	// About 165 bytes a node; 240 with arrays of its own.
	perNode := float64(allocated()) / float64(len(g.Nodes))
	assert.Less(t, perNode, 200.0, "bytes allocated a node")
}

// A lazy Result that keeps its arrays (Own) is read whole, as a fresh
// simulation's, after the next simulations were lent its Scratch; the
// arrays it gives back (Release) serve a later one, which gives its own
// Result too. Every result is read after the next simulation ran, as a
// scan that reads one target's while placing the next does.
func TestOwnedResultOutlivesTheScratch(t *testing.T) {
	index := func(name string) *coverage.Index { return builtinIndex(t, name) }
	cpu := index("cpu")
	g := testmodel.Graph(t, filepath.Join(corpusDir(t), "tfjs/centernet"))
	var sc placement.Scratch
	var prev *placement.Result
	var prevWant []placement.NodeResult
	for _, target := range []string{"ascend", "musa", "cpu", "intel-xpu", "ascend"} {
		tg := index(target)
		opts := placement.Options{Stack: tg.Stack()}
		want, err := placement.Simulate(g, tg, cpu, opts)
		require.NoError(t, err)
		opts.Scratch, opts.LazyNodes = &sc, true
		got, err := placement.Simulate(g, tg, cpu, opts)
		require.NoError(t, err)
		if prev != nil {
			// The previous result, read after this simulation ran.
			assert.Equal(t, prevWant, allNodes(g, prev), "the result before %s", target)
			prev.Release()
		}
		got.Own()
		prev, prevWant = got, want.Nodes
	}
	assert.Equal(t, prevWant, allNodes(g, prev), "the last result")
}

// allNodes is every node's result of a lazy Result, in the graph's order.
func allNodes(g *graph.Graph, r *placement.Result) []placement.NodeResult {
	var out []placement.NodeResult
	for _, n := range g.Nodes {
		if nr, ok := r.NodeOf(n.ID); ok {
			out = append(out, nr)
		}
	}
	return out
}

// Auto mixed precision changes a simulation's own copies of the shared
// flattened graph's nodes (their lookup nodes become half-precision
// copies), never the shared nodes: a simulation without it that shares
// the graph after one with it gives what a fresh one gives, on models
// with lowered control flow, calls and float math to paint.
func TestAMPLeavesTheSharedGraphAlone(t *testing.T) {
	cpu, cuda := builtinIndex(t, "cpu"), builtinIndex(t, "cuda")
	for _, path := range []string{
		filepath.Join(corpusDir(t), "tf/gd_if_op/if_op.pbtxt"),
		filepath.Join(corpusDir(t), "tf/sm_simple_while_loop"),
		filepath.Join(corpusDir(t), "tf/gd_lstm_layer_inference/lstm_layer_inference.pbtxt"),
		filepath.Join(testutil.RepoRoot(), "testdata", "models", "tf2_while_saved_model"),
		filepath.Join(testutil.RepoRoot(), "testdata", "models", "keras_saved_model"),
	} {
		g := testmodel.Graph(t, path)
		var sc placement.Scratch
		for _, precision := range []string{placement.PrecisionMixedFloat16, "", placement.PrecisionMixedBFloat16, ""} {
			opts := placement.Options{Precision: precision, Stack: cuda.Stack()}
			want, err := placement.Simulate(g, plain{cuda}, plain{cpu}, opts)
			require.NoError(t, err)
			opts.Scratch = &sc
			got, err := placement.Simulate(g, cuda, cpu, opts)
			require.NoError(t, err)
			assert.Equal(t, want, got, "%s, precision %q after the others", path, precision)
		}
	}
}

// The lookup classes the build works out as it resolves each node's
// inputs are those a walk of the flattened nodes alone gives, on every
// corpus model and the generated ones, whose calls, lowered control flow
// and arguments add nodes of their own.
func TestBuildClassesAsTheWalk(t *testing.T) {
	cpu := builtinIndex(t, "cpu")
	var graphs []string
	for _, name := range corpusModels {
		graphs = append(graphs, filepath.Join(corpusDir(t), name))
	}
	for _, name := range []string{"convnet_saved_model", "keras_saved_model", "resource_vars.pbtxt", "tf2_while_saved_model", "convnet.meta"} {
		graphs = append(graphs, filepath.Join(testutil.RepoRoot(), "testdata", "models", name))
	}
	classes := 0
	for _, path := range graphs {
		g := testmodel.Graph(t, path)
		var sc placement.Scratch
		require.NoError(t, sc.Flatten(g, cpu, placement.Options{}))
		built, walked, builtN, walkedN := placement.LookupClasses(&sc)
		assert.Equal(t, walked, built, path)
		assert.Equal(t, walkedN, builtN, path)
		classes += builtN
	}
	assert.Positive(t, classes, "no model has a class of two nodes or more")
}
