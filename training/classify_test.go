package training

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/internal/testutil"
	"github.com/tfscan/tfscan/savedmodel"
)

// TestPartOf checks the rules one node at a time: the op decides first,
// then a backward function's body, then the outermost scope naming a part.
func TestPartOf(t *testing.T) {
	backward := &graph.Function{Name: "__inference___backward_call_123_456"}
	forward := &graph.Function{Name: "__inference___forward_call_123"}
	for _, tc := range []struct {
		name, op string
		fn       *graph.Function
		want     Part
		decided  bool
	}{
		{"conv1/Conv2D", "Conv2D", nil, Forward, false},
		{"a/ReluGrad", "ReluGrad", nil, Backward, true},
		{"a/bn_grad", "FusedBatchNormGradV3", nil, Backward, true},
		{"x", "Conv2DBackpropFilter", nil, Backward, true},
		{"x", "BroadcastGradientArgs", nil, Backward, true},
		{"x", "StopGradient", nil, Forward, false},
		{"gradients/dense/MatMul_grad/MatMul", "MatMul", nil, Backward, true},
		{"gradients_1/AddN", "AddN", nil, Backward, true},
		{"gradient_tape/model/dense/MatMul/MatMul", "MatMul", nil, Backward, true},
		{"ConstantFolding/training/Adam/gradients/conv1/Conv2D_grad/ShapeN-matshapes-1", "Const", nil, Backward, true},
		{"MatMul", "MatMul", backward, Backward, true},
		{"MatMul", "MatMul", forward, Forward, false},
		{"training/SGD/update/ResourceApplyKerasMomentum", "ResourceApplyKerasMomentum", nil, Optimizer, true},
		{"x", "ApplyAdam", nil, Optimizer, true},
		{"x", "ResourceSparseApplyAdagradV2", nil, Optimizer, true},
		{"x", "ApproximateEqual", nil, Forward, false},
		{"Adam/AssignAddVariableOp", "AssignAddVariableOp", nil, Optimizer, true},
		{"SGD_1/ReadVariableOp", "ReadVariableOp", nil, Optimizer, true},
		{"training/LossScaleOptimizer/mul_3", "Mul", nil, LossScale, true},
		{"LossScaleOptimizer/IsFinite_2", "IsFinite", nil, LossScale, true},
		{"IsFinite_3", "IsFinite", nil, LossScale, true},
		{"training/LossScaleOptimizer/gradients/AddN", "AddN", nil, Backward, true},
		{"training/LossScaleOptimizer/SGD/ReadVariableOp", "ReadVariableOp", nil, Optimizer, true},
		{"cond/good_steps/AssignAddVariableOp", "AssignAddVariableOp", nil, LossScale, true},
		{"x", "CollectiveReduceV2", nil, Collective, true},
		{"gradients/x", "NcclAllReduce", nil, Collective, true},
		{"x", "IteratorGetNext", nil, Input, true},
		{"x", "TensorSliceDataset", nil, Input, true},
		{"x", "AnonymousIteratorV3", nil, Input, true},
		{"x", "OptionalGetValue", nil, Input, true},
		{"training/Adam/gradients/AddN", "AddN", nil, Backward, true},
		{"model/dense_grad/x/Mul", "Mul", nil, Backward, true},
	} {
		t.Run(tc.name+"_"+tc.op, func(t *testing.T) {
			p, ok := partOf(&graph.Node{Name: tc.name, Op: tc.op, Func: tc.fn})
			assert.Equal(t, tc.want, p)
			assert.Equal(t, tc.decided, ok)
		})
	}
}

// TestPartOfAllocatesNothing holds partOf to reading a node's name in
// place: a scan asks it of every node of every graph.
func TestPartOfAllocatesNothing(t *testing.T) {
	for _, name := range []string{"conv1/Conv2D", "training/LossScaleOptimizer/SGD/ReadVariableOp", "gradients_1/a/b/AddN", "x"} {
		n := &graph.Node{Name: name, Op: "AddV2"}
		assert.Zero(t, testing.AllocsPerRun(20, func() { partOf(n) }), name)
	}
}

