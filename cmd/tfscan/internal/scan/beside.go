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
// side (placesBeside). What both share, the flattened graph and the CPU's
// lookups (placement.Scratch.Prepare), is made first, on a goroutine of
// its own (started) while the scan works out the phases and the training
// parts, which the preparation does not read; then the source's placement
// runs on a goroutine of its own with a Scratch of its own, and the
// target's on the scan's.
type sideBySide struct {
	mu       *sync.Mutex
	prepared func() // started's wait
	err      error
}

// prepareBeside starts preparing the placements of target t (with opts)
// and of a source beside it.
func prepareBeside(g *graph.Graph, ns *Nodes, t Target, ts *Targets, opts Options, fetches []graph.Tensor) *sideBySide {
	side := &sideBySide{mu: new(sync.Mutex)}
	opts.beside = &besideState{scratch: &ns.scratch, mu: side.mu}
	side.prepared = started(func() {
		target, cpu, popts, err := placementFor(g, ns, t, ts, opts, fetches, false)
		if err == nil {
			if err = ns.scratch.Prepare(g, target, cpu, popts); err != nil {
				err = fmt.Errorf("placement for %s: %w", t.Name, err)
			}
		}
		side.err = err
	})
	return side
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
	opts.beside = &besideState{scratch: &ns.scratch, mu: side.mu}
	var srcErr error
	wait := started(func() { srcRes, srcErr = place(g, ns, src, ts, sopts, fetches, true) })
	tRes, err = place(g, ns, t, ts, opts, fetches, false)
	wait()
	if srcErr != nil {
		return nil, nil, srcErr
	}
	return srcRes, tRes, err
}
