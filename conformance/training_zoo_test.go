package conformance

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/reports"
)

func init() { owners["training"] = true }

// trainTargets are the targets the zoo's training steps are scanned for:
// the four the per-part table shows, cuda (the NCCL stack and the source),
// and xla and enflame-gcu (XLA devices).
var trainTargets = []string{"musa", "intel-xpu", "ascend", "rocm", "cuda", "xla", "enflame-gcu"}

// trainTableTargets are the targets whose per-part counts docs/conformance.md
// lists.
var trainTableTargets = []string{"musa", "intel-xpu", "ascend", "rocm"}

// stepFacts is what TensorFlow says of a training step it traced
// (tools/tf/export_train_step.py step_facts).
type stepFacts struct {
	Replicas              int            `json:"replicas"`
	MixedFloat16          bool           `json:"mixed_float16"`
	JITCompile            bool           `json:"jit_compile"`
	TrainableVariables    int            `json:"trainable_variables"`
	TrainableBytes        int64          `json:"trainable_bytes"`
	CollectiveOps         map[string]int `json:"collective_ops"`
	CommunicationHints    []string       `json:"communication_hints"`
	CollectiveReduceBytes int64          `json:"collective_reduce_bytes"`
	XLAMustCompile        []string       `json:"xla_must_compile"`
}

// libraryOf is the collective library each scanned target's stack has for
// TensorFlow ("" for none), as the vendors' sources say
// (docs/migration.md#several-devices).
var libraryOf = map[string]string{"cuda": "NCCL", "rocm": "RCCL", "ascend": "HCCL", "intel-xpu": "oneCCL"}

// TestZooTrainingSteps scans the training steps TensorFlow traced for the
// zoo (tools/tfmodels/train_steps.py: a CNN, the Transformer encoder and
// the LSTM, plain, mixed_float16 and under a 2-replica MirroredStrategy,
// and the CNN's step under jit_compile) and holds tfscan to what
// TensorFlow says of each (step.json): a loss_scale part exactly for the
// mixed_float16 steps; for the 2-replica steps the collective ops
// TensorFlow built (in the graph and its functions), by op and hint, their
// replicas, the bytes each replica all-reduces (TensorFlow's own shapes;
// every trainable variable's bytes unless a sparse gradient is all-gathered
// instead) and the gradients a per-value reduction copies (the trainable
// variables); the functions XLA must compile, compiled on the XLA devices
// (xla, and cuda and rocm through it, enflame-gcu) and run op by op on the
// stacks without one. The per-part counts on musa, intel-xpu, ascend and
// rocm go to docs/conformance.md.
func TestZooTrainingSteps(t *testing.T) {
	zoo := smallZoo(t)
	raw, err := os.ReadFile(filepath.Join(zoo, "train", "index.json"))
	require.NoError(t, err, "the zoo has no training steps (tools/tfmodels/train_steps.py)")
	var facts map[string]stepFacts
	require.NoError(t, json.Unmarshal(raw, &facts))
	require.Len(t, facts, 10)
	names := slices.Sorted(mapKeys(facts))

	dir := t.TempDir()
	tfscan := buildTfscan(t, dir)
	js := filepath.Join(dir, "steps.json")
	args := []string{"scan", "--clear-devices", "--target", strings.Join(trainTargets, ","), "--format", "json=" + js}
	for _, n := range names {
		args = append(args, filepath.Join(zoo, "train", n, "train_step.pb"))
	}
	if out, err := exec.Command(tfscan, args...).CombinedOutput(); err != nil {
		var ee *exec.ExitError
		require.True(t, errors.As(err, &ee) && ee.ExitCode() == 1, "%v\n%s", err, out)
	}
	raw, err = os.ReadFile(js)
	require.NoError(t, err)
	var r reports.Report
	require.NoError(t, json.Unmarshal(raw, &r))
	require.Empty(t, r.Errors)
	require.Len(t, r.Models, len(names))
	byStep := map[string]*reports.Model{}
	for _, m := range r.Models {
		byStep[filepath.Base(filepath.Dir(m.Path))] = m
	}

	var rows []string
	for _, name := range names {
		f, m := facts[name], byStep[name]
		require.NotNil(t, m, name)
		for _, tg := range m.Targets {
			what := name + " on " + tg.Target
			require.NotNil(t, tg.Training, what)
			for _, p := range []string{"forward", "backward", "optimizer"} {
				if tp := tg.TrainingPart(p); assert.NotNil(t, tp, "%s: %s", what, p) {
					assert.Positive(t, tp.Nodes, "%s: %s", what, p)
				}
			}
			assert.Equal(t, f.MixedFloat16, tg.TrainingPart("loss_scale") != nil, "%s: a loss_scale part exactly under mixed_float16", what)
			checkCollectives(t, what, f, tg)
			checkXLA(t, what, f, tg)
			if slices.Contains(trainTableTargets, tg.Target) {
				rows = append(rows, trainingRow(name, tg))
			}
		}
	}
	section("training", trainingSection(rows, byStep, names))
}

