package scan

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/internal/testutil"
	"github.com/tfscan/tfscan/reports"
)

// partFigures is one part's figures and fallback groups ("op dtypes" →
// count) on one target.
type partFigures struct {
	nodes, covered, fallback, newFallback int
	ops                                   map[string]int
}

func trainingFigures(t *reports.Target) map[string]partFigures {
	out := map[string]partFigures{}
	for _, p := range t.Training.Parts {
		f := partFigures{p.Nodes, p.Covered, p.FallbackNodes, p.NewFallbackNodes, map[string]int{}}
		for _, o := range p.Fallback {
			k := o.Op
			for _, d := range o.DTypes {
				k += " " + d
			}
			f.ops[k] = o.Count
		}
		out[p.Part] = f
	}
	return out
}

// TestTrainingKerasImagenet breaks TensorFlow's keras_imagenet_main
// training step down by part on four targets against cuda. The step counts
// 1510 forward, 532 backward, 649 optimizer and 162 loss-scaling nodes
// (training/classify_test.go reads them off the names). What falls back
// follows from the op types:
//   - musa lacks ResourceApplyKerasMomentum: its 161 nodes go to CPU, and
//     with each the resource it updates (TensorFlow colocates a resource
//     with the ops that take it): the 161 momentum slots' _Args
//     (optimizer), and the 161 trainable variables' _Args with the 216
//     ReadVariableOps of the forward pass that read them (53 conv kernels,
//     53 BN gammas and 53 betas, the dense kernel and bias = 161 layer
//     reads, and the 55 of the L2 regulariser). The moving statistics' 106
//     reads and the metrics' 2 stay on the device.
//   - intel-xpu lacks the float16 kernels of the 53 FusedBatchNormGradV2,
//     49 ReluGrad and 1 MaxPoolGrad nodes, all backward.
//   - ascend and rocm have every kernel.
func TestTrainingKerasImagenet(t *testing.T) {
	if testing.Short() {
		t.Skip("places a 2853-node graph on four targets")
	}
	model := filepath.Join(testutil.Corpus(t), "tf", "gd_keras_imagenet_train")
	noFallback := func(uncovered map[string]int) map[string]partFigures {
		out := map[string]partFigures{}
		for p, n := range map[string]int{"forward": 1510, "backward": 532, "optimizer": 649, "loss_scale": 162} {
			out[p] = partFigures{n, n - uncovered[p], 0, 0, map[string]int{}}
		}
		return out
	}
	musa := noFallback(map[string]int{"optimizer": 161})
	musa["forward"] = partFigures{1510, 1510, 377, 377, map[string]int{"ReadVariableOp float32": 216, "_Arg resource": 161}}
	musa["optimizer"] = partFigures{649, 488, 322, 322, map[string]int{"ResourceApplyKerasMomentum float32": 161, "_Arg resource": 161}}
	xpu := noFallback(map[string]int{"backward": 103})
	xpu["backward"] = partFigures{532, 429, 103, 103, map[string]int{
		"FusedBatchNormGradV2 float16 float32": 53, "ReluGrad float16": 49, "MaxPoolGrad float16": 1}}
	want := map[string]map[string]partFigures{"musa": musa, "intel-xpu": xpu, "ascend": noFallback(nil), "rocm": noFallback(nil)}
	for _, all := range []bool{false, true} {
		m := scanOne(t, Options{Paths: []string{model}, Targets: []string{"musa", "intel-xpu", "ascend", "rocm"}, From: "cuda", AllNodes: all})
		for _, tgt := range m.Targets {
			require.NotNil(t, tgt.Training, tgt.Target)
			assert.Equal(t, want[tgt.Target], trainingFigures(tgt), "%s (all nodes: %v)", tgt.Target, all)
			sum := 0
			for _, p := range tgt.Training.Parts {
				sum += p.NewFallbackNodes
			}
			assert.Equal(t, tgt.Delta.NewFallbackNodes, sum, "the parts share out the delta's new fallbacks")
			for _, n := range tgt.Nodes {
				require.NotEmpty(t, n.Part, n.Path)
			}
		}
		require.Equal(t, "intel-xpu", m.Targets[1].Target)
		xpu := m.Targets[1]
		assert.Greater(t, xpu.TrainingPart("backward").IslandBytes, int64(4<<30), "the float16 gradient islands cross about 4.7 GiB per step")
		assert.Zero(t, xpu.TrainingPart("forward").IslandBytes)
	}
}

// TestTrainingOnlyForTrainingGraphs: a served model has no backward or
// optimizer node, so neither the target nor its nodes name parts.
func TestTrainingOnlyForTrainingGraphs(t *testing.T) {
	m := scanOne(t, Options{Paths: []string{kerasModel}, Targets: []string{"musa"}, AllNodes: true})
	assert.Nil(t, m.Targets[0].Training)
	for _, n := range m.Targets[0].Nodes {
		assert.Empty(t, n.Part, n.Path)
	}
}
