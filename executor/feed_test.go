package executor_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/executor"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/kernels"
)

// Feeding follows TensorFlow's subgraph rewrite for Session.run
// (tensorflow/core/graph/subgraph.cc, FeedInputs and PruneForTargets): a
// fed tensor's consumers read the feed, a fed Placeholder's control edges
// fire with the feed, any other fed node keeps its control edges and runs
// when they are needed, and what only fed tensors need is pruned.

// ran runs the executor and returns the fetched tensors with the names of
// the nodes that ran.
func ran(t *testing.T, text string, feeds map[string]*kernels.Tensor, fetches ...string) (map[string]*kernels.Tensor, []string, error) {
	t.Helper()
	var seen []string
	e := newExec(t, text, executor.Options{AfterNode: func(n *graph.Node, _ []*kernels.Tensor) { seen = append(seen, n.Name) }})
	out, err := e.Run(context.Background(), feeds, fetches)
	return out, seen, err
}

func TestFeedPlaceholderWithControlConsumers(t *testing.T) {
	needKernels(t, "Mul", "AddV2")
	// The shape of TF.js-converted models: constants and a NoOp hang off
	// the input by ^x.
	text := placeholder("x", "DT_FLOAT") +
		constF32("two", "2.0", "x") +
		node("y", "Mul", attrF32, "x", "two") +
		node("after", "NoOp", "", "^x") +
		constF32("one", "1.0", "after") +
		node("z", "AddV2", attrF32, "y", "one")
	x := kernels.ScalarFloat(3)
	out, seen, err := ran(t, text, map[string]*kernels.Tensor{"x": x}, "y", "z")
	require.NoError(t, err)
	assert.Equal(t, []float32{6}, out["y"].Data)
	assert.Equal(t, []float32{7}, out["z"].Data)
	assert.NotContains(t, seen, "x", "a fed Placeholder never runs")
	assert.Subset(t, seen, []string{"two", "after", "one"}, "its control consumers run")

	// Unfed, the Placeholder still must be fed.
	_, _, err = ran(t, text, nil, "z")
	assert.ErrorContains(t, err, `placeholder "x" (float32) must be fed`)

	// A control consumer alone, as a target.
	out, seen, err = ran(t, text, map[string]*kernels.Tensor{"x:0": x}, "after")
	require.NoError(t, err)
	assert.Empty(t, out)
	assert.Equal(t, []string{"after"}, seen)
}

func TestFeedIntermediateTensor(t *testing.T) {
	needKernels(t, "Mul", "Neg", "Split")
	text := placeholder("x", "DT_FLOAT") +
		node("a", "Neg", attrF32, "x") +
		constF32("two", "2.0") +
		node("b", "Mul", attrF32, "a", "two") +
		constI32("axis", 0) +
		node("s", "Split", attrF32+` attr { key: "num_split" value { i: 2 } }`, "axis", "b") +
		node("p", "Mul", attrF32, "s:0", "s:1")
	a := kernels.FloatTensor([]int{2}, []float32{5, 7})

	// The producer of a fed tensor, and what only it needs, do not run:
	// x need not be fed.
	out, seen, err := ran(t, text, map[string]*kernels.Tensor{"a:0": a}, "b", "p")
	require.NoError(t, err)
	assert.Equal(t, []float32{10, 14}, out["b"].Data)
	assert.Equal(t, []float32{140}, out["p"].Data)
	assert.NotContains(t, seen, "a")

	// One output of a multi-output node fed, the other computed.
	out, seen, err = ran(t, text, map[string]*kernels.Tensor{"x": kernels.FloatTensor([]int{2}, []float32{1, 2}), "s:1": kernels.FloatTensor([]int{1}, []float32{10})}, "p", "s:0")
	require.NoError(t, err)
	assert.Equal(t, []float32{-20}, out["p"].Data, "s:0 = -2, times the fed s:1")
	assert.Equal(t, []float32{-2}, out["s:0"].Data)
	assert.Contains(t, seen, "s")

	// Feeding the same tensor under two names is TensorFlow's error.
	_, _, err = ran(t, text, map[string]*kernels.Tensor{"a": a, "a:0": a}, "b")
	assert.ErrorContains(t, err, `endpoint "a:0" fed more than once`)
}

// TestFeedNonPlaceholderKeepsControlEdges: only a Placeholder hands its
// control edges to the feed; a fed Neg with a control consumer still runs
// when that consumer is needed, and so needs its own inputs.
func TestFeedNonPlaceholderKeepsControlEdges(t *testing.T) {
	needKernels(t, "Mul", "Neg")
	text := placeholder("x", "DT_FLOAT") +
		node("a", "Neg", attrF32, "x") +
		constF32("two", "2.0", "a") +
		node("b", "Mul", attrF32, "a", "two")
	a := kernels.ScalarFloat(5)
	_, _, err := ran(t, text, map[string]*kernels.Tensor{"a": a}, "b")
	assert.ErrorContains(t, err, `placeholder "x" (float32) must be fed`)

	out, seen, err := ran(t, text, map[string]*kernels.Tensor{"a": a, "x": kernels.ScalarFloat(1)}, "b")
	require.NoError(t, err)
	assert.Equal(t, []float32{10}, out["b"].Data, "b reads the fed a, not Neg's -1")
	assert.Contains(t, seen, "a", "Neg runs for its control consumer")
}

// TestFeedInsideLoop: a tensor of a v1 loop body cannot be fed (TensorFlow
// refuses the frames that result); the loop's Exit and its inputs can.
func TestFeedInsideLoop(t *testing.T) {
	needKernels(t, "AddV2", "Mul", "Less")
	text := placeholder("n", "DT_INT32") + constI32("i0", 0) + whileLoop("while", "i0", "n") +
		node("after", "AddV2", attrI32, "while/Exit", "while/Exit")
	n := kernels.ScalarInt32(3)
	for _, name := range []string{"while/Identity", "while/Merge:0", "while/add", "while/n"} {
		_, _, err := ran(t, text, map[string]*kernels.Tensor{"n": n, name: kernels.ScalarInt32(1)}, "after")
		assert.ErrorContains(t, err, `is inside the while loop frame "while"`, name)
	}
	out, seen, err := ran(t, text, map[string]*kernels.Tensor{"while/Exit": kernels.ScalarInt32(4)}, "after")
	require.NoError(t, err)
	assert.Equal(t, []int32{8}, out["after"].Data)
	assert.Equal(t, []string{"after"}, seen, "the loop does not run")
	out, _, err = ran(t, text, map[string]*kernels.Tensor{"n": n, "i0": kernels.ScalarInt32(2)}, "after")
	require.NoError(t, err)
	assert.Equal(t, []int32{6}, out["after"].Data)
}