// checkCollectives holds a target's collectives to what TensorFlow built.
func checkCollectives(t *testing.T, what string, f stepFacts, tg *reports.Target) {
	c := tg.Training.Collectives
	if len(f.CollectiveOps) == 0 {
		assert.Nil(t, c, "%s: TensorFlow built no collective op", what)
		return
	}
	require.NotNil(t, c, what)
	ops := map[string]int{}
	var hints []string
	for _, o := range c.Ops {
		ops[o.Op] += o.Count
		if !slices.Contains(hints, o.Hint) {
			hints = append(hints, o.Hint)
		}
	}
	slices.Sort(hints)
	assert.Equal(t, f.CollectiveOps, ops, "%s: collective ops", what)
	assert.Equal(t, f.CommunicationHints, hints, "%s: communication hints", what)
	assert.Equal(t, f.Replicas, c.Replicas, "%s: replicas", what)
	assert.True(t, c.ReduceBytesKnown, what)
	assert.Equal(t, f.CollectiveReduceBytes, c.ReduceBytes*int64(c.Replicas), "%s: bytes all-reduced (TensorFlow's shapes)", what)
	// Dense gradients are all-reduced; an embedding's sparse gradient is
	// all-gathered instead (CollectiveGatherV2).
	gathers := f.CollectiveOps["CollectiveGatherV2"] > 0
	if !gathers {
		assert.Equal(t, f.TrainableBytes, c.ReduceBytes, "%s: each replica all-reduces every gradient", what)
	} else {
		assert.Less(t, c.ReduceBytes, f.TrainableBytes, "%s: the gathered gradients are not all-reduced", what)
	}
	if lib := libraryOf[tg.Target]; lib != "" {
		require.NotNil(t, c.Library, what)
		assert.Equal(t, lib, c.Library.Name, what)
		assert.NotEmpty(t, c.Library.Source, what)
		assert.Nil(t, c.OneDevice, what)
	} else {
		assert.Nil(t, c.Library, what)
		r := f.Replicas
		require.NotNil(t, c.OneDevice, what)
		if !gathers {
			assert.Equal(t, 2*(r-1)*f.TrainableVariables, c.OneDevice.Copies, "%s: ReductionToOneDevice copies every gradient there and back", what)
		} else {
			assert.Less(t, c.OneDevice.Copies, 2*(r-1)*f.TrainableVariables, what)
		}
		assert.Equal(t, 2*int64(r-1)*c.ReduceBytes, c.OneDevice.Bytes, what)
	}
	// The steps were traced over CPUs: MirroredStrategy asked for the
	// ring (mirrored_strategy.py:388-391), which no NCCL serves.
	assert.Contains(t, c.Runs, "RingReduce", what)
	assert.Equal(t, int64(2*(f.Replicas-1))*f.CollectiveReduceBytes/int64(f.Replicas), c.CopyBytes, "%s: the ring's bytes", what)
}

// xlaDeviceOf is the XLA device each scanned target compiles with ("" for
// none).
var xlaDeviceOf = map[string]string{"cuda": "xla", "rocm": "xla", "xla": "xla", "enflame-gcu": "enflame-gcu"}

