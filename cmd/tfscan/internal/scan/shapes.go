package scan

import (
	"github.com/tfscan/tfscan/coverage/placement"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/graph/shape"
)

// shapeOptions are the placement options that shape inference reads
// (placement.InferShapes): the scan's, the same for every target.
func shapeOptions(opts Options) placement.Options {
	return placement.Options{Dims: opts.Placement.Dims, Signature: opts.Signature, Checkpoint: opts.checkpoint}
}

// aheadShapes are a model's static shapes, inferred on a goroutine of
// their own while the scan prepares its nodes, phases and training parts,
// which read the graph as inference does and need no shapes: the first
// placement is the first to need them. Where a core is free the scan then
// takes less time; its CPU is the same. A scan that makes its placements'
// shared part ahead (sharedAhead) infers them on its own goroutine
// instead, beside that part's.
type aheadShapes struct {
	shapes *shape.Shapes
	done   func() // started's wait
}

// inferAhead starts inferring g's shapes with the scan's options.
func inferAhead(g *graph.Graph, opts Options) *aheadShapes {
	a := &aheadShapes{}
	popts := shapeOptions(opts)
	a.done = started(func() { a.shapes = placement.InferShapes(g, popts) })
	return a
}

// wait returns the shapes once inferred.
func (a *aheadShapes) wait() *shape.Shapes {
	a.done()
	return a.shapes
}

// shapesFor are g's shapes inferred with popts (placement.InferShapes),
// inferred once for all targets: those started ahead when there are.
func (ns *Nodes) shapesFor(g *graph.Graph, popts placement.Options) *shape.Shapes {
	if ns.shapes == nil {
		if ns.ahead != nil {
			ns.shapes = ns.ahead.wait()
		} else {
			ns.shapes = placement.InferShapes(g, popts)
		}
	}
	return ns.shapes
}
