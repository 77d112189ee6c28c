package scan

import (
	"fmt"
	"slices"
	"sync"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/coverage/placement"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/tflog"
)

// PlacementOptions are the soft-placement simulation's knobs.
type PlacementOptions struct {
	// Disabled skips the simulation (coverage only).
	Disabled bool
	// NoSoftPlacement predicts the hard failure TensorFlow would raise.
	NoSoftPlacement bool
	// Dims give values to unknown dimensions by input name or "batch".
	Dims map[string]int64
	// Precision is "", "mixed_float16" or "mixed_bfloat16".
	Precision string
	// CompareLog is a placement log of a real run to compare against.
	CompareLog string
	// ClearDevices simulates an import with clear_devices=True: the
	// top-level nodes' device fields are dropped.
	ClearDevices bool
}

// simulate predicts soft placement for one target and records it in rt,
// whose nodes are those at positions at of ns; fetches, when not nil, are
// what the client fetches (--fetch).
// Graph-offload and XLA targets are simulated like kernel targets: what
// their stack cannot take stays on CPU the same way.
func simulate(rt *reports.Target, at []int32, g *graph.Graph, ns *Nodes, t Target, ts *Targets, opts Options, fetches []graph.Tensor, log *tflog.Log) error {
	res, err := place(g, ns, t, ts, opts, fetches, false)
	if res == nil || err != nil {
		return err
	}
	applyPlacement(rt, res, ns, at)
	compareLog(rt, res, log)
	return nil
}

// compareLog records in rt how the placement res agrees with a real
// placement log (--compare-log), when there are both.
func compareLog(rt *reports.Target, res *placement.Result, log *tflog.Log) {
	if res != nil && log != nil {
		applyComparison(rt, placement.Compare(res, log))
	}
}

// simulateSource places the model on the --from source, to compare the
// targets with: the same simulation (the same fetches) without the
// wishlist, which only the targets' reports show.
func simulateSource(rt *reports.Target, at []int32, g *graph.Graph, ns *Nodes, t Target, ts *Targets, opts Options, fetches []graph.Tensor) error {
	res, err := place(g, ns, t, ts, opts, fetches, true)
	if res != nil && err == nil {
		applyPlacement(rt, res, ns, at)
	}
	return err
}

// place runs the placement simulation for t; nil when placement is off.
func place(g *graph.Graph, ns *Nodes, t Target, ts *Targets, opts Options, fetches []graph.Tensor, noWishlist bool) (*placement.Result, error) {
	if opts.Placement.Disabled {
		return nil, nil
	}
	target, cpu, popts, err := placementFor(g, ns, t, ts, opts, fetches, noWishlist)
	if err != nil {
		return nil, err
	}
	if ns.phases != nil && !ns.counted.All() {
		popts.Count = ns.counts
	}
	popts.Shapes = ns.shapesFor(g, popts)
	res, err := placement.Simulate(g, target, cpu, popts)
	if err != nil {
		return nil, fmt.Errorf("placement for %s: %w", t.Name, err)
	}
	if opts.checkpointNote != "" {
		res.Warnings = append(res.Warnings, opts.checkpointNote)
	}
	return res, nil
}

// placementFor are the matchers and options of t's placement, but for
// what it counts (Options.Count, which the phases tell) and the shapes,
// which place adds: what the flattened graph and the CPU's lookups are
// prepared with (sharedAhead) reads neither.
func placementFor(g *graph.Graph, ns *Nodes, t Target, ts *Targets, opts Options, fetches []graph.Tensor, noWishlist bool) (target, cpu coverage.Matcher, popts placement.Options, err error) {
	popts = placementOptions(t, opts, fetches, noWishlist)
	cpuIndex, err := ts.CPUFor(t)
	if err != nil {
		return nil, nil, popts, err
	}
	if popts.Source, err = ts.Source(); err != nil {
		return nil, nil, popts, err
	}
	popts.PathOf, popts.Scratch = ns.pathOfID, ns.scratch
	var mu *sync.Mutex
	if b := opts.beside; b != nil {
		popts.Scratch, mu = b.scratch, b.mu
	}
	return ns.keyed(g, t.Index, mu), ns.keyed(g, cpuIndex, mu), popts, nil
}

