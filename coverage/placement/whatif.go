package placement

import (
	"slices"
	"sort"

	kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/dtype"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/internal/csr"
)

// WithKernel wraps m so that nodes of op whose primary dtype is dtype find
// a kernel (no host-memory args): the "what if this kernel existed" matcher
// of the wishlist.
func WithKernel(m coverage.Matcher, op string, dtype tpb.DataType) coverage.Matcher {
	return &wishMatcher{Matcher: m, op: op, dtype: dtype,
		k: &kdpb.KernelDef{Op: op, DeviceType: m.DeviceType()}}
}

type wishMatcher struct {
	coverage.Matcher
	op    string
	dtype tpb.DataType
	k     *kdpb.KernelDef
}

func (w *wishMatcher) Match(n *graph.Node) coverage.Match {
	if n.Op == w.op && PrimaryDType(n) == w.dtype {
		return coverage.Match{Reason: coverage.ReasonCovered, Kernel: w.k}
	}
	return w.Matcher.Match(n)
}

// PrimaryDType is the dtype a node's kernel is chosen by: its "T" attr,
// else its first type attr by name, else its first input or output type.
func PrimaryDType(n *graph.Node) tpb.DataType {
	if a, ok := n.Attrs["T"]; ok && a.GetType() != tpb.DataType_DT_INVALID {
		return a.GetType()
	}
	var names []string
	for k, a := range n.Attrs {
		if a.GetType() != tpb.DataType_DT_INVALID && k != "" && k[0] != '_' {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	if len(names) > 0 {
		return n.Attrs[names[0]].GetType()
	}
	if len(n.InputTypes()) > 0 {
		return n.InputTypes()[0]
	}
	if len(n.OutputTypes()) > 0 {
		return n.OutputTypes()[0]
	}
	return tpb.DataType_DT_INVALID
}

type wishKey struct {
	op    string
	dtype tpb.DataType
}

// wishlist re-places, for each missing (op, dtype) kernel, only the CPU
// component(s) holding those nodes and their colocation groups, and
// recounts only the transfers of ports touching them. The cost is bounded
// by #missing kernels × (island size + their edges), not model size.
func (s *sim) wishlist(all map[xferKey]*xfer) []Wish {
	if s.tgt == s.cpu {
		return nil
	}
	byKey := map[wishKey][]int{}
	// A node the target has a kernel for is passed over by its flags and
	// its row of sups, without reading the node.
	fl := s.flat.opFlags()
	for i := range s.nodes {
		if fl[i]&(flagGhost|flagIO) != 0 || s.supRow(i)[s.tgt] >= 0 {
			continue
		}
		p := s.nodes[i]
		if p.look() == nil || !s.counted(i) {
			continue
		}
		if p.is(pHost) || p.ghostOf >= 0 || p.assigned >= 0 {
			continue
		}
		k := wishKey{p.op(), PrimaryDType(p.look())}
		byKey[k] = append(byKey[k], i)
	}
	keys := make([]wishKey, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool {
		if keys[a].op != keys[b].op {
			return keys[a].op < keys[b].op
		}
		return keys[a].dtype < keys[b].dtype
	})
	if len(keys) == 0 {
		return nil // every node has a kernel on the target: no regions to find
	}
	rg := s.newRegions()
	var out []Wish
	for _, k := range keys {
		nodes := byKey[k]
		w := s.whatIfRegion(WithKernel(s.matchers[s.tgt], k.op, k.dtype), nodes, rg.around(nodes), rg.members)
		w.Op, w.DType, w.Nodes = k.op, dtName(k.dtype), len(nodes)
		out = append(out, w)
	}
	sort.SliceStable(out, func(a, b int) bool {
		if out[a].BytesRemoved != out[b].BytesRemoved {
			return out[a].BytesRemoved > out[b].BytesRemoved
		}
		if out[a].TransfersRemoved != out[b].TransfersRemoved {
			return out[a].TransfersRemoved > out[b].TransfersRemoved
		}
		if out[a].Op != out[b].Op {
			return out[a].Op < out[b].Op
		}
		return out[a].DType < out[b].DType
	})
	return out
}

func dtName(t tpb.DataType) string { return dtype.Name(t) }

// members lists the nodes of every colocation group, in index order, by
// the group's root.
type members = csr.Groups[int32]

// groupMembers lists the members of every group, once for the wishlist.
func (s *sim) groupMembers() members {
	return s.opts.Scratch.members(len(s.nodes), func(add func(int, int32)) {
		for i, p := range s.nodes {
			if !p.is(pGhost) {
				add(s.find(i), int32(i))
			}
		}
	})
}

// regions finds what a what-if must re-place around some nodes: their
// CPU components and colocation groups, closed under both.
type regions struct {
	s         *sim
	members   members // the nodes of each colocation group
	comp      []int32 // CPU component of each node, -1 if none
	compNodes map[int][]int
}

func (s *sim) newRegions() *regions {
	rg := &regions{s: s, members: s.groupMembers(), compNodes: map[int][]int{}}
	rg.comp = s.cpuComponents()
	for i, c := range rg.comp {
		if c >= 0 {
			rg.compNodes[int(c)] = append(rg.compNodes[int(c)], i)
		}
	}
	return rg
}

// around is the region of nodes: the nodes, every node of their CPU
// components and colocation groups, and so on until closed.
func (rg *regions) around(nodes []int) map[int]bool {
	region := map[int]bool{}
	compDone := map[int32]bool{}
	rootDone := map[int]bool{}
	stack := append([]int(nil), nodes...)
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if region[i] {
			continue
		}
		region[i] = true
		if c := rg.comp[i]; c >= 0 && !compDone[c] {
			compDone[c] = true
			stack = append(stack, rg.compNodes[int(c)]...)
		}
		if r := rg.s.find(i); !rootDone[r] {
			rootDone[r] = true
			for _, m := range rg.members.Of(r) {
				stack = append(stack, int(m))
			}
		}
	}
	return region
}

// whatIfCovered answers Options.WhatIfCovered: for each group of graph
// nodes, the transfers removed if every instance of them had a kernel on
// the target (what `tfscan rewrite` gets when it makes them covered).
func (s *sim) whatIfCovered() []Wish {
	if len(s.opts.WhatIfCovered) == 0 {
		return nil
	}
	out := make([]Wish, len(s.opts.WhatIfCovered))
	if s.tgt == s.cpu {
		return out
	}
	rg := s.newRegions()
	for gi, group := range s.opts.WhatIfCovered {
		set := make(map[int]bool, len(group))
		for _, n := range group {
			set[n.ID] = true
		}
		var nodes []int
		for i, p := range s.nodes {
			if !p.is(pGhost|pIO) && p.src != nil && set[p.src.ID] {
				nodes = append(nodes, i)
			}
		}
		if len(nodes) == 0 {
			continue
		}
		w := s.whatIfRegion(&coveredMatcher{Matcher: s.matchers[s.tgt], nodes: set}, nodes, rg.around(nodes), rg.members)
		w.Nodes = len(group)
		out[gi] = w
	}
	return out
}

// coveredMatcher answers "covered" for a set of graph nodes (by ID, so
// that auto mixed precision's lookup copies count too) and asks the
// wrapped matcher for the rest.
type coveredMatcher struct {
	coverage.Matcher
	nodes map[int]bool
}

func (c *coveredMatcher) Match(n *graph.Node) coverage.Match {
	if n.ID >= 0 && c.nodes[n.ID] {
		return coverage.Match{Reason: coverage.ReasonCovered, Kernel: &kdpb.KernelDef{Op: n.Op, DeviceType: c.DeviceType()}}
	}
	return c.Matcher.Match(n)
}

// cpuComponents labels connected components of CPU-placed nodes, each
// within one function-call unit.
func (s *sim) cpuComponents() []int32 {
	onCPU := func(i int) bool { return !s.nodes[i].is(pGhost) && int(s.dev[i]) == s.cpu && !s.nodes[i].is(pIO) }
	comp, _ := s.components(s.opts.Scratch.lentInt32(lentCPUComps, len(s.nodes)), func(seed, k int) bool { return onCPU(k) && s.nodes[k].unit() == s.nodes[seed].unit() })
	return comp
}

// whatIfRegion re-places region with the target matcher override for
// nodes and returns the transfer delta; all state is restored afterwards.
func (s *sim) whatIfRegion(override coverage.Matcher, nodes []int, region map[int]bool, members members) Wish {
	idx := make([]int, 0, len(region))
	for i := range region {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	srcs := map[int]bool{}
	for _, i := range idx {
		srcs[i] = true
		for _, q := range s.inputs(s.nodes[i]) {
			if q.n >= 0 {
				srcs[int(q.n)] = true
			}
		}
		for _, c := range s.waits(s.nodes[i]) {
			srcs[int(c)] = true
		}
	}
	before := s.transfers(srcs)
	// save
	oldDev := make(map[int]int, len(idx))
	oldReasons := make(map[int]int32, len(idx))
	// The region's nodes get rows of their own to write (ownRow), the
	// rows they held kept to go back to.
	oldRow := map[int]int32{}
	kept := len(s.rowMidx)
	roots := map[int]group{}
	for _, i := range idx {
		oldDev[i] = int(s.dev[i])
		oldReasons[i] = s.reasons[i]
		r := s.find(i)
		if g := s.group(r); g != nil {
			if _, seen := roots[r]; !seen {
				roots[r] = *g
			}
		}
	}
	s.whatIf = map[int][]coverage.Match{}
	for _, i := range nodes {
		// The region holds the nodes' groups, whose priorities are
		// worked out again below; should it not, a group that reads the
		// node's priorities keeps the old ones.
		if g := s.group(i); g != nil && g.prio >= 0 {
			s.ownPrio(g)
		}
		if _, ok := oldRow[i]; !ok {
			oldRow[i] = s.rowOf[i]
		}
		s.ownRow(i)
		sup, ms := s.kernelsFor(s.nodes[i], s.nodes[i].look(), override)
		copy(s.sup(i), sup)
		s.whatIf[i] = ms
	}
	// recompute the affected groups' supported devices from their members
	for r := range roots {
		g := s.group(r)
		var prio []int
		for _, m := range members.Of(r) {
			if prio == nil {
				prio = append([]int(nil), s.sup(int(m))...)
				continue
			}
			if p, ok := mergePrio(prio, s.sup(int(m)), s); ok {
				prio = p
			}
		}
		if g.hostOnly {
			for d := range prio {
				if d != s.cpu {
					prio[d] = -1
				}
			}
		}
		if prio != nil {
			s.setPrio(g, prio)
		}
		g.pinned, g.cands, g.failed = -1, -1, false
	}
	for _, i := range idx {
		s.dev[i] = -1
	}
	saveErrs, saveWarn := len(s.errs), len(s.warnings)
	s.assignNodes(slices.Values(idx))
	after := s.transfers(srcs)
	// restore
	s.errs, s.warnings = s.errs[:saveErrs], s.warnings[:saveWarn]
	for i, d := range oldDev {
		s.dev[i] = int8(d)
		s.reasons[i] = oldReasons[i]
	}
	for i, r := range oldRow {
		s.rowOf[i] = r
	}
	s.sups, s.rowMidx = s.sups[:kept], s.rowMidx[:kept]
	for r, g := range roots {
		s.gslab[r] = g
	}
	s.whatIf = nil
	var w Wish
	for _, x := range before {
		if !s.countedXfer(x) {
			continue
		}
		w.TransfersRemoved++
		w.BytesRemoved += x.Bytes
		if x.IO {
			w.IOBytesRemoved += x.Bytes
		}
	}
	for _, x := range after {
		if !s.countedXfer(x) {
			continue
		}
		w.TransfersRemoved--
		w.BytesRemoved -= x.Bytes
		if x.IO {
			w.IOBytesRemoved -= x.Bytes
		}
	}
	return w
}
