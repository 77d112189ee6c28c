package scan

import (
	"cmp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/internal/testutil"
	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/savedmodel"
)

// TestCoverageByClassIsByNode checks the figures a target's coverage
// counts per class of nodes (and with each key's match kept) against a
// count node by node from each node's own, unmemoized match
// (coverage.Index.Match), on every corpus model, with and without phases,
// for targets with and without a precision mode.
func TestCoverageByClassIsByNode(t *testing.T) {
	found, err := savedmodel.Discover(testutil.Corpus(t))
	require.NoError(t, err)
	// ascend last: the targets before it count on classes that do not tell
	// float32 nodes apart, ascend on classes that do (classesFor).
	ts, err := ResolveTargets([]string{"cpu", "musa", "rocm", "xla", "intel-xpu", "ascend"}, nil)
	require.NoError(t, err)
	counted, err := ParsePhases(nil)
	require.NoError(t, err)
	models := 0
	for _, path := range found {
		_, g, err := Load(path, nil)
		if err != nil {
			continue // the corpus's bad inputs
		}
		models++
		for _, phases := range []bool{false, true} {
			ns := PrepareNodes(g, nil, ts.List)
			if phases {
				ns.WithPhases(g.Phases(""), counted)
			}
			for _, tg := range ts.List {
				got := Coverage(ns, tg)
				want := coverageByNode(ns, tg)
				require.Equal(t, want.Coverage, got.Coverage, "%s %s phases=%v", path, tg.Name, phases)
				require.Equal(t, want.Ops, got.Ops, "%s %s", path, tg.Name)
				require.Equal(t, want.Uncovered, got.Uncovered, "%s %s", path, tg.Name)
				require.Len(t, got.Nodes, len(ns.list))
				for i := range got.Nodes {
					require.Equal(t, want.Nodes[i], got.Nodes[i], "%s %s", path, tg.Name)
				}
			}
		}
	}
	require.GreaterOrEqual(t, models, 13)
}

// coverageByNode counts a target's coverage figures node by node, each
// node matched on its own, and lists the nodes in the order of a plain
// sort of their paths: what coverageInto computed before it counted per
// class.
func coverageByNode(ns *Nodes, t Target) *reports.Target {
	rt := &reports.Target{Coverage: reports.Coverage{ByReason: map[string]int{}}}
	c := &rt.Coverage
	if ns.phases != nil {
		c.Phases = ns.counted.Names()
		c.ByPhase = map[string]reports.PhaseCount{}
	}
	type groupKey struct{ op, dtypes, reason, phase string }
	groups := map[groupKey]*reports.Uncovered{}
	var order []groupKey
	opCovered := map[string]bool{}
	ops := map[string]*reports.OpCoverage{}
	byPath := make([]int, len(ns.list))
	for i := range byPath {
		byPath[i] = i
	}
	slices.SortFunc(byPath, func(a, b int) int { return strings.Compare(ns.path(a), ns.path(b)) })
	for _, i := range byPath {
		n := ns.list[i]
		m := t.Index.Match(n)
		covered, reason, phase, counts := m.Reason.Covered(), string(m.Reason), ns.phaseName(n), ns.counts(n)
		rt.Nodes = append(rt.Nodes, reports.NodeResult{Path: ns.path(i), Op: n.Op, DTypes: n.DTypes(), Reason: reason,
			Reachable: n.Reachable, Phase: phase, LoweredTo: m.Lowered})
		if ns.phases != nil {
			pc := c.ByPhase[phase]
			pc.Nodes++
			if covered {
				pc.Covered++
			}
			c.ByPhase[phase] = pc
			if counts {
				c.CountedNodesTotal++
				if covered {
					c.CountedNodesCovered++
				}
			}
		}
		c.NodesTotal++
		c.ByReason[reason]++
		if n.Reachable {
			c.ReachableNodesTotal++
		}
		if m.Unverified {
			c.DTypeUnverifiedNodes++
		}
		if m.Reason == coverage.ReasonCoveredLowerPrecision {
			c.LowerPrecisionNodes++
		}
		if covered {
			c.NodesCovered++
			if n.Reachable {
				c.ReachableNodesCovered++
			}
		}
		if counts {
			prev, ok := opCovered[n.Op]
			opCovered[n.Op] = covered && (!ok || prev)
			o := ops[n.Op]
			if o == nil {
				o = &reports.OpCoverage{Op: n.Op, ByReason: map[string]int{}}
				ops[n.Op] = o
			}
			o.Nodes++
			o.ByReason[reason]++
		}
		if covered {
			continue
		}
		dt := n.DTypes()
		k := groupKey{n.Op, strings.Join(dt, ","), reason, phase}
		u := groups[k]
		if u == nil {
			if dt == nil {
				dt = []string{}
			}
			u = &reports.Uncovered{Op: n.Op, DTypes: dt, Reason: reason, Nodes: []string{}, Supported: m.Supported, Hint: m.Hint, Phase: phase}
			groups[k] = u
			order = append(order, k)
		}
		u.Count++
		if len(u.Nodes) < maxExamplePaths {
			u.Nodes = append(u.Nodes, ns.path(i))
		}
	}
	for _, o := range ops {
		rt.Ops = append(rt.Ops, *o)
	}
	slices.SortFunc(rt.Ops, func(a, b reports.OpCoverage) int { return cmp.Compare(a.Op, b.Op) })
	if rt.Ops == nil {
		rt.Ops = []reports.OpCoverage{}
	}
	c.OpsTotal = len(opCovered)
	for _, ok := range opCovered {
		if ok {
			c.OpsCovered++
		}
	}
	rt.Uncovered = []reports.Uncovered{}
	for _, k := range order {
		rt.Uncovered = append(rt.Uncovered, *groups[k])
	}
	rt.SortUncovered()
	return rt
}

