package executor_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/executor"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/internal/testmodel"
	"github.com/tfscan/tfscan/kernels"
	"github.com/tfscan/tfscan/savedmodel"
	"github.com/tfscan/tfscan/savedmodel/modelgen"
)

// chainGraph loads modelgen's valid SavedModel of depth nested calls
// (y = 2x).
func chainGraph(t testing.TB, depth int) *graph.Graph {
	t.Helper()
	data, err := modelgen.CallChainBytes(depth)
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "saved_model.pb"), data, 0o644))
	return testmodel.Graph(t, dir)
}

func runChain(t *testing.T, g *graph.Graph, opts executor.Options) (*kernels.Tensor, error) {
	t.Helper()
	e, err := executor.New(g, nil, opts)
	require.NoError(t, err)
	x := &kernels.Tensor{DType: tpb.DataType_DT_FLOAT, Data: []float32{3}}
	out, err := e.Run(context.Background(), map[string]*kernels.Tensor{"serving_default_x": x}, []string{"StatefulPartitionedCall:0"})
	if err != nil {
		return nil, err
	}
	return out["StatefulPartitionedCall:0"], nil
}

// TensorFlow sets no limit on how deep function calls nest, and neither
// does the executor: a valid chain of 10,000 nested calls runs (each
// callHop levels on a fresh goroutine's stack, so the Go runtime's 1 GB
// stack limit is never reached), through the signature too.
func TestDeepCallChainRuns(t *testing.T) {
	g := chainGraph(t, 10_000)
	y, err := runChain(t, g, executor.Options{})
	require.NoError(t, err)
	assert.Equal(t, []float32{6}, y.Data)

	e, err := executor.New(g, nil, executor.Options{})
	require.NoError(t, err)
	out, err := e.RunSignature(context.Background(), "serving_default", map[string]*kernels.Tensor{
		"x": {DType: tpb.DataType_DT_FLOAT, Data: []float32{-1.5}}})
	require.NoError(t, err)
	assert.Equal(t, []float32{-3}, out["y"].Data)
}

// An explicit MaxCallDepth still bounds the nesting with an error that
// names the call that went too deep; the default bound is the library's
// size, which only a recursive library (refused by graph.Build) exceeds.
func TestMaxCallDepth(t *testing.T) {
	g := chainGraph(t, 300)
	_, err := runChain(t, g, executor.Options{MaxCallDepth: 300})
	require.NoError(t, err, "exactly as deep as the bound")
	_, err = runChain(t, g, executor.Options{MaxCallDepth: 299})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "/__inference_call_298/StatefulPartitionedCall (StatefulPartitionedCall): function calls nested deeper than 299 (recursion?)")
}

// A kernel that panics deep in a chain, on a goroutine the call hopped to,
// still ends the run with an *InternalError, not a crash.
func TestDeepCallChainKernelPanic(t *testing.T) {
	kernels.Register("TfscanTestDeepPanic", func(c *kernels.Context) ([]*kernels.Tensor, error) { panic("deep boom") })
	sm := modelgen.CallChain(1000)
	lib := sm.GetMetaGraphs()[0].GetGraphDef().GetLibrary().GetFunction()
	last := lib[len(lib)-1].GetNodeDef()
	for _, n := range last {
		if n.GetName() == "mul" {
			n.Op = "TfscanTestDeepPanic"
		}
	}
	mg := &savedmodel.MetaGraph{Tags: []string{"serve"}, Def: sm.GetMetaGraphs()[0]}
	g, _ := graph.Build(&savedmodel.Model{File: "chain/saved_model.pb", MetaGraphs: []*savedmodel.MetaGraph{mg}}, mg)
	require.NotNil(t, g)
	_, err := runChain(t, g, executor.Options{})
	var ie *executor.InternalError
	require.True(t, errors.As(err, &ie), "%v", err)
	assert.Contains(t, err.Error(), "__inference_call_999/mul (TfscanTestDeepPanic): kernel panicked: deep boom")
}
