package placement

import (
	"fmt"
	"sort"
)

// maxMerges bounds the clusters oneCluster tries to merge (each merge is
// one reachability walk of the graph).
const maxMerges = 64

// oneCluster applies a session adapter's partitioning without
// mix_compile_mode (Ascend's TF1 adapter, om_partition_subgraphs_pass.cc
// MarkForPartition and MergeSubgraphs): the target nodes form clusters;
// the largest one is compiled, together with the clusters that neither
// reach it nor are reached by it (nor by one another); every other cluster
// runs on the host as TensorFlow CPU ops. Clusters here are the connected
// groups of target nodes; the adapter's cycle checks are not modelled.
func (s *sim) oneCluster() {
	c := s.opts.Stack
	if c == nil || c.Mixed || s.tgt == s.cpu {
		return
	}
	on := func(i int) bool {
		p := s.nodes[i]
		return !p.is(pGhost|pIO|pFed) && int(s.dev[i]) == s.tgt
	}
	outs := s.outEdges()
	comp, sizes := s.components(make([]int32, len(s.nodes)), func(_, k int) bool { return on(k) })
	if len(sizes) < 2 {
		return
	}
	order := make([]int, len(sizes))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return sizes[order[a]] > sizes[order[b]] })
	// related[c] is set for clusters a merged cluster reaches or is reached by.
	related := make([]bool, len(sizes))
	merged := make([]bool, len(sizes))
	mark := func(root int) {
		for _, fwd := range []bool{true, false} {
			seen := make([]bool, len(s.nodes))
			var stack []int
			for i := range s.nodes {
				if int(comp[i]) == root {
					stack = append(stack, i)
					seen[i] = true
				}
			}
			for len(stack) > 0 {
				j := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if c := int(comp[j]); c >= 0 && c != root {
					related[c] = true
				}
				next := func(k int) {
					if k >= 0 && !seen[k] {
						seen[k] = true
						stack = append(stack, k)
					}
				}
				if fwd {
					for _, e := range outs.Of(j) {
						next(int(e.dst))
					}
					continue
				}
				for _, q := range s.inputs(s.nodes[j]) {
					next(int(q.n))
				}
				for _, k := range s.waits(s.nodes[j]) {
					next(int(k))
				}
			}
		}
	}
	merges := 0
	for _, c := range order {
		if related[c] || merges >= maxMerges {
			continue
		}
		merged[c] = true
		merges++
		mark(c)
	}
	why := fmt.Sprintf("mix_compile_mode=false: the adapter compiles one cluster (the largest, %d nodes, and the clusters independent of it) and runs the other clusters on the host as TensorFlow ops (%s)",
		sizes[order[0]], c.MixedSource)
	for i, p := range s.nodes {
		if comp[i] < 0 || merged[comp[i]] {
			continue
		}
		s.dev[i] = int8(s.cpu)
		s.prependReason(i, why)
		if s.sup(i) != nil && s.sup(i)[s.cpu] < 0 && p.src != nil && int(s.firstOf[p.src.ID]) == i {
			s.errs = append(s.errs, fmt.Sprintf("%s: %s has no CPU kernel, but mix_compile_mode=false leaves its cluster on the host", s.label(p), p.op()))
		}
	}
}
