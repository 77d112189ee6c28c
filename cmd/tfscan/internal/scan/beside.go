package scan

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/tfscan/tfscan/coverage/placement"
	"github.com/tfscan/tfscan/graph"
)

// besideState is what a placement running beside another uses: its
// Scratch (the model's, or placement.Scratch.Beside's, which lends arrays
// of its own), and the lock of the nodes' matches that both placements'
// matchers fill in.
type besideState struct {
	scratch *placement.Scratch
	mu      *sync.Mutex
}

// placesBeside tells whether the --from source is placed beside a scan's
// target, on a core of its own: when there is a core for it, and one
// target, since each placement beside another holds a set of arrays of
// its own (about 90 bytes a node), which against many targets would cost
// more memory than one placement's time among theirs is worth.
func placesBeside(ts *Targets, fromIdx int, opts Options) bool {
	return fromIdx < 0 && ts.From != nil && len(ts.List) == 1 && !opts.Placement.Disabled && !opts.oneAtATime && runtime.GOMAXPROCS(0) > 1
}

// sideBySide are the --from source's and a target's placements side by
// side (placesBeside). What both share is made first, on a goroutine of
// its own (started): the flattened graph (placement.Scratch.Flatten),
// from the start of the scan, while the scan keys the nodes, which
// flattening does not read; then the CPU's lookups of its nodes
// (placement.Scratch.Prepare), which read the keys, while the scan works
// out the phases and the training parts. Then the source's placement runs
// on a goroutine of its own with a Scratch of its own, and the target's
// on the scan's.
type sideBySide struct {
	mu       *sync.Mutex
	scratch  *placement.Scratch
	prepared func() // started's wait
	err      error
}

// flattenBeside starts flattening g for the placements of target t (with
// opts) and of a source beside it.
func flattenBeside(g *graph.Graph, t Target, opts Options, fetches []graph.Tensor) *sideBySide {
	side := &sideBySide{mu: new(sync.Mutex), scratch: new(placement.Scratch)}
	popts := placementOptions(t, opts, fetches, false)
	side.prepared = started(func() {
		if err := side.scratch.Flatten(g, t.Index, popts); err != nil {
			side.err = fmt.Errorf("placement for %s: %w", t.Name, err)
		}
	})
	return side
}

// prepare hands ns the Scratch the graph is flattened in, and starts the
// CPU's lookups of ns's keyed nodes once it is flattened.
func (side *sideBySide) prepare(g *graph.Graph, ns *Nodes, t Target, ts *Targets, opts Options, fetches []graph.Tensor) {
	ns.scratch = side.scratch
	opts.beside = &besideState{scratch: ns.scratch, mu: side.mu}
	flattened := side.prepared
	side.prepared = started(func() {
		if flattened(); side.err != nil {
			return
		}
		target, cpu, popts, err := placementFor(g, ns, t, ts, opts, fetches, false)
		if err == nil {
			if err = ns.scratch.Prepare(g, target, cpu, popts); err != nil {
				err = fmt.Errorf("placement for %s: %w", t.Name, err)
			}
		}
		side.err = err
	})
}

// place places the source src (with sopts) and the target t (with opts)
// at the same time, each as place would alone, once what they share is
// prepared and the shapes, which both read, are inferred.
func (side *sideBySide) place(g *graph.Graph, ns *Nodes, src, t Target, ts *Targets, sopts, opts Options, fetches []graph.Tensor) (srcRes, tRes *placement.Result, err error) {
	side.prepared()
	if side.err != nil {
		return nil, nil, side.err
	}
	ns.shapesFor(g, shapeOptions(opts))
	sopts.beside = &besideState{scratch: ns.scratch.Beside(), mu: side.mu}
	opts.beside = &besideState{scratch: ns.scratch, mu: side.mu}
	var srcErr error
	wait := started(func() { srcRes, srcErr = place(g, ns, src, ts, sopts, fetches, true) })
	tRes, err = place(g, ns, t, ts, opts, fetches, false)
	wait()
	if srcErr != nil {
		return nil, nil, srcErr
	}
	return srcRes, tRes, err
}
