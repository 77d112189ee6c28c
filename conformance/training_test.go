package conformance

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/internal/tfenv"
	"github.com/tfscan/tfscan/reports"
)

// trainCNN is the factory tools/tf/export_train_step.py builds the model
// from: a convolution with batch normalisation, ReLU and pooling, and a
// dense head.
const trainCNN = `import tf_keras as keras


def cnn():
    return keras.Sequential([keras.Input((16, 16, 3)), keras.layers.Conv2D(4, 3), keras.layers.BatchNormalization(),
                             keras.layers.ReLU(), keras.layers.MaxPooling2D(), keras.layers.Flatten(), keras.layers.Dense(5)])


def broken():
    raise RuntimeError("no model here")


class Eager(keras.layers.Layer):
    def call(self, x, training=None):
        return x * float(x.numpy().mean()) if training else x


def untraceable():
    return keras.Sequential([keras.Input((4,)), Eager(), keras.layers.Dense(2)])
`

// TestExportTrainStep exports the mixed_float16 training step of a small
// CNN with TensorFlow (GradientTape, Adam in a LossScaleOptimizer) and scans
// its SavedModel and its GraphDef: each is a training step with forward,
// backward, optimizer and loss_scale nodes, the gradient kernels are
// backward, and every node listed names its part. Bad arguments end in one
// line and exit 2 (a strategy over 0 devices, an optimizer TensorFlow does
// not know), a model that cannot be built or traced in exit 3.
func TestExportTrainStep(t *testing.T) {
	dir := t.TempDir()
	factory := filepath.Join(dir, "train_cnn.py")
	require.NoError(t, os.WriteFile(factory, []byte(trainCNN), 0o644))
	const script = "tools/tf/export_train_step.py"
	for _, bad := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{factory + ":cnn", filepath.Join(dir, "x"), "--optimizer", "sgd", "--loss", "mse", "--replicas", "0"}, 2, "--replicas 0"},
		{[]string{factory + ":cnn", filepath.Join(dir, "x"), "--optimizer", "nosuchopt", "--loss", "mse"}, 2, "--optimizer nosuchopt"},
		{[]string{factory + ":broken", filepath.Join(dir, "x"), "--optimizer", "sgd", "--loss", "mse"}, 3, "cannot load the model"},
		{[]string{factory + ":untraceable", filepath.Join(dir, "x"), "--optimizer", "sgd", "--loss", "mse"}, 3,
			"cannot trace the training step: AttributeError: 'SymbolicTensor' object has no attribute 'numpy'"},
	} {
		_, stderr, err := tfenv.RunErr(t, script, bad.args...)
		var ee *exec.ExitError
		require.True(t, errors.As(err, &ee), "%v: %v", bad.args, err)
		assert.Equal(t, bad.code, ee.ExitCode(), "%s", stderr)
		line := lastLines(stderr, 1) // the exporter's one line follows TensorFlow's own
		assert.True(t, strings.HasPrefix(line, "export_train_step: "), "%s", stderr)
		assert.Contains(t, line, bad.msg)
	}
	out := filepath.Join(dir, "step")
	tfenv.Run(t, script, factory+":cnn", out, "--optimizer", "adam", "--loss", "sparse_categorical_crossentropy", "--mixed-float16")
	tfscan := buildTfscan(t, dir)
	for _, model := range []string{filepath.Join(out, "saved_model"), filepath.Join(out, "train_step.pb")} {
		js := filepath.Join(dir, "scan.json")
		run := exec.Command(tfscan, "scan", "--target", "intel-xpu", "--format", "json="+js, model)
		if b, err := run.CombinedOutput(); err != nil {
			var ee *exec.ExitError
			require.True(t, errors.As(err, &ee) && ee.ExitCode() == 1, "%s: %v\n%s", model, err, b)
		}
		raw, err := os.ReadFile(js)
		require.NoError(t, err)
		var r reports.Report
		require.NoError(t, json.Unmarshal(raw, &r))
		require.Len(t, r.Models, 1, "%s: %v", model, r.Errors)
		tg := r.Models[0].Targets[0]
		require.NotNil(t, tg.Training, model)
		for _, p := range []string{"forward", "backward", "optimizer", "loss_scale"} {
			tp := tg.TrainingPart(p)
			if assert.NotNil(t, tp, "%s: %s", model, p) {
				assert.Positive(t, tp.Nodes, "%s: %s", model, p)
			}
		}
		for _, n := range tg.Nodes {
			assert.NotEmpty(t, n.Part, "%s: %s", model, n.Path)
			if strings.HasSuffix(n.Op, "Grad") || strings.HasSuffix(n.Op, "GradV3") || strings.Contains(n.Op, "Backprop") {
				assert.Equal(t, "backward", n.Part, "%s: %s", model, n.Path)
			}
		}
	}
}
