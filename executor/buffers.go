package executor

import (
	"math"
	"os"
	"reflect"
	"sync"

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
// not share its memory (Identity-like views, in-place writes: the buffer
// then stays with the output) and are plain numbers (no string, variant or
// resource that could hold it). Later kernels' outputs draw from the pool
// (kernels.Buffers), so a model's layers cycle through a few buffers of
// each size instead of allocating every output and collecting it. Nothing
// is recycled while an observer (AfterNode, BeforeKernel) sees the
// tensors or NodeEmu rounds them.

// reusableOutput are the kernels whose output 0 is new memory or an owned
// input (kernels.Context.Owned), never a constant, a variable's value or
// an input it does not own; an output that shares memory with an input
// is still checked (sharesMemory) before it is tracked.
var reusableOutput = map[string]bool{
	"Pad": true, "PadV2": true, "MatMul": true, "BatchMatMulV2": true,
}

func init() {
	for op := range freshOutput {
		reusableOutput[op] = true
	}
}

// poisonFreed, set by TFSCAN_POISON_FREED=1, fills every buffer handed
// back with NaN (0xA5 bytes for integers) and every unzeroed one handed
// out with the same: a tensor read after its buffer went back, or a kernel
// that leaves part of an unzeroed output unwritten, then shows in the
// results (TestBufferReuse runs the corpus so).
var poisonFreed = os.Getenv("TFSCAN_POISON_FREED") == "1"

// minPooled is the smallest buffer (elements) worth pooling: smaller ones
// cost the allocator little.
const minPooled = 256

// maxPooledBytes bounds what the pool holds; beyond it freed buffers are
// left to the garbage collector.
const maxPooledBytes = 1 << 30

// bufPool holds freed buffers by element type and length: a model's
// layers repeat their shapes within a run, and every run repeats the
// last. It implements kernels.Buffers.
type bufPool struct {
	mu   sync.Mutex
	free map[poolKey][]any
	held int
	// reused and freed count buffers handed out again and handed back.
	reused, freed int
}

type poolKey struct {
	kind elemKind
	n    int
}

type elemKind uint8

const (
	kNone elemKind = iota
	kF32
	kF64
	kF16
	kBF16
	kI32
	kI64
	kU8
	kBool
)

func kindOf(s any) (elemKind, int, int) {
	switch d := s.(type) {
	case []float32:
		return kF32, len(d), 4
	case []float64:
		return kF64, len(d), 8
	case []kernels.Float16:
		return kF16, len(d), 2
	case []kernels.BFloat16:
		return kBF16, len(d), 2
	case []int32:
		return kI32, len(d), 4
	case []int64:
		return kI64, len(d), 8
	case []uint8:
		return kU8, len(d), 1
	case []bool:
		return kBool, len(d), 1
	}
	return kNone, 0, 0
}

func makeKind(k elemKind, n int) any {
	switch k {
	case kF32:
		return make([]float32, n)
	case kF64:
		return make([]float64, n)
	case kF16:
		return make([]kernels.Float16, n)
	case kBF16:
		return make([]kernels.BFloat16, n)
	case kI32:
		return make([]int32, n)
	case kI64:
		return make([]int64, n)
	case kU8:
		return make([]uint8, n)
	case kBool:
		return make([]bool, n)
	}
	return nil
}

// Get implements kernels.Buffers.
func (p *bufPool) Get(like any, n int, zero bool) any {
	if n < minPooled {
		return nil
	}
	k, _, size := kindOf(like)
	if k == kNone {
		return nil
	}
	key := poolKey{k, n}
	p.mu.Lock()
	var s any
	if l := p.free[key]; len(l) > 0 {
		s = l[len(l)-1]
		l[len(l)-1] = nil
		p.free[key] = l[:len(l)-1]
		p.held -= n * size
		p.reused++
	}
	p.mu.Unlock()
	fresh := s == nil
	if fresh {
		s = makeKind(k, n)
	}
	switch {
	case zero && !fresh:
		clearData(s)
	case !zero && poisonFreed:
		poison(s)
	}
	return s
}

// put hands t's buffer back: its elements only (a kernel may have cut
// t's data and another tensor's from one allocation).
func (p *bufPool) put(t *kernels.Tensor) {
	k, n, size := kindOf(t.Data)
	if k == kNone || n < minPooled {
		return
	}
	s := clip(t.Data)
	if poisonFreed {
		poison(s)
	}
	key := poolKey{k, n}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held+n*size > maxPooledBytes {
		return
	}
	if p.free == nil {
		p.free = map[poolKey][]any{}
	}
	p.free[key] = append(p.free[key], s)
	p.held += n * size
	p.freed++
}

// clip returns s[:len(s):len(s)].
func clip(s any) any {
	switch d := s.(type) {
	case []float32:
		return d[:len(d):len(d)]
	case []float64:
		return d[:len(d):len(d)]
	case []kernels.Float16:
		return d[:len(d):len(d)]
	case []kernels.BFloat16:
		return d[:len(d):len(d)]
	case []int32:
		return d[:len(d):len(d)]
	case []int64:
		return d[:len(d):len(d)]
	case []uint8:
		return d[:len(d):len(d)]
	case []bool:
		return d[:len(d):len(d)]
	}
	return s
}

func clearData(s any) {
	switch d := s.(type) {
	case []float32:
		clear(d)
	case []float64:
		clear(d)
	case []kernels.Float16:
		clear(d)
	case []kernels.BFloat16:
		clear(d)
	case []int32:
		clear(d)
	case []int64:
		clear(d)
	case []uint8:
		clear(d)
	case []bool:
		clear(d)
	}
}

func poison(s any) {
	nan := float32(math.NaN())
	switch d := s.(type) {
	case []float32:
		for i := range d {
			d[i] = nan
		}
	case []float64:
		for i := range d {
			d[i] = math.NaN()
		}
	case []kernels.Float16:
		for i := range d {
			d[i] = 0x7e00
		}
	case []kernels.BFloat16:
		for i := range d {
			d[i] = 0x7fc0
		}
	case []int32:
		for i := range d {
			d[i] = -0x5a5a5a5b
		}
	case []int64:
		for i := range d {
			d[i] = -0x5a5a5a5a5a5a5a5b
		}
	case []uint8:
		for i := range d {
			d[i] = 0xa5
		}
	case []bool:
		for i := range d {
			d[i] = true
		}
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
// its readers now also those of the output (Keras' swish and other
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
