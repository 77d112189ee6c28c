package kernels

// Buffers supplies kernel outputs with recycled memory: the executor hands
// a tensor's buffer back when its last reader has run, and later kernels'
// outputs draw from it instead of the Go allocator (as TensorFlow's
// allocator hands a freed buffer to the next op). Without it a run
// allocates every output and the garbage collector frees it, a cost that
// dominates models of many small, cheap layers.
type Buffers interface {
	// Get returns a slice of n elements of the element type of like (a nil
	// []float32, []int32, ...), zeroed when zero is set, or nil when it
	// has none of that type and size.
	Get(like any, n int, zero bool) any
}

// newOut returns a zeroed []T of n elements for a kernel output: from
// ctx's Buffers when it has one, else a new slice.
func newOut[T any](ctx *Context, n int) []T {
	if ctx != nil && ctx.Buffers != nil {
		if s, ok := ctx.Buffers.Get([]T(nil), n, true).([]T); ok {
			return s
		}
	}
	return make([]T, n)
}

// newOutFull is newOut for a kernel that writes every element of its
// output: a recycled slice comes back with the values of its last use.
func newOutFull[T any](ctx *Context, n int) []T {
	if ctx != nil && ctx.Buffers != nil {
		if s, ok := ctx.Buffers.Get([]T(nil), n, false).([]T); ok {
			return s
		}
	}
	return make([]T, n)
}
