package executor

import (
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/kernels"
)

// Stable inputs (kernels.Context.Stable): data a kernel may derive
// something from once and keep in the executor's kernels.PackCache, such
// as the GEMM's packed panels of a convolution's filter, which every call
// and every run would otherwise pack again. A stable input is output 0 of
// a Const (its value is converted once and cached, constValue) or of a
// ReadVariableOp (the variable's value, which an assignment replaces
// rather than overwrites), directly or through Identity nodes; never a fed
// tensor, whose data its caller may change between runs. No kernel writes
// over such data: neither is an owned input (owned.go) nor goes back to
// the buffer pool (buffers.go).

// stableOps are the ops whose output 0 is stable.
var stableOps = map[string]bool{"Const": true, "ReadVariableOp": true}

// stableInputs marks, for every node of s, its data inputs that come from
// a stable op's output 0, through at most a few Identity nodes.
func stableInputs(s *scope) []uint64 {
	st := make([]uint64, len(s.nodes))
	for i, n := range s.nodes {
		for slot, in := range n.Inputs {
			if slot >= 64 {
				break
			}
			if stableSource(in) != nil {
				st[i] |= 1 << uint(slot)
			}
		}
	}
	return st
}

// stableSource returns the stable node behind in, or nil.
func stableSource(in graph.Input) *graph.Node {
	for hops := 0; hops < 8 && in.Node != nil && in.Output == 0; hops++ {
		switch n := in.Node; {
		case stableOps[n.Op]:
			return n
		case n.Op == "Identity" && len(n.Inputs) == 1:
			in = n.Inputs[0]
		default:
			return nil
		}
	}
	return nil
}

// stable is stableInputs' mask for node i in this run: none while NodeEmu
// rounds the inputs into new tensors, and without inputs that pass
// through a fed output.
func (rs *runState) stable(i int) uint64 {
	if rs.e.packs == nil || rs.e.opts.NodeEmu != nil {
		return 0
	}
	if rs.sc.stable == nil {
		rs.sc.stable = stableInputs(rs.sc)
	}
	m := rs.sc.stable[i]
	if m == 0 || len(rs.fed) == 0 {
		return m
	}
	for slot, in := range rs.sc.nodes[i].Inputs {
		if m&(1<<uint(slot)) == 0 {
			continue
		}
		for hops := 0; hops < 8 && in.Node != nil; hops++ {
			if p, ok := rs.sc.local[in.Node]; ok && rs.fed[outKey{p, int(in.Output)}] {
				m &^= 1 << uint(slot)
				break
			}
			if stableOps[in.Node.Op] || len(in.Node.Inputs) == 0 {
				break
			}
			in = in.Node.Inputs[0]
		}
	}
	return m
}

// newPackCache is the executor's cache of packed stable operands.
func newPackCache() *kernels.PackCache { return kernels.NewPackCache(kernels.DefaultPackCacheBytes) }
