package scan

import (
	"cmp"
	"slices"
	"strings"

	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/training"
)

// WithParts records the part of the training step of every node (by
// graph.Node.ID, training.Parts) when they describe a training step;
// otherwise reports name no part.
func (ns *Nodes) WithParts(parts []training.Part) *Nodes {
	if training.IsTraining(parts) {
		ns.parts = parts
	}
	return ns
}

// partName is the part of the node at position i, "" outside a training
// graph.
func (ns *Nodes) partName(i int) string {
	if ns.parts == nil {
		return ""
	}
	return ns.parts[ns.list[i].ID].String()
}

// applyTraining breaks target t's figures down by part of the training
// step (reports.Training), after its placement and delta: node totals and
// coverage over every prepared node of ns, fallbacks over t.Nodes, which
// lists every node that leaves the device (at as in applyDelta), and island
// bytes by the part holding most of each island's nodes.
func applyTraining(t *reports.Target, ts Target, ns *Nodes, at []int32) {
	if ns.parts == nil {
		return
	}
	names := training.Names()
	parts := make([]reports.TrainingPart, len(names))
	for p, name := range names {
		parts[p].Part = name
	}
	for i, n := range ns.list {
		if !ns.counts(n) {
			continue
		}
		tp := &parts[ns.parts[n.ID]]
		tp.Nodes++
		if ns.match(ts.Index, i).Reason.Covered() {
			tp.Covered++
		}
	}
	type key struct{ op, dtypes string }
	groups := make([]map[key]int, len(names)) // index into parts[p].Fallback
	for k := range t.Nodes {
		nr, i := &t.Nodes[k], at[k]
		if !t.Counts(nr) || !t.LeavesDevice(nr) {
			continue
		}
		p := ns.parts[ns.list[i].ID]
		tp := &parts[p]
		tp.FallbackNodes++
		isNew := nr.Change == reports.ChangeNewFallback
		if isNew {
			tp.NewFallbackNodes++
		}
		if groups[p] == nil {
			groups[p] = map[key]int{}
		}
		gk := key{nr.Op, strings.Join(nr.DTypes, ",")}
		j, ok := groups[p][gk]
		if !ok {
			j = len(tp.Fallback)
			groups[p][gk] = j
			tp.Fallback = append(tp.Fallback, reports.TrainingOp{Op: nr.Op, DTypes: nr.DTypes})
		}
		tp.Fallback[j].Count++
		if isNew {
			tp.Fallback[j].New++
		}
	}
	for _, is := range t.Islands {
		count := make([]int, len(names))
		for _, path := range is.Nodes {
			if i, ok := ns.pathIndex(path); ok {
				count[ns.parts[ns.list[i].ID]]++
			}
		}
		best := 0
		for p := range count {
			if count[p] > count[best] {
				best = p
			}
		}
		if count[best] > 0 {
			parts[best].IslandBytes += is.Bytes
		}
	}
	tr := &reports.Training{Parts: []reports.TrainingPart{}}
	for _, tp := range parts {
		if tp.Nodes == 0 {
			continue
		}
		for k := range tp.Fallback {
			if tp.Fallback[k].DTypes == nil {
				tp.Fallback[k].DTypes = []string{}
			}
		}
		slices.SortFunc(tp.Fallback, func(a, b reports.TrainingOp) int {
			return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Op, b.Op),
				cmp.Compare(strings.Join(a.DTypes, ","), strings.Join(b.DTypes, ",")))
		})
		tr.Parts = append(tr.Parts, tp)
	}
	t.Training = tr
}
