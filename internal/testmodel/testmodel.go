// Package testmodel is the load → select → build sequence that tests of
// several packages share: a model read from disk and the graph of its
// default meta graph. It is apart from testutil because it imports graph,
// whose own in-package tests import testutil.
package testmodel

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/savedmodel"
)

// Load reads the model at path and builds the graph of its default meta
// graph (serve, else the first, as graph.SelectMetaGraph picks), failing
// t on any error.
func Load(t testing.TB, path string) (*savedmodel.Model, *graph.Graph) {
	t.Helper()
	m, g, err := build(path)
	require.NoError(t, err)
	return m, g
}

// TryGraph is the graph of the model at path, or why it cannot be built:
// the corpus holds malformed models on purpose. A folder that holds one
// file is read as that file (a corpus entry of one GraphDef).
func TryGraph(path string) (*graph.Graph, error) {
	if ents, err := os.ReadDir(path); err == nil && len(ents) == 1 && !ents[0].IsDir() {
		path = filepath.Join(path, ents[0].Name())
	}
	_, g, err := build(path)
	return g, err
}

// build reads the model at path and builds the graph of its default meta
// graph.
func build(path string) (*savedmodel.Model, *graph.Graph, error) {
	m, err := savedmodel.Load(path)
	if err != nil {
		return nil, nil, err
	}
	mg, err := graph.SelectMetaGraph(m, nil)
	if err != nil {
		return nil, nil, err
	}
	g, err := graph.Build(m, mg)
	return m, g, err
}

// Graph is Load's graph alone.
func Graph(t testing.TB, path string) *graph.Graph {
	t.Helper()
	_, g := Load(t, path)
	return g
}

// NumberingKinds are the ways Numbered numbers nodes.
var NumberingKinds = []string{"consecutive", "shuffled", "same", "gaps"}

// Numbered is n bare nodes numbered as kind says: "consecutive" from base
// on (as graph.Build numbers a scope), "shuffled" (those numbers in
// another order), "same" (every ID 0, as in a graph made by hand) or
// "gaps" (every third number from base): the cases of code that reads a
// node's position from its ID.
func Numbered(kind string, n, base int) []*graph.Node {
	nodes := make([]*graph.Node, n)
	for i := range nodes {
		nodes[i] = &graph.Node{}
		switch kind {
		case "consecutive":
			nodes[i].ID = base + i
		case "shuffled":
			nodes[i].ID = base + (i*7919)%n // 7919 is prime: a permutation below it
		case "gaps":
			nodes[i].ID = base + 3*i
		}
	}
	return nodes
}
