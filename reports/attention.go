package reports

import (
	"cmp"
	"slices"
	"strings"
)

// Which nodes Target.Nodes lists (Options.Nodes, --nodes).
const (
	NodesAttention = "attention"
	NodesAll       = "all"
)

// NeedsAttention tells whether a node deserves its own entry in a report:
// it is not covered, or covered only in a lower precision; it does not run
// on the target's accelerator (LeavesDevice); it changes against the source
// (new_fallback, already_on_cpu, better_on_target); it is flagged (a
// security or stack finding, or auto mixed precision converts it: see
// flaggedPaths); or soft placement is off and its device pin names a device
// type it cannot be placed on (TensorFlow fails on it).
//
// A device pin that holds a node on CPU is one that leaves the device and
// is listed for that. A pin the placement honours where the node runs
// anyway, or that soft placement overrides without harm (a GPU pin on an
// XPU), changes nothing a migration team acts on: such nodes are counted in
// Placement.PinnedNodes and PinnedDevices only, which keeps a model pinned
// to "/device:GPU:0" throughout from listing every node on every target.
// Everything else the report says is exact whatever the list holds: counts,
// groups, Ops, the delta, the gate.
func (t *Target) NeedsAttention(n *NodeResult, flagged map[string]bool) bool {
	switch {
	case !IsCovered(n.Reason), n.Reason == ReasonCoveredLowerPrecision, t.LeavesDevice(n), n.Change != "", flagged[n.Path]:
		return true
	case n.RequestedDevice != "" && t.Placement != nil && !t.Placement.SoftPlacement:
		return !strings.EqualFold(deviceType(n.RequestedDevice), deviceType(n.Device))
	}
	return false
}

// KeepAttention drops from t.Nodes the nodes that need no attention;
// modelFindings are the model's (security) findings. The nodes kept move to
// a new array; the whole list's is returned, cleared, for a caller that
// reuses it (none when every node is kept: the list keeps its array).
func (t *Target) KeepAttention(modelFindings []Finding) (spare []NodeResult) {
	flagged := t.flaggedPaths(modelFindings)
	keep := make([]bool, len(t.Nodes))
	n := 0
	for i := range t.Nodes {
		keep[i] = t.NeedsAttention(&t.Nodes[i], flagged)
		n += boolInt(keep[i])
	}
	if n == len(t.Nodes) {
		t.Fusions = groupFusions(t.Fusions)
		return nil
	}
	kept := make([]NodeResult, 0, n)
	for i := range t.Nodes {
		if keep[i] {
			kept = append(kept, t.Nodes[i])
		}
	}
	spare = t.Nodes[:0]
	clear(t.Nodes)
	t.Nodes = kept
	t.Fusions = groupFusions(t.Fusions)
	return spare
}

// groupFusions keeps one chain per fused op and reason, the first in the
// report's order, with the number of chains it stands for (Fusion.Count):
// a model repeats its blocks, and 40,000 lost fusions of one kind, each
// with its nodes and the same reason, tell a reader no more than one with
// its count (and make most of a report's bytes).
func groupFusions(fs []Fusion) []Fusion {
	if len(fs) < 2 {
		return fs
	}
	// What sorting them all (stably, by compareFusions) and keeping the
	// first of each kind gives, without the sort: each kind's first is
	// its least, the earliest among equals.
	type key struct{ fused, reason string }
	type kind struct {
		first  int // index in fs
		n      int
		chains int
	}
	at := map[key]*kind{}
	var kinds []*kind
	for i := range fs {
		f := &fs[i]
		k := key{f.Fused, f.Reason}
		c := at[k]
		if c == nil {
			c = &kind{first: i}
			at[k] = c
			kinds = append(kinds, c)
		} else if compareFusions(*f, fs[c.first]) < 0 {
			c.first = i
		}
		c.n++
		c.chains += f.Chains()
	}
	slices.SortFunc(kinds, func(a, b *kind) int {
		if c := compareFusions(fs[a.first], fs[b.first]); c != 0 {
			return c
		}
		return a.first - b.first
	})
	out := make([]Fusion, 0, len(kinds))
	for _, c := range kinds {
		f := fs[c.first]
		if c.n > 1 {
			f.Count = c.chains
		}
		out = append(out, f)
	}
	return out
}

// flaggedPaths are the nodes a finding names (the model's and the
// target's) and those auto mixed precision converts to half precision.
func (t *Target) flaggedPaths(modelFindings []Finding) map[string]bool {
	out := map[string]bool{}
	for _, fs := range [][]Finding{modelFindings, t.Findings} {
		for _, f := range fs {
			out[f.Path] = true
		}
	}
	if t.Placement != nil {
		for _, a := range t.Placement.AMP {
			out[a.Path] = true
		}
	}
	return out
}

// deviceType is the type of a device name: "GPU" of "/device:GPU:0", of
// "/job:localhost/replica:0/task:0/device:GPU:0", of the legacy "/gpu:0"
// and of "GPU:0"; "" of "".
func deviceType(dev string) string {
	d := dev
	// The last "device:" in any case, found without lowering a copy (a
	// report asks this of every node).
	const marker = "device:"
	for j := len(d) - len(marker); j >= 0; j-- {
		if strings.EqualFold(d[j:j+len(marker)], marker) {
			d = d[j+len(marker):]
			break
		}
	}
	d = strings.TrimPrefix(d, "/")
	typ, _, _ := strings.Cut(d, ":")
	return typ
}

// CountOps counts the nodes of t.Nodes that the figures count, per op and
// reason: Target.Ops of a report that lists every node (a producer that
// did not fill Ops, or a version 1 report).
func (t *Target) CountOps() []OpCoverage {
	by := map[string]*OpCoverage{}
	for i := range t.Nodes {
		n := &t.Nodes[i]
		if !t.Counts(n) {
			continue
		}
		o := by[n.Op]
		if o == nil {
			o = &OpCoverage{Op: n.Op, ByReason: map[string]int{}}
			by[n.Op] = o
		}
		o.Nodes++
		o.ByReason[n.Reason]++
	}
	out := make([]OpCoverage, 0, len(by))
	for _, o := range by {
		out = append(out, *o)
	}
	slices.SortFunc(out, func(a, b OpCoverage) int { return cmp.Compare(a.Op, b.Op) })
	return out
}

// OpCounts is t.Ops, or counted from the nodes when a producer left it
// empty.
func (t *Target) OpCounts() []OpCoverage {
	if len(t.Ops) > 0 || len(t.Nodes) == 0 {
		return t.Ops
	}
	return t.CountOps()
}
