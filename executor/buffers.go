package executor

import (
	"reflect"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/kernels"
)

// Buffer reuse. A run hands a tensor's buffer back to the executor's pool
// when the tensor is provably dead: a kernel in reusableOutput made it
// (new memory, or an owned input it wrote over), no fetch, function
// result or feed names it, and every one of its readers has run, each a
// stateless registered kernel (no intrinsic, function call or stateful
// kernel, which may keep or pass on the tensor itself) whose outputs do
// not share its memory (a Reshape view; an in-place write, after which the
// buffer stays with the output) and are plain numbers (no string, variant
// or resource that could hold it); Identity and IdentityN hand the
// tracking on to their outputs' readers (forward). Later kernels' outputs
// draw from the pool (bufpool.go, kernels.Buffers), so a model's layers cycle through a few buffers of
// each size instead of allocating every output and collecting it. Nothing
// is recycled while an observer (AfterNode, BeforeKernel) sees the
// tensors or NodeEmu rounds them.

// reusableOutput are the kernels whose output 0 is new memory or an owned
// input (kernels.Context.Owned), never a constant, a variable's value or
// an input it does not own; an output that shares memory with an input
// is still checked (sharesMemory) before it is tracked.
var reusableOutput = map[string]bool{
	"Pad": true, "PadV2": true, "MatMul": true, "BatchMatMulV2": true,
	"ConcatV2": true, "Concat": true, "Pack": true,
}

func init() {
	for op := range freshOutput {
		reusableOutput[op] = true
	}
}

// memRange is the memory a tensor's data spans (its whole backing array
// from the first element), empty for non-slices and empty slices.
func memRange(data any) (lo, hi uintptr) {
	v := reflect.ValueOf(data)
	if v.Kind() != reflect.Slice || v.Cap() == 0 {
		return 0, 0
	}
	lo = v.Pointer()
	return lo, lo + uintptr(v.Cap())*v.Type().Elem().Size()
}

// sharesMemory reports whether a and b's data overlap.
func sharesMemory(a, b *kernels.Tensor) bool {
	if a == b {
		return true
	}
	alo, ahi := memRange(a.Data)
	blo, bhi := memRange(b.Data)
	return alo < ahi && blo < bhi && alo < bhi && blo < ahi
}

// reuseFlags caches, per node of a scope, whether it may read a tracked
// tensor (a stateless registered kernel) and whether its output 0 is
// tracked (reusableOutput).
const (
	reuseKnown uint8 = 1 << iota
	reuseReader
	reuseProducer
	reuseForward
)

// forwards are the intrinsics whose output k is their input k itself
// (derefAll): a tracked tensor passing through one keeps being tracked,
// its readers then including those of the output (Keras' swish and other
// custom gradients wrap their values in IdentityN).
var forwards = map[string]bool{
	"Identity": true, "IdentityN": true, "Snapshot": true, "StopGradient": true, "PreventGradient": true,
}

func (rs *runState) reuseFlags(i int) uint8 {
	sc := rs.sc
	if sc.reuse == nil {
		sc.reuse = make([]uint8, len(sc.nodes))
	}
	f := sc.reuse[i]
	if f&reuseKnown != 0 {
		return f
	}
	f = reuseKnown
	n := sc.nodes[i]
	if forwards[n.Op] {
		f |= reuseForward
	}
	if plainKernel(rs.e, n) {
		f |= reuseReader
		if reusableOutput[n.Op] {
			f |= reuseProducer
		}
	}
	sc.reuse[i] = f
	return f
}

// plainKernel reports whether n runs a stateless registered kernel.
func plainKernel(e *Executor, n *graph.Node) bool {
	if _, ok := intrinsics[n.Op]; ok {
		return false
	}
	if e.g.FunctionByName[n.Op] != nil {
		return false
	}
	k := kernels.Find(n.Op)
	return k != nil && !k.Stateful
}

// reusing reports whether this run recycles buffers.
func (rs *runState) reusing() bool {
	o := rs.e.opts
	return rs.e.pool != nil && o.AfterNode == nil && o.BeforeKernel == nil && o.NodeEmu == nil
}

