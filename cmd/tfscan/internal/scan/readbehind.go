package scan

import (
	"slices"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/coverage/placement"
)

// readBehind reads each placement of a scan while the next is made: the
// scan places its source and targets one after the other on its own
// goroutine, and reads each placement (the nodes' devices, the coverage,
// the nodes its target lists) on another. A placement's lazy result reads
// arrays of the Scratch the next placement is lent: the result keeps them
// (placement.Result.Own) and gives them back once read, so that two sets
// serve every target. Both sides read the prepared nodes' matches, which
// are all made first (Nodes.settle) and then only read. A nil readBehind
// reads each placement at once, on the scan's goroutine.
type readBehind struct {
	wait func() // started's wait of the reading in flight; nil for none
	res  *placement.Result
	err  error
}

// read reads res with fn, behind the next placement when rb is not nil,
// once the reading before it is done; the error is that reading's, or
// fn's when rb is nil.
func (rb *readBehind) read(res *placement.Result, fn func() error) error {
	if rb == nil {
		return fn()
	}
	if err := rb.done(); err != nil {
		return err
	}
	if res != nil {
		res.Own()
	}
	rb.res = res
	rb.wait = started(func() { rb.err = fn() })
	return nil
}

// done waits for the reading in flight, gives its result's arrays back,
// and returns its error.
func (rb *readBehind) done() error {
	if rb == nil || rb.wait == nil {
		return nil
	}
	rb.wait()
	rb.wait = nil
	if rb.res != nil {
		rb.res.Release()
		rb.res = nil
	}
	return rb.err
}

// readsBehind tells whether a scan reads its placements behind the next
// (readBehind): when it lists only the nodes needing attention and places
// more than one after the other (not its source beside its only target),
// unless a step reads what the placements change meanwhile (a rewrite
// preview places the rewritten model with the same targets) or a test
// asks for one step at a time.
func readsBehind(ts *Targets, fromIdx int, beside, listed bool, opts Options) bool {
	sequential := len(ts.List)
	if fromIdx < 0 && ts.From != nil {
		sequential++
	}
	return listed && !beside && sequential > 1 && !opts.Placement.Disabled && !opts.RewritePreview && !opts.oneAtATime
}

// placedIndexes are the indexes a scan's placements and coverages match
// the nodes against, each once: each target's, its CPU's (most targets
// share one) and the source's, and with xla (the model compiles functions
// with XLA: applyXLA) each target's XLA device's; false when a CPU or an
// XLA device's kernels cannot be had (the placement or applyXLA then says
// why).
func placedIndexes(ts *Targets, xla bool) ([]*coverage.Index, bool) {
	var ixs []*coverage.Index
	add := func(ix *coverage.Index) {
		if !slices.Contains(ixs, ix) {
			ixs = append(ixs, ix)
		}
	}
	if ts.From != nil {
		add(ts.From.Index)
	}
	for _, t := range ts.List {
		cpu, err := ts.CPUFor(t)
		if err != nil {
			return nil, false
		}
		add(t.Index)
		add(cpu)
		if xla {
			_, ix, err := xlaDeviceOf(t)
			if err != nil {
				return nil, false
			}
			if ix != nil {
				add(ix)
			}
		}
	}
	return ixs, true
}
