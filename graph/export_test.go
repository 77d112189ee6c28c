package graph

import "github.com/tfscan/tfscan/internal/csr"

// WithoutIndex is g without its consumer index, as a graph assembled by
// hand is.
func WithoutIndex(g *Graph) *Graph {
	bare := *g
	bare.edges = csr.Groups[*Node]{}
	return &bare
}

// PhasesWalked is phasesWalked: g.Phases(signature) as the walks give it.
func PhasesWalked(g *Graph, signature string) []Phase { return phasesWalked(g, signature) }