// TestClassesKeepFloat32Apart: nodes of one key fall in different classes
// when one is float32 (a precision mode matches float32 nodes apart,
// whatever the key holds) or a function call by name.
func TestClassesKeepFloat32Apart(t *testing.T) {
	typ := func(dt tpb.DataType) map[string]*attrpb.AttrValue {
		return map[string]*attrpb.AttrValue{"T": {Value: &attrpb.AttrValue_Type{Type: dt}}}
	}
	calling := &graph.Node{Op: "Foo", Attrs: typ(tpb.DataType_DT_INT32)}
	calling.SetCalls([]*graph.Function{{Name: "Foo"}})
	ns := &Nodes{
		list: []*graph.Node{
			{Op: "Foo", Attrs: typ(tpb.DataType_DT_FLOAT)},
			{Op: "Foo", Attrs: typ(tpb.DataType_DT_INT32)},
			{Op: "Foo", Attrs: typ(tpb.DataType_DT_FLOAT)},
			calling,
		},
		key: []int32{0, 0, 0, 0},
		// as after a target whose precision mode lowers float32 (classesFor)
		splitF32:   true,
		dtypes:     make([]int32, 4),
		dtypeLists: [][]string{nil},
	}
	cls := ns.classes()
	require.Len(t, cls, 3)
	require.Equal(t, []int32{0, 1, 0, 2}, ns.class)
	require.Equal(t, []int{2, 1, 1}, []int{cls[0].nodes, cls[1].nodes, cls[2].nodes})
}

// TestClassesForSplitFloat32ForALoweringTarget: the classes tell float32
// nodes apart once a target whose precision mode lowers them asks (ascend),
// not for one that does not (musa).
func TestClassesForSplitFloat32ForALoweringTarget(t *testing.T) {
	ts, err := ResolveTargets([]string{"musa", "ascend"}, nil)
	require.NoError(t, err)
	f32 := map[string]*attrpb.AttrValue{"T": {Value: &attrpb.AttrValue_Type{Type: tpb.DataType_DT_FLOAT}}}
	i32 := map[string]*attrpb.AttrValue{"T": {Value: &attrpb.AttrValue_Type{Type: tpb.DataType_DT_INT32}}}
	ns := &Nodes{list: []*graph.Node{{Op: "Foo", Attrs: f32}, {Op: "Foo", Attrs: i32}}, key: []int32{0, 0}, dtypes: make([]int32, 2), dtypeLists: [][]string{nil}}
	require.Len(t, ns.classesFor(ts.List[0].Index), 1, "musa")
	require.Len(t, ns.classesFor(ts.List[1].Index), 2, "ascend")
	require.Len(t, ns.classesFor(ts.List[0].Index), 2, "musa after ascend")
}
