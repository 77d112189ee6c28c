package scan

import (
	"sort"
	"strings"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/reports"
)

// maxExamplePaths bounds the example node paths kept per uncovered group.
const maxExamplePaths = 5

// isCovered says whether a reason means the node runs on the target.
func isCovered(r coverage.Reason) bool {
	return r == coverage.ReasonCovered || r == coverage.ReasonCoveredDefault || r == coverage.ReasonFunctionCall
}

// Coverage matches every node of g (or of scope, when not nil) against one
// target. An op counts as covered when every node of it is covered.
func Coverage(g *graph.Graph, t Target, scope map[*graph.Node]bool) *reports.Target {
	p := t.Index.Pack()
	rt := &reports.Target{
		Target: t.Name,
		Registry: reports.RegistryInfo{
			Name:       p.Name,
			Vendor:     p.Vendor,
			DeviceType: p.DeviceType,
			Mechanism:  string(p.Mechanism),
			Source:     p.Source,
			Method:     string(p.Method),
			Confidence: p.Confidence,
		},
		Coverage:  reports.Coverage{ByReason: map[string]int{}},
		Uncovered: []reports.Uncovered{},
		Nodes:     make([]reports.NodeResult, 0, len(g.Nodes)),
	}
	type groupKey struct{ op, dtypes, reason string }
	groups := map[groupKey]*reports.Uncovered{}
	opCovered := map[string]bool{}
	for _, n := range g.Nodes {
		if scope != nil && !scope[n] {
			continue
		}
		m := t.Index.Match(n)
		covered := isCovered(m.Reason)
		dtypes := n.DTypes()
		rt.Nodes = append(rt.Nodes, reports.NodeResult{
			Path:      n.Path,
			Op:        n.Op,
			DTypes:    dtypes,
			Reason:    string(m.Reason),
			Reachable: n.Reachable,
		})
		c := &rt.Coverage
		c.NodesTotal++
		c.ByReason[string(m.Reason)]++
		if n.Reachable {
			c.ReachableNodesTotal++
		}
		if covered {
			c.NodesCovered++
			if n.Reachable {
				c.ReachableNodesCovered++
			}
		}
		if prev, ok := opCovered[n.Op]; !ok || prev {
			opCovered[n.Op] = covered
		}
		if covered {
			continue
		}
		k := groupKey{n.Op, strings.Join(dtypes, ","), string(m.Reason)}
		u := groups[k]
		if u == nil {
			u = &reports.Uncovered{Op: n.Op, DTypes: dtypes, Reason: string(m.Reason), Nodes: []string{}, Supported: m.Supported, Hint: m.Hint}
			groups[k] = u
		}
		u.Count++
		if len(u.Nodes) < maxExamplePaths {
			u.Nodes = append(u.Nodes, n.Path)
		}
	}
	rt.Coverage.OpsTotal = len(opCovered)
	for _, ok := range opCovered {
		if ok {
			rt.Coverage.OpsCovered++
		}
	}
	for _, u := range groups {
		if u.DTypes == nil {
			u.DTypes = []string{}
		}
		rt.Uncovered = append(rt.Uncovered, *u)
	}
	sort.Slice(rt.Uncovered, func(i, j int) bool {
		a, b := rt.Uncovered[i], rt.Uncovered[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		if a.Op != b.Op {
			return a.Op < b.Op
		}
		if x, y := strings.Join(a.DTypes, ","), strings.Join(b.DTypes, ","); x != y {
			return x < y
		}
		return a.Reason < b.Reason
	})
	sort.Slice(rt.Nodes, func(i, j int) bool { return rt.Nodes[i].Path < rt.Nodes[j].Path })
	return rt
}
