// Package testmodel is the load → select → build sequence that tests of
// several packages share: a model read from disk and the graph of its
// default meta graph, and an executor over it. It is apart from testutil because it imports graph,
// whose own in-package tests import testutil.
package testmodel

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/executor"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/kernels"
	"github.com/tfscan/tfscan/savedmodel"
)

// Load reads the model at path and builds the graph of its default meta
// graph (serve, else the first, as graph.SelectMetaGraph picks), failing
// t on any error.
func Load(t testing.TB, path string) (*savedmodel.Model, *graph.Graph) {
	t.Helper()
	m, err := savedmodel.Load(path)
	require.NoError(t, err)
	mg, err := graph.SelectMetaGraph(m, nil)
	require.NoError(t, err)
	g, err := graph.Build(m, mg)
	require.NoError(t, err)
	return m, g
}

// Executor loads the model at path as `tfscan run` does: the graph of its
// default meta graph and an executor with the model's checkpoint, when it
// has one, as its weights.
func Executor(path string) (*executor.Executor, *graph.Graph, error) {
	m, err := savedmodel.Load(path)
	if err != nil {
		return nil, nil, err
	}
	mg, err := graph.SelectMetaGraph(m, nil)
	if err != nil {
		return nil, nil, err
	}
	g, err := graph.Build(m, mg)
	if err != nil {
		return nil, nil, err
	}
	var weights kernels.WeightSource
	if m.VariablesPrefix != "" {
		ck, err := kernels.OpenCheckpoint(m.VariablesPrefix)
		if err != nil {
			return nil, nil, err
		}
		weights = ck
	}
	ex, err := executor.New(g, weights, executor.Options{})
	if err != nil {
		return nil, nil, err
	}
	return ex, g, nil
}

// Graph is Load's graph alone.
func Graph(t testing.TB, path string) *graph.Graph {
	t.Helper()
	_, g := Load(t, path)
	return g
}
