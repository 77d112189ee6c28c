package scan

import (
	"sort"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/kernels/precision"
	"github.com/tfscan/tfscan/parity"
	"github.com/tfscan/tfscan/reports"
)

// stackLowered is, for a target whose stack has a precision mode, the
// profile of every node the mode lowers (covered_lower_precision): those
// nodes run in float16 or bfloat16 (or with lowered operands) and every
// other device node in float32, as the stack's compiler runs them.
type stackLowered struct {
	name  string // "precision_mode=allow_fp32_to_fp16"
	nodes map[*graph.Node]*precision.Profile
	to    map[*graph.Node]string
}

// loweredByStack returns nil when the target's stack lowers nothing or
// --precision overrides it.
func loweredByStack(g *graph.Graph, t Target, override string, ftz bool) (*stackLowered, error) {
	c := t.Index.Stack()
	if override != "" || c == nil || c.Mode == nil {
		return nil, nil
	}
	sl := &stackLowered{name: c.Stack().Precision.Option + "=" + c.Mode.Name,
		nodes: map[*graph.Node]*precision.Profile{}, to: map[*graph.Node]string{}}
	for _, n := range g.Nodes {
		m := t.Index.Match(n)
		if m.Reason != coverage.ReasonCoveredLowerPrecision {
			continue
		}
		p, err := precision.Lowered(m.Lowered, m.LoweredInputs, ftz)
		if err != nil {
			return nil, err
		}
		sl.nodes[n] = p
		sl.to[n] = m.Lowered
		if m.LoweredInputs {
			sl.to[n] += " operands"
		}
	}
	return sl, nil
}

// tolerance is the loosest default tolerance among the lowered profiles
// (base when nothing is lowered).
func (sl *stackLowered) tolerance(base parity.Tolerance) parity.Tolerance {
	for _, p := range sl.nodes {
		t := defaultTolerance(p)
		base.ATol, base.RTol = max(base.ATol, t.ATol), max(base.RTol, t.RTol)
	}
	return base
}

// name the lowered nodes in the parity report: each one that ran on the
// device is marked in parity.nodes, with zero errors when its values did
// not change.
func (sl *stackLowered) annotate(rp *reports.Parity, onCPU func(*graph.Node) bool) {
	byPath := map[string]*graph.Node{}
	for n := range sl.nodes {
		if onCPU == nil || !onCPU(n) {
			byPath[n.Path()] = n
		}
	}
	seen := map[string]bool{}
	for i := range rp.Nodes {
		if n := byPath[rp.Nodes[i].Path]; n != nil {
			rp.Nodes[i].LoweredTo = sl.to[n]
			seen[rp.Nodes[i].Path] = true
		}
	}
	var rest []reports.ParityNode
	for path, n := range byPath {
		if !seen[path] {
			rest = append(rest, reports.ParityNode{Path: path, Op: n.Op, LoweredTo: sl.to[n]})
		}
	}
	sort.Slice(rest, func(i, j int) bool { return rest[i].Path < rest[j].Path })
	rp.Nodes = append(rp.Nodes, rest...)
	rp.LoweredNodes = len(byPath)
}
