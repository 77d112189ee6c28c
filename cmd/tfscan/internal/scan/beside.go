package scan

import (
	"runtime"
	"sync"

	"github.com/tfscan/tfscan/coverage/placement"
	"github.com/tfscan/tfscan/graph"
)

// besideState is what a placement running beside other work on the
// model's nodes uses: its Scratch (the model's, or
// placement.Scratch.Beside's, which lends arrays of its own), and the lock
// of the nodes' matches that both fill in.
type besideState struct {
	scratch *placement.Scratch
	mu      *sync.Mutex
}

// placesBeside tells whether the --from source is placed beside a scan's
// target, on a core of its own: when there is a core for it, and one
// target, since each placement beside another holds a set of arrays of
// its own (52–59 bytes a node), which against many targets would cost
// more memory than one placement's time among theirs is worth.
func placesBeside(ts *Targets, fromIdx int, opts Options) bool {
	return fromIdx < 0 && ts.From != nil && len(ts.List) == 1 && !opts.Placement.Disabled && !opts.oneAtATime && runtime.GOMAXPROCS(0) > 1
}

// placeBeside places the source src (with sopts) and the target t (with
// opts) at the same time, the source on a goroutine of its own with a
// Scratch of its own and the target on the scan's, each as place would
// alone, once the shapes, which both read, are inferred; the caller has
// waited for what they share (sharedAhead.wait, for t). The source's goroutine then
// reads its placement for the comparison (sourceFrom) while the target's
// may still run: under the lock of the nodes' matches, which it fills in
// too, and before the target's is read into the nodes' arrays
// (placeNodes), which it reads first.
func (sh *sharedAhead) placeBeside(g *graph.Graph, ns *Nodes, src, t Target, ts *Targets, sopts, opts Options, fetches []graph.Tensor) (from *source, tRes *placement.Result, err error) {
	ns.shapesFor(g, shapeOptions(opts))
	sopts.beside = &besideState{scratch: ns.scratch.Beside(), mu: sh.mu}
	opts.beside = &besideState{scratch: ns.scratch, mu: sh.mu}
	var srcErr error
	wait := started(func() {
		var res *placement.Result
		if res, srcErr = place(g, ns, src, ts, sopts, fetches, true); srcErr != nil {
			return
		}
		sh.mu.Lock()
		defer sh.mu.Unlock()
		from = sourceFrom(ns, src, placeNodes(ns, res))
	})
	tRes, err = place(g, ns, t, ts, opts, fetches, false)
	wait()
	if srcErr != nil {
		return nil, nil, srcErr
	}
	return from, tRes, err
}
