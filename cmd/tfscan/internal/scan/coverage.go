package scan

import (
	"cmp"
	"slices"
	"sort"
	"strings"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/coverage/placement"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/graph/shape"
	"github.com/tfscan/tfscan/reports"
)

// maxExamplePaths bounds the example node paths kept per uncovered group.
const maxExamplePaths = 5

// Nodes are what every target's coverage walks: the scanned nodes in path
// order with their paths and dtypes, prepared once per model.
type Nodes struct {
	list []*graph.Node
	// paths are the nodes' Path(), rendered once for all targets.
	paths  []string
	dtypes [][]string
	// keys are each node's coverage.MatchKey over the attrs that any of
	// the targets' kernels constrain (attrs, by op); keyByID holds the
	// same keys by graph.Node.ID ("" for nodes out of scope), for the
	// placement's lookups.
	keys    []string
	keyByID []string
	attrs   map[string][]string
	// pathByID are the paths by graph.Node.ID ("" out of scope), for the
	// placement's results.
	pathByID []string
	// phases is each node's phase (by graph.Node.ID) and counted the
	// phases the figures count; phases is nil when they were not computed
	// (then every node counts and reports name no phase).
	phases  []graph.Phase
	counted PhaseSet
	// shapes are the model's static shapes, inferred by the first
	// placement and shared by the others (they do not depend on the
	// target; the options that shape them are the scan's).
	shapes *shape.Shapes
	// scratch is the memory each placement of the model passes on to the
	// next (placement.Scratch).
	scratch placement.Scratch
}

// WithPhases records the phase of every node (graph.Graph.Phases) and the
// phases the figures count.
func (ns *Nodes) WithPhases(phases []graph.Phase, counted PhaseSet) *Nodes {
	ns.phases, ns.counted = phases, counted
	return ns
}

// counts tells whether node n is in the counted phases.
func (ns *Nodes) counts(n *graph.Node) bool {
	return ns.phases == nil || ns.counted[ns.phases[n.ID]]
}

// phaseName is n's phase as reports name it, "" when phases are unknown.
func (ns *Nodes) phaseName(n *graph.Node) string {
	if ns.phases == nil {
		return ""
	}
	return ns.phases[n.ID].String()
}

// PrepareNodes selects the nodes of g (or of scope, when not nil), sorts
// them by path, and keys each for matching against every target in ts.
func PrepareNodes(g *graph.Graph, scope map[*graph.Node]bool, ts []Target) *Nodes {
	ns := &Nodes{list: make([]*graph.Node, 0, len(g.Nodes)), paths: make([]string, 0, len(g.Nodes))}
	for _, n := range g.Nodes {
		if scope == nil || scope[n] {
			ns.list = append(ns.list, n)
			ns.paths = append(ns.paths, n.Path())
		}
	}
	sort.Sort(byPath{ns})
	ns.dtypes = make([][]string, len(ns.list))
	ns.keys = make([]string, len(ns.list))
	ns.keyByID = make([]string, len(g.Nodes))
	ns.pathByID = make([]string, len(g.Nodes))
	attrs := map[string][]string{} // op → attrs constrained on any target
	ns.attrs = attrs
	// A model's nodes have few distinct dtype lists and keys: each is
	// kept once (they live as long as the scan of the model).
	dtypesSeen, keysSeen := map[string][]string{}, map[string]string{}
	for i, n := range ns.list {
		dt := n.DTypes()
		dk := ""
		if len(dt) == 1 {
			dk = dt[0]
		} else if len(dt) > 1 {
			dk = strings.Join(dt, ",")
		}
		if seen, ok := dtypesSeen[dk]; ok {
			dt = seen
		} else {
			dtypesSeen[dk] = dt
		}
		ns.dtypes[i] = dt
		names, ok := attrs[n.Op]
		if !ok {
			for _, t := range ts {
				for _, a := range t.Index.ConstrainedAttrs(n.Op) {
					if !slices.Contains(names, a) {
						names = append(names, a)
					}
				}
			}
			slices.Sort(names)
			attrs[n.Op] = names
		}
		key := coverage.MatchKey(n, names)
		if seen, ok := keysSeen[key]; ok {
			key = seen
		} else {
			keysSeen[key] = key
		}
		ns.keys[i] = key
		if n.ID >= 0 && n.ID < len(ns.keyByID) {
			ns.keyByID[n.ID] = ns.keys[i]
			ns.pathByID[n.ID] = ns.paths[i]
		}
	}
	return ns
}

// byPath sorts prepared nodes by path, keeping list and paths in step.
type byPath struct{ ns *Nodes }

func (s byPath) Len() int           { return len(s.ns.list) }
func (s byPath) Less(i, j int) bool { return s.ns.paths[i] < s.ns.paths[j] }
func (s byPath) Swap(i, j int) {
	s.ns.list[i], s.ns.list[j] = s.ns.list[j], s.ns.list[i]
	s.ns.paths[i], s.ns.paths[j] = s.ns.paths[j], s.ns.paths[i]
}

