package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/executor"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/internal/tfenv"
	"github.com/tfscan/tfscan/kernels"
	"github.com/tfscan/tfscan/kernels/npz"
	"github.com/tfscan/tfscan/parity"
	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/savedmodel"
)

func init() { owners["training_parity"] = true }

// trainParityModels is the factory of the mixed_float16 steps: a CNN and a
// dense network, each with a float32 softmax head as Keras' mixed
// precision guide writes it. The CNN's logits pass a float32 Rescaling
// first: by 1e-8 its gradients fall below float16's smallest subnormal
// without loss scaling; by 1e6 they exceed float16's largest value even at
// loss scale 1.
const trainParityModels = `import tf_keras as keras


def _head(k):
    layers = [] if k is None else [keras.layers.Rescaling(k, dtype="float32")]
    return layers + [keras.layers.Activation("softmax", dtype="float32")]


def _cnn(k):
    keras.utils.set_random_seed(1)
    return keras.Sequential([keras.Input((8, 8, 3)), keras.layers.Conv2D(4, 3, activation="relu"),
                             keras.layers.MaxPooling2D(), keras.layers.Flatten(), keras.layers.Dense(10)] + _head(k))


def cnn_tiny():
    return _cnn(1e-8)


def cnn_huge():
    return _cnn(1e6)


def mlp():
    keras.utils.set_random_seed(2)
    return keras.Sequential([keras.Input((12,)), keras.layers.Dense(16, activation="tanh"),
                             keras.layers.Dense(8, activation="sigmoid"), keras.layers.Dense(5)] + _head(None))
`

// trainParityCase is one exported step and the loss scales TensorFlow runs
// it at.
type trainParityCase struct {
	factory string
	classes int
	scales  []int
}

var trainParityCases = []trainParityCase{
	{"cnn_tiny", 10, []int{1, 32768}},
	{"cnn_huge", 10, []int{1, 32768}},
	{"mlp", 5, []int{32768}},
}

// Tolerances of tfscan's runs of a step against TensorFlow's: the run in
// the model's own dtypes (float16 where Keras computes in float16, as
// TensorFlow's CPU kernels) and the float64 reference (which parity
// compares the emulation with), on the loss and every updated variable.
const (
	ownRTol, ownATol = 1e-3, 1e-5
	refRTol, refATol = 1e-2, 1e-4
)

