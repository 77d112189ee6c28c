package kernels

import (
	"sync"
	"unsafe"
	"weak"
)

// PackCache keeps the GEMM's packed B panels of stable inputs (a
// convolution's filter, a dense layer's weights: Context.Stable) across
// calls and runs, so that a model's layers pack their constant operand once
// instead of on every call, and a convolution split into row chunks once
// per call at most. An entry is keyed on the operand's backing array (its
// address and length), its view (offset, strides, the k×n block) and the
// micro-kernel's panel shape, and holds a weak pointer to that array: while
// the array lives its address names it, and once the collector frees it (a
// variable's old value after an assignment) the entry is dead and its
// address may name another array.
//
// It holds at most maxBytes of panels. When a new operand's panels do not
// fit beside the live entries, they are not kept: the GEMM packs that
// operand on each call, as without a cache. A model runs its layers in the
// same order every time, and dropping the least recently used entry to make
// room would drop each layer's panels just before they are needed again,
// repacking every layer of a model whose weights exceed the bound into new
// memory on every run; keeping the first ones saves their packing at least.
// An Executor keeps one; it is safe for concurrent use.
type PackCache struct {
	mu       sync.Mutex
	entries  map[packKey]*packEntry
	bytes    int
	maxBytes int
	// sinceScan counts the lookups that found no room since makeRoom last
	// looked for dead entries.
	sinceScan int
	// hits and misses count lookups (tests).
	hits, misses int
}

// DefaultPackCacheBytes bounds a PackCache made by NewPackCache. The
// panels are a second copy of the weights they hold, and on a large CNN
// (ResNet-50's 100 MB of float32 filters) the packing they save is a small
// part of a run, so the bound favours memory: small models and the weights a loop
// reads at every step (a recurrent layer's kernel) fit, a large CNN's do
// only in part.
const DefaultPackCacheBytes = 32 << 20

// NewPackCache returns an empty cache of at most maxBytes of panels.
func NewPackCache(maxBytes int) *PackCache {
	return &PackCache{entries: map[packKey]*packEntry{}, maxBytes: maxBytes}
}

type packKey struct {
	ptr         uintptr
	n           int // the backing slice's length
	elem        int // element size in bytes
	off, rs, cs int
	k, cols     int
	kc, nr      int
}

type packEntry struct {
	src    weak.Pointer[byte] // the backing array's first element
	packed any                // []T, gemmPackedB's layout
	nPad   int
	bytes  int
}

// live says whether e's backing array is still the one at ptr.
func (e *packEntry) live(ptr uintptr) bool {
	return uintptr(unsafe.Pointer(e.src.Value())) == ptr
}

// Stats returns the lookups that found panels and those that packed them.
func (c *PackCache) Stats() (hits, misses int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits, c.misses
}

// packedB returns j's B packed for g: from c when it holds it, else packed
// now and kept. ok is false when j's B is not cached (rounded operands, an
// empty product, panels that do not fit beside the live entries).
func packedB[T nnFloat](c *PackCache, g *gemmImpl[T], j *gemmJob[T]) (gemmPackedB[T], bool) {
	if c == nil || j.round != nil || j.b.fill != nil || j.k == 0 || j.n == 0 || len(j.b.data) == 0 {
		return gemmPackedB[T]{}, false
	}
	bl := g.bl
	var z T
	key := packKey{ptr: uintptr(unsafe.Pointer(unsafe.SliceData(j.b.data))), n: len(j.b.data),
		elem: int(unsafe.Sizeof(z)), off: j.b.off, rs: j.b.rs, cs: j.b.cs, k: j.k, cols: j.n, kc: bl.kc, nr: bl.nr}
	nPad := nnRoundUp(j.n, bl.nr)
	size := nPad * j.k * key.elem
	if size > c.maxBytes {
		return gemmPackedB[T]{}, false
	}
	c.mu.Lock()
	if e, ok := c.entries[key]; ok {
		if e.live(key.ptr) {
			c.hits++
			c.mu.Unlock()
			return gemmPackedB[T]{b: e.packed.([]T), nPad: e.nPad}, true
		}
		c.drop(key)
	}
	c.misses++
	fits := c.makeRoom(size)
	c.mu.Unlock()
	if !fits {
		return gemmPackedB[T]{}, false
	}
	buf := make([]T, nPad*j.k)
	for pc := 0; pc < j.k; pc += bl.kc {
		kb := min(bl.kc, j.k-pc)
		packB(buf[pc*nPad:], j.b, pc, kb, 0, j.n, bl.nr, nil)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[key]; ok && e.live(key.ptr) {
		// Another call packed the same panels meanwhile.
		return gemmPackedB[T]{b: e.packed.([]T), nPad: e.nPad}, true
	}
	if !c.makeRoom(size) {
		return gemmPackedB[T]{b: buf, nPad: nPad}, true
	}
	c.entries[key] = &packEntry{src: weak.Make((*byte)(unsafe.Pointer(unsafe.SliceData(j.b.data)))),
		packed: buf, nPad: nPad, bytes: size}
	c.bytes += size
	return gemmPackedB[T]{b: buf, nPad: nPad}, true
}

// makeRoom says whether size bytes of panels fit beside the live entries,
// dropping the dead ones when they do not fit otherwise. It looks for dead
// entries at most once per as many lookups without room as it holds
// entries, so that a model whose weights exceed the bound does not check
// every entry on each of its layers' calls. c.mu is held.
func (c *PackCache) makeRoom(size int) bool {
	if c.bytes+size <= c.maxBytes {
		return true
	}
	if c.sinceScan < len(c.entries) {
		c.sinceScan++
		return false
	}
	c.sinceScan = 0
	for k, e := range c.entries {
		if !e.live(k.ptr) {
			c.drop(k)
		}
	}
	return c.bytes+size <= c.maxBytes
}

// drop removes k's entry. c.mu is held.
func (c *PackCache) drop(k packKey) {
	c.bytes -= c.entries[k].bytes
	delete(c.entries, k)
}

// stableB returns ctx's PackCache when input i is stable (Context.Stable)
// and the node runs without operand rounding, else nil: the GEMM then
// packs that operand on every call.
func stableB(ctx *Context, i int) *PackCache {
	if ctx == nil || ctx.Packs == nil || !ctx.IsStable(i) {
		return nil
	}
	if ctx.Emu != nil && ctx.Emu.RoundOperand != nil {
		return nil
	}
	if dt := ctx.Inputs[i].DType; dt != nnF32 && dt != nnF64 {
		// A half type is widened into a new slice on every call.
		return nil
	}
	return ctx.Packs
}
