// Package testexec loads a model into an executor as `tfscan run` does, for
// the tests and benchmarks that run models. It is apart from testmodel
// because it imports executor, which imports graph/shape, whose tests load
// models through testmodel.
package testexec

import (
	"github.com/tfscan/tfscan/executor"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/kernels"
	"github.com/tfscan/tfscan/savedmodel"
)

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