// TestTrainingParity exports mixed_float16 training steps with TensorFlow
// (tools/tf/export_train_step.py, SGD in a LossScaleOptimizer), runs each
// once in TensorFlow per loss scale on seeded inputs
// (tools/tf/train_step_oracle.py), and holds tfscan to it: the executor's
// run of the step in the model's dtypes and its float64 reference run give
// TensorFlow's loss and updated variables within tolerance; tfscan's
// parity says a step is applied exactly when TensorFlow's
// LossScaleOptimizer applies it (good_steps counts it); and the
// constructed cases keep their findings: cnn_tiny's gradients underflow
// without loss scaling and not at 2**15 (TensorFlow leaves the weights
// unchanged at scale 1), cnn_huge's overflow at every scale, so the
// dynamic scale skips every step down to 1.
func TestTrainingParity(t *testing.T) {
	dir := t.TempDir()
	factory := filepath.Join(dir, "train_parity.py")
	require.NoError(t, os.WriteFile(factory, []byte(trainParityModels), 0o644))
	tfenv.Python(t)
	// The cases export and run in TensorFlow side by side; failures are
	// reported from the test's goroutine.
	errs := make([]error, len(trainParityCases))
	var wg sync.WaitGroup
	for i, c := range trainParityCases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var scales []string
			for _, s := range c.scales {
				scales = append(scales, fmt.Sprint(s))
			}
			for _, args := range [][]string{
				{"tools/tf/export_train_step.py", factory + ":" + c.factory, filepath.Join(dir, c.factory),
					"--optimizer", "sgd", "--loss", "sparse_categorical_crossentropy", "--mixed-float16", "--batch", "4"},
				{"tools/tf/train_step_oracle.py", filepath.Join(dir, c.factory, "saved_model"),
					filepath.Join(dir, c.factory, "tf"), "--classes", fmt.Sprint(c.classes), "--loss-scales", strings.Join(scales, ",")},
			} {
				if _, stderr, err := tfenv.RunErr(t, args[0], args[1:]...); err != nil {
					errs[i] = fmt.Errorf("%s %s: %v\n%s", args[0], c.factory, err, lastLines(stderr, 5))
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	tfscan := buildTfscan(t, dir)
	var rows []string
	for _, c := range trainParityCases {
		sm := filepath.Join(dir, c.factory, "saved_model")
		inputs := filepath.Join(dir, c.factory, "tf", "inputs.npz")
		js := filepath.Join(dir, c.factory+".json")
		run := exec.Command(tfscan, "parity", "--target", "cpu", "--signature", "train_step", "--inputs", inputs, "--format", "json="+js, sm)
		if b, err := run.CombinedOutput(); err != nil {
			var ee *exec.ExitError
			require.True(t, errors.As(err, &ee) && ee.ExitCode() == 1, "%s: %v\n%s", c.factory, err, b)
		}
		raw, err := os.ReadFile(js)
		require.NoError(t, err)
		var r reports.Report
		require.NoError(t, json.Unmarshal(raw, &r))
		require.Len(t, r.Models, 1, "%s: %v", c.factory, r.Errors)
		tr := r.Models[0].Targets[0].Parity.Training
		require.NotNil(t, tr, "%s: no training parity", c.factory)
		require.Equal(t, 32768.0, tr.InitialScale, c.factory)
		for _, scale := range c.scales {
			tf, err := npz.Read(filepath.Join(dir, c.factory, "tf", fmt.Sprintf("after-%d.npz", scale)))
			require.NoError(t, err)
			tfApplied := scalarOf(t, tf["good_steps"]) == 1
			own := runStep(t, sm, inputs, float64(scale), tpb.DataType_DT_INVALID)
			ownDiff := compareStep(t, c.factory+" own dtypes", own, tf, ownRTol, ownATol)
			// The float64 reference holds what float16 overflows: where
			// TensorFlow skips the step, the reference applies it.
			refDiff := "–"
			if tfApplied {
				ref := runStep(t, sm, inputs, float64(scale), tpb.DataType_DT_DOUBLE)
				refDiff = measured(fmt.Sprintf("%.2g", compareStep(t, c.factory+" float64", ref, tf, refRTol, refATol)))
			}
			step := parityStep(tr, float64(scale))
			require.NotNil(t, step, "%s: no parity step at scale %d", c.factory, scale)
			require.Equal(t, tfApplied, step.Applied, "%s at scale %d: TensorFlow applies the step: %v", c.factory, scale, tfApplied)
			var findings []string
			for _, g := range step.Gradients {
				if g.Finding != "" {
					findings = append(findings, g.Finding)
				}
			}
			found := "none"
			if len(findings) > 0 {
				found = fmt.Sprintf("%d %s", len(findings), strings.Join(uniq(findings), ", "))
			}
			// the shares of the tolerance follow TensorFlow's contractions
			// on this machine
			rows = append(rows, fmt.Sprintf("| %s | %d | %s | %s | %s | %s | %s of %d |", c.factory, scale, yesNo(tfApplied), yesNo(step.Applied),
				measured(fmt.Sprintf("%.2g", ownDiff)), refDiff, found, len(step.Gradients)))
		}
		switch c.factory {
		case "cnn_tiny":
			for _, g := range tr.WithoutLossScaling.Gradients {
				require.Equal(t, "underflow", g.Finding, "%s without loss scaling: %s", c.factory, g.Path)
				require.Greater(t, g.LostMass, 0.99, g.Path)
				require.NotNil(t, g.Origin, g.Path)
			}
			require.True(t, tr.WithLossScaling[0].Applied)
			for _, g := range tr.WithLossScaling[0].Gradients {
				require.Empty(t, g.Finding, "%s at 2**15: %s", c.factory, g.Path)
			}
			tf, _ := npz.Read(filepath.Join(dir, c.factory, "tf", "after-1.npz"))
			ck := checkpointOf(t, sm)
			for _, k := range []string{"conv2d/kernel", "dense/kernel"} {
				_, d := maxDiff(t, tf[k], ck[k])
				require.Zero(t, d, "%s: TensorFlow's step at scale 1 changes %s: its gradient did not underflow", c.factory, k)
			}
		case "cnn_huge":
			for _, g := range tr.WithoutLossScaling.Gradients {
				require.Equal(t, "overflow", g.Finding, "%s without loss scaling: %s", c.factory, g.Path)
			}
			require.Nil(t, tr.SettledScale, c.factory)
			require.Equal(t, 16, tr.SkippedSteps, c.factory)
			require.Len(t, tr.WithLossScaling, 16)
			require.Equal(t, 1.0, tr.WithLossScaling[15].LossScale)
		}
	}
	section("training_parity", trainingParitySection(rows))
}

// stepRun is a step's loss and variables after one run in tfscan.
type stepRun struct {
	loss float64
	vars map[string]*kernels.Tensor
}

// runStep runs the SavedModel's train_step in tfscan's executor with the
// loss scale set to scale, in the model's dtypes (compute DT_INVALID) or
// in float64.
func runStep(t *testing.T, dir, inputs string, scale float64, compute tpb.DataType) stepRun {
	t.Helper()
	m, err := savedmodel.Load(dir)
	require.NoError(t, err)
	mg, err := graph.SelectMetaGraph(m, nil)
	require.NoError(t, err)
	g, err := graph.Build(m, mg)
	require.NoError(t, err)
	ck, err := kernels.OpenCheckpoint(m.VariablesPrefix)
	require.NoError(t, err)
	ex, err := executor.New(g, ck, executor.Options{Compute: compute})
	require.NoError(t, err)
	require.NoError(t, ex.SetVariable(parity.LossScaleVariable, kernels.ScalarFloat(float32(scale))))
	arrays, err := npz.Read(inputs)
	require.NoError(t, err)
	sig := executor.FindSignature(g.Signatures, "train_step")
	require.NotNil(t, sig)
	feeds, _, err := executor.FeedsFrom(g, sig, arrays)
	require.NoError(t, err)
	fetches, names := executor.Outputs(g, sig)
	out, err := ex.Run(context.Background(), feeds, fetches)
	require.NoError(t, err)
	var loss float64
	for i, n := range names {
		if n == "loss" {
			loss = scalarOf(t, out[fetches[i]])
		}
	}
	return stepRun{loss: loss, vars: ex.Variables()}
}

// compareStep requires tfscan's loss and every variable TensorFlow wrote
// within rtol/atol and returns the largest difference as a share of its
// tolerance, |a−b| / (atol + rtol·|b|) (at most 1).
func compareStep(t *testing.T, what string, got stepRun, tf map[string]*kernels.Tensor, rtol, atol float64) float64 {
	t.Helper()
	want := scalarOf(t, tf["loss"])
	worst := math.Abs(got.loss-want) / (atol + rtol*math.Abs(want))
	require.InDelta(t, want, got.loss, atol+rtol*math.Abs(want), "%s: loss", what)
	for k, v := range tf {
		if k == "loss" {
			continue
		}
		g := got.vars[k]
		require.NotNil(t, g, "%s: tfscan has no variable %s (has %v)", what, k, executor.VariableNames(got.vars))
		a, b := values(t, g), values(t, v)
		require.Len(t, a, len(b), "%s: %s", what, k)
		for i := range a {
			require.InDelta(t, b[i], a[i], atol+rtol*math.Abs(b[i]), "%s: %s[%d]", what, k, i)
			worst = math.Max(worst, math.Abs(a[i]-b[i])/(atol+rtol*math.Abs(b[i])))
		}
	}
	return worst
}

func checkpointOf(t *testing.T, dir string) map[string]*kernels.Tensor {
	t.Helper()
	m, err := savedmodel.Load(dir)
	require.NoError(t, err)
	mg, err := graph.SelectMetaGraph(m, nil)
	require.NoError(t, err)
	g, err := graph.Build(m, mg)
	require.NoError(t, err)
	ck, err := kernels.OpenCheckpoint(m.VariablesPrefix)
	require.NoError(t, err)
	ex, err := executor.New(g, ck, executor.Options{})
	require.NoError(t, err)
	return ex.Variables()
}

func maxDiff(t *testing.T, a, b *kernels.Tensor) (int, float64) {
	t.Helper()
	av, bv := values(t, a), values(t, b)
	require.Len(t, av, len(bv))
	d := 0.0
	for i := range av {
		d = math.Max(d, math.Abs(av[i]-bv[i]))
	}
	return len(av), d
}

func values(t *testing.T, x *kernels.Tensor) []float64 {
	t.Helper()
	require.NotNil(t, x)
	v, ok := x.Float64s()
	require.True(t, ok, "%s holds no numbers", x.DType)
	return v
}

func scalarOf(t *testing.T, x *kernels.Tensor) float64 {
	t.Helper()
	v := values(t, x)
	require.Len(t, v, 1)
	return v[0]
}

func parityStep(tr *reports.ParityTraining, scale float64) *reports.ParityStep {
	if scale == 1 {
		return &tr.WithoutLossScaling
	}
	for i := range tr.WithLossScaling {
		if tr.WithLossScaling[i].LossScale == scale {
			return &tr.WithLossScaling[i]
		}
	}
	return nil
}

func yesNo(b bool) string {
	if b {
		return "applied"
	}
	return "skipped"
}

func uniq(xs []string) []string {
	var out []string
	for _, x := range xs {
		if len(out) == 0 || out[len(out)-1] != x {
			out = append(out, x)
		}
	}
	return out
}

func trainingParitySection(rows []string) string {
	var b strings.Builder
	b.WriteString("## Mixed-precision training steps\n\n")
	b.WriteString("`TestTrainingParity` exports mixed_float16 training steps (SGD in a LossScaleOptimizer) with " +
		"`tools/tf/export_train_step.py`, runs each once in TensorFlow per loss scale on seeded inputs " +
		"(`tools/tf/train_step_oracle.py`) and compares: tfscan's run of the step in the model's dtypes and its float64 " +
		"reference give TensorFlow's loss and updated variables (below: the largest difference as a share of its tolerance, " +
		"|a−b| / (atol + rtol·|b|); the reference only where TensorFlow applies the step, since float64 holds what float16 " +
		"overflows; tolerances " +
		fmt.Sprintf("rtol %g/atol %g and rtol %g/atol %g), ", ownRTol, ownATol, refRTol, refATol) +
		"and `tfscan parity --target cpu` applies or skips the step as TensorFlow's LossScaleOptimizer does. " +
		"`cnn_tiny` scales the logits by 1e-8 (its gradients underflow in float16 without loss scaling), `cnn_huge` by 1e6 " +
		"(they overflow even at scale 1; the dynamic scale skips every step down to 1).\n\n")
	b.WriteString("| step | loss scale | TensorFlow | tfscan | error/tolerance, own dtypes | error/tolerance, float64 | gradients with a finding |\n")
	b.WriteString("|---|---:|---|---|---:|---:|---|\n")
	for _, r := range rows {
		b.WriteString(r + "\n")
	}
	return b.String()
}