func TestTrimIndex(t *testing.T) {
	for in, want := range map[string]string{"gradients_1": "gradients", "SGD": "SGD", "mul_": "mul_", "_1": "_1", "a_b": "a_b"} {
		assert.Equal(t, want, trimIndex(in), in)
	}
}

// TestPartsKerasImagenet classifies TensorFlow's keras_imagenet_main
// training graph (2853 top-level nodes, 106 in functions, all forward). The counts are read off its
// names: 426 nodes under training/LossScaleOptimizer/gradients/ and 106
// constants Grappler folded out of them (ConstantFolding/training/…/
// gradients/…) are the backward pass; the 485 nodes under
// training/LossScaleOptimizer/SGD/ (161 ResourceApplyKerasMomentum, their
// 322 ReadVariableOps, the iteration counter's AssignAddVariableOp and its
// Const) and the 164 _Args only they read (161 momentum slots, the learning
// rate, the momentum and the iteration counter) are the optimizer; the 161
// gradient unscaling Muls and the truediv constant left directly under
// training/LossScaleOptimizer/ are the loss scaling.
func TestPartsKerasImagenet(t *testing.T) {
	m, err := savedmodel.Load(filepath.Join(testutil.Corpus(t), "tf/gd_keras_imagenet_train/keras_imagenet_main.pbtxt"))
	require.NoError(t, err)
	mg, err := graph.SelectMetaGraph(m, nil)
	require.NoError(t, err)
	g, err := graph.Build(m, mg)
	require.NoError(t, err)
	parts := Parts(g)
	require.True(t, IsTraining(parts))
	count := map[string]int{}
	ops := map[string]map[string]int{}
	for _, n := range g.Nodes {
		p := parts[n.ID].String()
		count[p]++
		if ops[p] == nil {
			ops[p] = map[string]int{}
		}
		ops[p][n.Op]++
	}
	assert.Equal(t, map[string]int{"forward": 2853 + 106 - 532 - 649 - 162, "backward": 426 + 106, "optimizer": 485 + 164, "loss_scale": 162}, count)
	assert.Equal(t, map[string]int{"_Arg": 164, "ReadVariableOp": 322, "ResourceApplyKerasMomentum": 161, "AssignAddVariableOp": 1, "Const": 1}, ops["optimizer"])
	assert.Equal(t, 53, ops["backward"]["FusedBatchNormGradV2"])
	assert.Equal(t, 49, ops["backward"]["ReluGrad"])
	assert.Equal(t, 53, ops["forward"]["FusedBatchNormV2"])
	assert.Equal(t, 0, ops["forward"]["ResourceApplyKerasMomentum"])
}

// TestNotTraining: a serving graph has no backward or optimizer node.
func TestNotTraining(t *testing.T) {
	assert.False(t, IsTraining([]Part{Forward, Input, Forward}))
	assert.True(t, IsTraining([]Part{Forward, Optimizer}))
}

// Every scope the lists name is told by its name, with or without the
// index TensorFlow makes it unique with; scopeKindOf's first-byte check
// tells the others plain without looking them up.
func TestScopeKindOfEveryListedScope(t *testing.T) {
	want := map[string]scopeKind{"gradients": gradientScope, "gradients_3": gradientScope,
		"gradient_tape": gradientScope, "dense_grad": gradientScope, "Relu_grad": gradientScope,
		"dense": plainScope, "dense_1": plainScope, "model": plainScope, "": plainScope, "Adamant": plainScope}
	for _, s := range optimizerScopes {
		want[s], want[s+"_2"] = optimizerScope, optimizerScope
	}
	for _, s := range lossScaleScopes {
		want[s], want[s+"_1"] = lossScaleScope, lossScaleScope
	}
	for s, k := range want {
		if got := scopeKindOf(s); got != k {
			t.Errorf("scopeKindOf(%q) = %d, want %d", s, got, k)
		}
	}
}