// placementOptions are the options of t's placement that need neither
// the nodes nor the CPU's and the source's packs: all that flattening the
// graph reads (flattenAhead).
func placementOptions(t Target, opts Options, fetches []graph.Tensor, noWishlist bool) placement.Options {
	popts := shapeOptions(opts)
	popts.NoSoftPlacement = opts.Placement.NoSoftPlacement
	popts.Precision = opts.Placement.Precision
	popts.NoWishlist = noWishlist
	popts.Fetches = fetches
	popts.ClearDevices = opts.Placement.ClearDevices
	popts.Stack = t.Index.Stack()
	// The report counts the nodes its figures count itself.
	popts.NoNodeCounts = true
	popts.DevicesOnly = opts.devicesOnly
	// The report takes what it needs of every node at once (applyPlacement),
	// before the scratch is lent again.
	popts.LazyNodes = true
	return popts
}

// readPlacementLog reads --compare-log once for all models.
func readPlacementLog(path string) (*tflog.Log, error) {
	if path == "" {
		return nil, nil
	}
	log, err := tflog.ParseFile(path, nil)
	if err != nil {
		return nil, &UsageError{fmt.Errorf("--compare-log %s: %w", path, err)}
	}
	if len(log.Placements) == 0 && len(log.Eager) == 0 {
		return nil, &UsageError{fmt.Errorf("--compare-log %s: no placement lines found (expected \"name: (Op): /job:.../device:GPU:0\" or \"Executing op Op in device ...\")", path)}
	}
	return log, nil
}

// keyed answers ix's lookups for the model's nodes with the match keys
// PrepareNodes built, so that the placement, which looks up every node on
// the target and the CPU, builds no key of its own. mu, when not nil, is
// held while ns is read and its matches are filled in: the matchers of
// placements running at the same time share it (placeBeside).
func (ns *Nodes) keyed(g *graph.Graph, ix *coverage.Index, mu *sync.Mutex) coverage.Matcher {
	return &keyedMatcher{Index: ix, g: g, ns: ns, covers: map[string]bool{}, mu: mu}
}

type keyedMatcher struct {
	*coverage.Index
	g  *graph.Graph
	ns *Nodes
	// covers tells, by op, whether the prepared keys hold every attr
	// the index constrains (they were built for the targets, which need
	// not include this index).
	covers map[string]bool
	// lastOp and lastCovers are the last op looked up in covers: nodes of
	// one op come in runs.
	lastOp     string
	lastCovers bool
	mu         *sync.Mutex
}

// LookupIdentity says that k answers every lookup as its index does
// (placement.IdentifiedMatcher): the simulations of a model's targets
// share the CPU's lookups.
func (k *keyedMatcher) LookupIdentity() any { return k.Index }

func (k *keyedMatcher) Match(n *graph.Node) coverage.Match {
	if k.mu != nil {
		k.mu.Lock()
		defer k.mu.Unlock()
	}
	pos := k.keyed(n)
	if pos < 0 {
		return k.Index.Match(n)
	}
	return *k.ns.match(k.Index, pos)
}

// keyed is n's position among the prepared nodes when its key answers
// its lookup, else -1: a node that is not the graph's own (a synthetic
// one, or a copy with other attrs, as auto mixed precision makes) keys
// itself, and so does one whose op the index constrains in attrs the keys
// leave out.
func (k *keyedMatcher) keyed(n *graph.Node) int {
	pos := k.ns.posOf(k.g, n)
	if pos < 0 {
		return -1
	}
	if k.lastOp != n.Op || k.lastOp == "" {
		ok, seen := k.covers[n.Op]
		if !seen {
			ok = true
			for _, a := range k.Index.ConstrainedAttrs(n.Op) {
				if !slices.Contains(k.ns.attrs[n.Op], a) {
					ok = false
				}
			}
			k.covers[n.Op] = ok
		}
		k.lastOp, k.lastCovers = n.Op, ok
	}
	if !k.lastCovers {
		return -1
	}
	return pos
}

// LookupKey says which nodes Match answers alike
// (placement.KeyedMatcher): those of one slot of the prepared keys.
func (k *keyedMatcher) LookupKey(n *graph.Node) (int, bool) {
	if k.mu != nil {
		k.mu.Lock()
		defer k.mu.Unlock()
	}
	pos := k.keyed(n)
	if pos < 0 {
		return 0, false
	}
	_, slot, ok := k.ns.slot(k.Index, pos)
	return slot, ok
}
