package executor

// freshOutput are the kernels whose output 0 is a tensor no other value
// shares: newly allocated, or the owned input they wrote over (see
// kernels.Context.Owned). Ops that can return an input as it is (Identity,
// Reshape, a no-op Cast) are not listed.
var freshOutput = map[string]bool{
	"Conv2D": true, "DepthwiseConv2dNative": true, "_FusedConv2D": true,
	"FusedBatchNorm": true, "FusedBatchNormV2": true, "FusedBatchNormV3": true,
	"Relu": true, "Relu6": true, "BiasAdd": true, "Sigmoid": true, "Tanh": true,
	"Elu": true, "Selu": true, "LeakyRelu": true,
	"AddV2": true, "Sub": true, "Mul": true, "RealDiv": true, "Maximum": true, "Minimum": true, "Erf": true,
}

// ownedInputs marks, for every node of s, the data inputs it is the only
// reader of: output 0 of a freshOutput kernel with a single out-edge that
// is not also the function's result. A run also excludes fed and fetched
// outputs (runState.owned).
func ownedInputs(s *scope) []uint64 {
	owned := make([]uint64, len(s.nodes))
	isRet := map[int]bool{}
	for _, r := range s.rets {
		if r.node != nil && r.output == 0 {
			if p, ok := s.local[r.node]; ok {
				isRet[p] = true
			}
		}
	}
	for p, n := range s.nodes {
		if !freshOutput[n.Op] || isRet[p] {
			continue
		}
		uses, last := 0, edge{}
		for _, e := range s.out[p] {
			if e.srcSlot == 0 {
				uses++
				last = e
			}
		}
		if uses == 1 && last.dstSlot >= 0 && last.dstSlot < 64 {
			owned[last.dst] |= 1 << uint(last.dstSlot)
		}
	}
	return owned
}

// owned is ownedInputs' mask for node i in this run: none while an
// observer (AfterNode, BeforeKernel) sees the tensors or NodeEmu rounds
// the inputs, and without inputs whose producer's output is fed or fetched.
func (rs *runState) owned(i int) uint64 {
	o := rs.e.opts
	if o.AfterNode != nil || o.BeforeKernel != nil || o.NodeEmu != nil {
		return 0
	}
	if rs.sc.owned == nil {
		rs.sc.owned = ownedInputs(rs.sc)
	}
	m := rs.sc.owned[i]
	if m == 0 {
		return 0
	}
	for slot, in := range rs.sc.nodes[i].Inputs {
		if m&(1<<uint(slot)) == 0 {
			continue
		}
		k := outKey{rs.sc.local[in.Node], 0}
		if rs.fed[k] || len(rs.fetchAt[k]) > 0 {
			m &^= 1 << uint(slot)
		}
	}
	return m
}
