package reports

import (
	"cmp"
	"slices"
	"strings"
)

// Normalize puts r into its canonical order and replaces nil slices with
// empty ones, so that the same scan always renders byte-identical output and
// JSON arrays are never null. Writers call it; it is idempotent. Targets keep
// the order the user asked for them in (that order is deterministic and is the
// column order of the op × target matrix).
func (r *Report) Normalize() {
	if r.SchemaVersion == 0 {
		r.SchemaVersion = SchemaVersion
	}
	r.Models = nonNil(r.Models)
	slices.SortStableFunc(r.Models, func(a, b *Model) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.File, b.File))
	})
	for _, m := range r.Models {
		m.normalize()
	}
	if r.Gate != nil {
		r.Gate.Normalize()
	}
	slices.SortStableFunc(r.Errors, func(a, b ScanError) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Message, b.Message))
	})
}

func (m *Model) normalize() {
	m.Findings = nonNil(m.Findings)
	slices.SortStableFunc(m.Findings, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Op, b.Op),
			cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Message, b.Message))
	})
	m.Targets = nonNil(m.Targets)
	for _, t := range m.Targets {
		t.normalize()
	}
}

func (t *Target) normalize() {
	if t.Coverage.ByReason == nil {
		t.Coverage.ByReason = map[string]int{}
	}
	t.Uncovered = nonNil(t.Uncovered)
	for i := range t.Uncovered {
		u := &t.Uncovered[i]
		u.DTypes = nonNil(u.DTypes)
		u.Nodes = nonNil(u.Nodes)
		slices.Sort(u.Nodes)
	}
	t.SortUncovered()
	if p := t.Placement; p != nil {
		p.AssumedDims = nonNil(p.AssumedDims)
		slices.Sort(p.AssumedDims)
		slices.SortStableFunc(p.PartitionEdges, func(a, b PartitionEdge) int {
			return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To))
		})
		slices.SortStableFunc(p.AMP, func(a, b AMPNode) int { return cmp.Compare(a.Path, b.Path) })
	}
	t.Islands = nonNil(t.Islands)
	t.Wishlist = nonNil(t.Wishlist)
	for i := range t.Islands {
		t.Islands[i].Nodes = nonNil(t.Islands[i].Nodes)
		slices.Sort(t.Islands[i].Nodes)
	}
	slices.SortStableFunc(t.Islands, func(a, b Island) int {
		return cmp.Or(cmp.Compare(b.Bytes, a.Bytes), cmp.Compare(len(b.Nodes), len(a.Nodes)),
			slices.Compare(a.Nodes, b.Nodes)) // as compareFusions
	})
	slices.SortStableFunc(t.Wishlist, func(a, b Wish) int {
		return cmp.Or(cmp.Compare(b.TransfersRemoved, a.TransfersRemoved), cmp.Compare(b.BytesRemoved, a.BytesRemoved),
			cmp.Compare(a.Op, b.Op), cmp.Compare(a.DType, b.DType))
	})
	for i := range t.Fusions {
		t.Fusions[i].Nodes = nonNil(t.Fusions[i].Nodes)
	}
	slices.SortStableFunc(t.Fusions, compareFusions)
	if p := t.Parity; p != nil {
		p.Outputs = nonNil(p.Outputs)
		p.Nodes = nonNil(p.Nodes)
		for i := range p.Outputs {
			if s := p.Outputs[i].Stats; s != nil {
				s.Histogram = nonNil(s.Histogram)
			}
		}
		for i := range p.Golden {
			if s := p.Golden[i].Stats; s != nil {
				s.Histogram = nonNil(s.Histogram)
			}
		}
	}
	if d := t.Delta; d != nil {
		d.NewFallbackOps = nonNil(d.NewFallbackOps)
		for i := range d.NewFallbackOps {
			o := &d.NewFallbackOps[i]
			o.DTypes = nonNil(o.DTypes)
			o.Nodes = nonNil(o.Nodes)
			slices.Sort(o.Nodes)
		}
		slices.SortStableFunc(d.NewFallbackOps, func(a, b DeltaOp) int {
			return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Op, b.Op),
				cmp.Compare(strings.Join(a.DTypes, ","), strings.Join(b.DTypes, ",")), cmp.Compare(a.Reason, b.Reason))
		})
	}
	t.Ops = nonNil(t.Ops)
	for i := range t.Ops {
		if t.Ops[i].ByReason == nil {
			t.Ops[i].ByReason = map[string]int{}
		}
	}
	slices.SortStableFunc(t.Ops, func(a, b OpCoverage) int { return cmp.Compare(a.Op, b.Op) })
	t.Nodes = nonNil(t.Nodes)
	// A scan lists the nodes in path order already: checking costs a
	// comparison a node, where the sort makes several.
	byPath := func(a, b NodeResult) int { return cmp.Compare(a.Path, b.Path) }
	if !slices.IsSortedFunc(t.Nodes, byPath) {
		slices.SortStableFunc(t.Nodes, byPath)
	}
}

// Normalize gives the gate's lists the order they are written in.
func (g *Gate) Normalize() {
	g.Failures = nonNil(g.Failures)
	slices.SortStableFunc(g.Failures, func(a, b GateFailure) int {
		return cmp.Or(cmp.Compare(a.Model, b.Model), cmp.Compare(a.Target, b.Target),
			cmp.Compare(a.Rule, b.Rule), cmp.Compare(a.Message, b.Message))
	})
	g.Warnings = nonNil(g.Warnings)
	slices.Sort(g.Warnings)
	g.Warnings = slices.Compact(g.Warnings)
}

// SortUncovered puts the uncovered groups in their canonical order: groups
// of the counted phases first, then by phase (step, load, save,
// unreachable), most frequent first within a phase.
func (t *Target) SortUncovered() {
	slices.SortStableFunc(t.Uncovered, func(a, b Uncovered) int {
		return cmp.Or(cmp.Compare(boolInt(!t.CountsPhase(a.Phase)), boolInt(!t.CountsPhase(b.Phase))),
			cmp.Compare(PhaseRank(a.Phase), PhaseRank(b.Phase)),
			cmp.Compare(b.Count, a.Count), cmp.Compare(a.Op, b.Op), cmp.Compare(a.Reason, b.Reason),
			cmp.Compare(strings.Join(a.DTypes, ","), strings.Join(b.DTypes, ",")))
	})
}

func nonNil[S ~[]E, E any](s S) S {
	if s == nil {
		return S{}
	}
	return s
}

// compareFusions orders fusions by fused op, then by their nodes: as
// their paths joined by NUL compare (no path is empty or holds a NUL, so
// a path that is a prefix of another sorts first either way), without
// joining them for each of the comparisons a sort of 100,000 fusions
// makes.
func compareFusions(a, b Fusion) int {
	return cmp.Or(cmp.Compare(a.Fused, b.Fused), slices.Compare(a.Nodes, b.Nodes))
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
