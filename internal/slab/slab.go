// Package slab hands out zeroed values cut from arrays allocated in
// chunks. A decoder or an inference that makes a value or a short slice per
// node of a 200,000-node model then makes a few thousand allocations
// instead of hundreds of thousands, and the values of one kind lie
// together.
package slab

import "unsafe"

// maxTake is the longest slice Take cuts from a chunk; a longer one is
// allocated on its own.
const maxTake = 256

// Of holds the unused rest of the current chunk. The zero value is ready.
// Values handed out stay valid however many chunks follow; a chunk is
// freed when nothing points into it any more.
type Of[T any] struct{ free []T }

// New returns one zeroed value.
func (s *Of[T]) New() *T {
	if len(s.free) == 0 {
		s.refill()
	}
	p := &s.free[0]
	s.free = s.free[1:]
	return p
}

// Take returns n zeroed values, with length and capacity n (an append
// never reaches a neighbour's values).
func (s *Of[T]) Take(n int) []T {
	if n > maxTake {
		return make([]T, n)
	}
	if len(s.free) < n {
		s.refill()
	}
	out := s.free[:n:n]
	s.free = s.free[n:]
	return out
}

// refill starts a chunk of 16 KiB, or of maxTake values when they are
// larger.
func (s *Of[T]) refill() {
	var v T
	s.free = make([]T, max(16<<10/max(int(unsafe.Sizeof(v)), 1), maxTake))
}