// Coverage matches every prepared node against one target. An op counts as
// covered when every node of it is covered.
func Coverage(ns *Nodes, t Target) *reports.Target {
	return coverageInto(ns, t, nil)
}

// coverageInto is Coverage listing the nodes in buf's array when it holds
// them all: a scan reuses one array for the targets it lists in part.
func coverageInto(ns *Nodes, t Target, buf []reports.NodeResult) *reports.Target {
	if cap(buf) < len(ns.list) {
		buf = make([]reports.NodeResult, 0, len(ns.list))
	}
	p := t.Index.Pack()
	rt := &reports.Target{
		Target: t.Name,
		Registry: reports.RegistryInfo{
			Name:        p.Name,
			Vendor:      p.Vendor,
			DeviceType:  p.DeviceType,
			Mechanism:   string(p.Mechanism),
			Source:      p.Source,
			Method:      string(p.Method),
			Confidence:  p.Confidence,
			LearnedFrom: p.LearnedFrom,

			ConfidenceLevel: string(p.ConfidenceLevel),
			TFVersion:       p.TFVersion,
		},
		Stack:     stackInfo(t.Index.Stack()),
		Coverage:  reports.Coverage{ByReason: map[string]int{}},
		Uncovered: []reports.Uncovered{},
		Nodes:     buf[:0],
	}
	if ns.phases != nil {
		rt.Coverage.Phases = ns.counted.Names()
		rt.Coverage.ByPhase = map[string]reports.PhaseCount{}
	}
	if p.Derived != nil {
		rt.Registry.Base = p.Derived.Base
	}
	type groupKey struct{ op, dtypes, reason, phase string }
	groups := map[groupKey]*reports.Uncovered{}
	opCovered := map[string]bool{}
	ops := map[string]*reports.OpCoverage{}
	lowered, rejected := map[int]coverage.Match{}, map[int]coverage.Match{}
	for i, n := range ns.list {
		m := t.Index.MatchKeyed(n, ns.keys[i])
		covered := m.Reason.Covered()
		dtypes := ns.dtypes[i]
		phase := ns.phaseName(n)
		rt.Nodes = append(rt.Nodes, reports.NodeResult{
			Path:      ns.paths[i],
			Op:        n.Op,
			DTypes:    dtypes,
			Reason:    string(m.Reason),
			Reachable: n.Reachable,
			Phase:     phase,
			LoweredTo: m.Lowered,
		})
		switch m.Reason {
		case coverage.ReasonCoveredLowerPrecision:
			lowered[i] = m
			rt.Coverage.LowerPrecisionNodes++
		case coverage.ReasonPrecisionModeError:
			rejected[i] = m
		}
		c := &rt.Coverage
		counts := ns.counts(n)
		if ns.phases != nil {
			pc := c.ByPhase[phase]
			pc.Nodes++
			if counts {
				c.CountedNodesTotal++
			}
			if covered {
				pc.Covered++
				if counts {
					c.CountedNodesCovered++
				}
			}
			c.ByPhase[phase] = pc
		}
		c.NodesTotal++
		c.ByReason[string(m.Reason)]++
		if n.Reachable {
			c.ReachableNodesTotal++
		}
		if m.Unverified {
			c.DTypeUnverifiedNodes++
		}
		if covered {
			c.NodesCovered++
			if n.Reachable {
				c.ReachableNodesCovered++
			}
		}
		if prev, ok := opCovered[n.Op]; counts && (!ok || prev) {
			opCovered[n.Op] = covered
		}
		if counts {
			o := ops[n.Op]
			if o == nil {
				o = &reports.OpCoverage{Op: n.Op, ByReason: map[string]int{}}
				ops[n.Op] = o
			}
			o.Nodes++
			o.ByReason[string(m.Reason)]++
		}
		if covered {
			continue
		}
		k := groupKey{n.Op, strings.Join(dtypes, ","), string(m.Reason), phase}
		u := groups[k]
		if u == nil {
			u = &reports.Uncovered{Op: n.Op, DTypes: dtypes, Reason: string(m.Reason), Nodes: []string{}, Supported: m.Supported, Hint: m.Hint, Phase: phase}
			groups[k] = u
		}
		u.Count++
		if len(u.Nodes) < maxExamplePaths {
			u.Nodes = append(u.Nodes, ns.paths[i])
		}
	}
	if len(lowered) > 0 {
		lowerGroups(rt, t.Index.Stack(), lowered)
	}
	if len(rejected) > 0 {
		modeErrors(rt, t.Index.Stack(), rejected)
	}
	rt.Ops = make([]reports.OpCoverage, 0, len(ops))
	for _, o := range ops {
		rt.Ops = append(rt.Ops, *o)
	}
	slices.SortFunc(rt.Ops, func(a, b reports.OpCoverage) int { return cmp.Compare(a.Op, b.Op) })
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
	rt.SortUncovered()
	return rt
}