// plainData reports whether outs are all tensors of numbers (no string,
// variant, resource or reference that could hold another tensor).
func plainData(outs []slot) bool {
	for _, o := range outs {
		if o.ref != nil {
			return false
		}
		if o.t == nil {
			continue
		}
		switch o.t.DType {
		case tpb.DataType_DT_STRING, tpb.DataType_DT_VARIANT, tpb.DataType_DT_RESOURCE:
			return false
		}
		if k, _, _ := kindOf(o.t.Data); k == kNone {
			return false
		}
	}
	return true
}

// release accounts for node i having run (or being dead) on inputs in
// with outputs outs: a tracked input whose readers have all run goes back
// to the pool, one that an output shares or that an untracked reader sees
// is no longer tracked; then i's fresh outputs are tracked.
func (rs *runState) release(i int, in []slot, outs []slot, ran bool) {
	if len(rs.live) == 0 && !ran {
		return
	}
	f := rs.reuseFlags(i)
	if f&reuseForward != 0 {
		rs.forward(i, in, outs)
		return
	}
	reader := f&reuseReader != 0 && plainData(outs)
	// Outputs first: one that shares an input's memory is tracked only
	// when that input is tracked and this is its last reader (an in-place
	// write over an owned input).
	var track []bool
	if ran && f&reuseProducer != 0 && reader && len(outs) > 0 && outs[0].t != nil && !outs[0].dead {
		o := outs[0].t
		ok := true
		for _, s := range in {
			if s.t == nil || !sharesMemory(o, s.t) {
				continue
			}
			if left, tracked := rs.live[s.t]; !tracked || left != 1 {
				ok = false
			}
		}
		if ok {
			track = []bool{true}
		}
	}
	for _, s := range in {
		t := s.t
		if t == nil {
			continue
		}
		left, tracked := rs.live[t]
		if !tracked {
			continue
		}
		if !reader {
			delete(rs.live, t)
			continue
		}
		shared := false
		for _, o := range outs {
			if o.t != nil && sharesMemory(o.t, t) {
				shared = true
				break
			}
		}
		if shared {
			delete(rs.live, t)
			continue
		}
		if left > 1 {
			rs.live[t] = left - 1
			continue
		}
		delete(rs.live, t)
		rs.e.pool.put(t)
	}
	if track == nil {
		return
	}
	uses := rs.uses(i, 0)
	if uses < 0 {
		return
	}
	if uses == 0 {
		rs.e.pool.put(outs[0].t)
		return
	}
	if rs.live == nil {
		rs.live = map[*kernels.Tensor]int32{}
	}
	rs.live[outs[0].t] = int32(uses)
}

// uses is the number of readers of node i's output k in this run's plan,
// -1 when the output is fed or fetched.
func (rs *runState) uses(i, k int) int {
	if key := (outKey{i, k}); rs.fed[key] || len(rs.fetchAt[key]) > 0 {
		return -1
	}
	n := 0
	for _, e := range rs.sc.out[i] {
		if e.srcSlot == k && rs.pl.needed[e.dst] {
			n++
		}
	}
	return n
}

// forward is release for a forwards node: each tracked input loses the
// readings of this node and gains the readers of the outputs that are it;
// one whose memory another output shares, or that leaves as a fed or
// fetched output, is no longer tracked.
func (rs *runState) forward(i int, in, outs []slot) {
	for j, s := range in {
		t := s.t
		left, tracked := rs.live[t]
		if t == nil || !tracked {
			continue
		}
		seen := false
		for _, p := range in[:j] {
			seen = seen || p.t == t
		}
		if seen {
			continue
		}
		for _, p := range in[j:] {
			if p.t == t {
				left--
			}
		}
		for k, o := range outs {
			if o.t == nil {
				continue
			}
			if o.t != t {
				if sharesMemory(o.t, t) {
					left = -1 << 30
				}
				continue
			}
			u := rs.uses(i, k)
			if u < 0 {
				left = -1 << 30
			}
			left += int32(u)
		}
		switch {
		case left < 0:
			delete(rs.live, t)
		case left == 0:
			delete(rs.live, t)
			rs.e.pool.put(t)
		default:
			rs.live[t] = left
		}
	}
}