// checkXLA holds a target's XLA findings to the functions TensorFlow marked.
func checkXLA(t *testing.T, what string, f stepFacts, tg *reports.Target) {
	if len(f.XLAMustCompile) == 0 {
		assert.Nil(t, tg.XLA, "%s: no function marked for XLA", what)
		return
	}
	require.NotNil(t, tg.XLA, what)
	var fns []string
	for _, fn := range tg.XLA.Functions {
		fns = append(fns, fn.Function)
		assert.Positive(t, fn.Nodes, what)
		if xlaDeviceOf[tg.Target] == "" {
			assert.False(t, fn.Compiled, "%s: no XLA device, op by op", what)
			assert.Empty(t, fn.Missing, what)
		} else {
			assert.True(t, fn.Compiled, "%s: every op of the step has an XLA kernel: %v", what, fn.Missing)
		}
	}
	assert.Equal(t, f.XLAMustCompile, fns, what)
	assert.Equal(t, xlaDeviceOf[tg.Target], tg.XLA.Device, what)
	assert.NotEmpty(t, tg.XLA.Source, what)
}

// trainingRow is one step on one target: nodes, covered and on CPU per part.
func trainingRow(step string, tg *reports.Target) string {
	cells := []string{step, tg.Target}
	for _, p := range []string{"forward", "backward", "optimizer", "loss_scale", "collective"} {
		if tp := tg.TrainingPart(p); tp != nil {
			cells = append(cells, fmt.Sprintf("%d / %d / %d", tp.Nodes, tp.Covered, tp.FallbackNodes))
		} else {
			cells = append(cells, "-")
		}
	}
	return "| " + strings.Join(cells, " | ") + " |"
}

func trainingSection(rows []string, byStep map[string]*reports.Model, names []string) string {
	var b strings.Builder
	b.WriteString("## Training steps\n\n")
	b.WriteString("The zoo's training steps as TensorFlow traces them (`tools/tfmodels/train_steps.py`: GradientTape and\n" +
		"`apply_gradients`; `_mixed_float16` under the mixed_float16 policy with LossScaleOptimizer; `_mirrored2` under\n" +
		"MirroredStrategy over 2 logical CPU devices; `cnn_jit` under `jit_compile=True`), scanned with `--clear-devices`.\n" +
		"Checked against TensorFlow: a loss_scale part exactly under mixed_float16; the collective ops TensorFlow built, their\n" +
		"hints and replicas, the bytes all-reduced (TensorFlow's shapes) and the gradients a per-value reduction copies; the\n" +
		"functions XLA must compile. Per part: nodes / covered / on CPU (docs/migration.md defines the parts).\n\n")
	b.WriteString("| step | target | forward | backward | optimizer | loss_scale | collective |\n|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		b.WriteString(r + "\n")
	}
	b.WriteString("\nCollectives and XLA, per target:\n\n")
	for _, name := range names {
		for _, tg := range byStep[name].Targets {
			if tg.Training.Collectives == nil && tg.XLA == nil {
				continue
			}
			c := tg.Training.Collectives
			if c != nil {
				lib := "none known"
				if c.Library != nil {
					lib = c.Library.Name
				}
				fmt.Fprintf(&b, "- %s on %s: %d replicas, %d bytes all-reduced per replica; library %s; runs %s, %d copies, %d bytes",
					name, tg.Target, c.Replicas, c.ReduceBytes, lib, c.Runs, c.Copies, c.CopyBytes)
				if c.OneDevice != nil {
					fmt.Fprintf(&b, "; ReductionToOneDevice %d copies", c.OneDevice.Copies)
				}
				b.WriteString("\n")
			}
			if x := tg.XLA; x != nil {
				for _, f := range x.Functions {
					dev := "no XLA device: op by op"
					if x.Device != "" {
						dev = fmt.Sprintf("XLA device %s, compiled %v", x.Device, f.Compiled)
					}
					fmt.Fprintf(&b, "- %s on %s: the function marked for XLA (%d nodes): %s\n", name, tg.Target, f.Nodes, dev)
				}
			}
		}
	}
	return b.String()
}
