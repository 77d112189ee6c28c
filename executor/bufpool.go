package executor

import (
	"math"
	"os"
	"sync"

	"github.com/tfscan/tfscan/kernels"
)

// The buffer pool: freed tensor buffers by element type and length, handed
// to kernels through kernels.Buffers (the tracking that frees them is in
// buffers.go).

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
