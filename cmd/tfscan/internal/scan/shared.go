package scan

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/tfscan/tfscan/coverage/placement"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/savedmodel"
	"github.com/tfscan/tfscan/training"
)

// sharedAhead is what every placement of a model shares, made on a
// goroutine of its own (started) while the scan prepares its nodes: the
// flattened graph (placement.Scratch.Flatten), from the start of the
// scan, while the scan keys the nodes, which flattening does not read;
// then the CPU's lookups of its nodes (placement.Scratch.Prepare), which
// read the keys. The scan's goroutine infers the shapes and works out the
// phases meanwhile, so that two goroutines share two cores and the
// flattening, the longest of these steps, has a core to itself. The
// model's training parts (training.Parts), which only the reading of the
// placements needs, are made by whichever goroutine is done first
// (partsOf): which one that is depends on the model's shape. The first
// placement (firstPlaced), made with the same options, finds the shared
// part made, and so starts once the scan's own walks are done rather than
// making it after; a scan that places the source beside its target
// (placeBeside) starts both placements then.
type sharedAhead struct {
	// mu locks the nodes' matches while the lookups are made beside the
	// scan's work, and for two placements side by side.
	mu       *sync.Mutex
	scratch  *placement.Scratch
	prepared func() // started's wait
	err      error
	// parts are the model's training parts, made by the goroutine that
	// claims them first (partsOf).
	parts      []training.Part
	partsClaim atomic.Bool
}

// partsOf makes g's training parts unless the other goroutine has claimed
// them; a nil sh does nothing.
func (sh *sharedAhead) partsOf(g *graph.Graph) {
	if sh != nil && sh.partsClaim.CompareAndSwap(false, true) {
		sh.parts = training.Parts(g)
	}
}

// sharesAhead tells whether a scan with opts of targets ts makes what its
// placements share ahead (sharedAhead), for which first target, and
// whether it places the source beside the target (placesBeside): a scan
// that places and lists only the nodes needing attention, as it matches
// them.
func sharesAhead(ts *Targets, opts Options) (first Target, beside, ok bool) {
	if opts.Placement.Disabled || opts.AllNodes || opts.listEvery || opts.oneAtATime {
		return Target{}, false, false
	}
	fromIdx := ts.fromTarget()
	beside = placesBeside(ts, fromIdx, opts)
	first, ok = firstPlaced(ts, fromIdx, beside)
	return first, beside, ok
}

// reservedScratch is the Scratch of a scan's placements, reserved
// (placement.Scratch.Reserve) on a goroutine of its own while the scan
// builds the model's graph, which takes one core: sized by the nodes of
// the decoded model.
type reservedScratch struct {
	sc   *placement.Scratch
	done func() // started's wait
}

// reserveAhead starts reserving a Scratch for the placements of m, and
// one for a placement beside them; the model's pacing allows for them, so
// that they start no collection while the graph is built.
func reserveAhead(m *savedmodel.Model, beside bool, pace *modelPacing) *reservedScratch {
	r := &reservedScratch{sc: new(placement.Scratch)}
	e := decodedExtent(m)
	pace.allow(placement.ReserveSize(e, beside))
	r.done = started(func() { r.sc.Reserve(e, beside) })
	return r
}

// scratch is the reserved Scratch once reserved; a new one for a nil r.
func (r *reservedScratch) scratch() *placement.Scratch {
	if r == nil {
		return new(placement.Scratch)
	}
	r.done()
	return r.sc
}

// decodedExtent is the number of nodes of m's largest MetaGraph, its
// functions' included, about as many as a placement flattens, and the
// number of their inputs, data and control: as the decode counted them,
// else by a walk of the NodeDefs; and whether any MetaGraph has functions.
func decodedExtent(m *savedmodel.Model) placement.Extent {
	var e placement.Extent
	for _, mg := range m.MetaGraphs {
		e.Functions = e.Functions || len(mg.Def.GetGraphDef().GetLibrary().GetFunction()) > 0
	}
	if nodes, inputs, ok := m.DecodedNodes(); ok {
		e.Nodes, e.Inputs = nodes, inputs
		return e
	}
	for _, mg := range m.MetaGraphs {
		if n, in := mg.NodeDefs(); n > e.Nodes {
			e.Nodes, e.Inputs = n, in
		}
	}
	return e
}

// flattenAhead starts flattening g for a placement of target t with opts,
// the first a scan makes (firstPlaced).
func flattenAhead(g *graph.Graph, t Target, opts Options, fetches []graph.Tensor) *sharedAhead {
	sh := &sharedAhead{mu: new(sync.Mutex), scratch: opts.reserved.scratch()}
	popts := placementOptions(t, opts, fetches, false)
	sh.prepared = started(func() {
		if err := sh.scratch.Flatten(g, t.Index, popts); err != nil {
			sh.err = fmt.Errorf("placement for %s: %w", t.Name, err)
		}
	})
	return sh
}

// prepare hands ns the Scratch the graph is flattened in, and starts the
// CPU's lookups of ns's keyed nodes for target t once it is flattened,
// then g's training parts.
func (sh *sharedAhead) prepare(g *graph.Graph, ns *Nodes, t Target, ts *Targets, opts Options, fetches []graph.Tensor) {
	ns.scratch = sh.scratch
	opts.beside = &besideState{scratch: ns.scratch, mu: sh.mu}
	flattened := sh.prepared
	sh.prepared = started(func() {
		defer sh.partsOf(g)
		if flattened(); sh.err != nil {
			return
		}
		target, cpu, popts, err := placementFor(g, ns, t, ts, opts, fetches, false)
		if err == nil {
			if err = ns.scratch.Prepare(g, target, cpu, popts); err != nil {
				err = fmt.Errorf("placement for %s: %w", t.Name, err)
			}
		}
		sh.err = err
	})
}

// wait returns once what is shared is made, with the error that stopped
// it; nil at once for a nil sh (nothing was made ahead).
func (sh *sharedAhead) wait() error {
	if sh == nil {
		return nil
	}
	sh.prepared()
	return sh.err
}

// firstPlaced is the target a scan's placements flatten the graph for:
// the --from source when it is placed first, on its own (it is none of the
// targets, and not placed beside one), else the first target computed
// (targetOrder); false when the scan places nothing.
func firstPlaced(ts *Targets, fromIdx int, beside bool) (Target, bool) {
	if fromIdx < 0 && ts.From != nil && !beside {
		return *ts.From, true
	}
	if len(ts.List) == 0 {
		return Target{}, false
	}
	return ts.List[targetOrder(len(ts.List), fromIdx)[0]], true
}
