package hugepage

import (
	"reflect"
	"unsafe"
)

// Block is one allocation, aligned to huge pages (Make), that arrays of
// types without pointers are cut from (Cut): arrays a program fills
// together, each under a huge page on its own, share the huge pages of
// one. The collector keeps a Block whole while any of its arrays is in
// use, and scans none of it. The zero value has no room.
type Block struct{ free []uint64 } // what is left to cut

// NewBlock is a Block of w zeroed words.
func NewBlock(w int) Block { return Block{free: Make[uint64](w)} }

// Words is how many 8-byte words n elements of T take in a Block.
func Words[T any](n int) int {
	var zero T
	return (n*int(unsafe.Sizeof(zero)) + 7) / 8
}

// Free is the words left to cut from b.
func (b *Block) Free() int { return len(b.free) }

// Rest is what is left to cut from b, as words (to write its pages
// before they are cut).
func (b *Block) Rest() []uint64 { return b.free }

// Cut cuts n zeroed elements of T, a type without pointers whose
// alignment is at most 8, from b while it has room for them, else makes a
// new array; the array's capacity is n, so that an append copies out.
func Cut[T any](b *Block, n int) []T {
	if t := reflect.TypeFor[T](); holdsPointers(t) {
		// The collector scans none of a Block: a pointer kept there
		// alone would not keep what it points to alive.
		panic("hugepage.Cut: " + t.String() + " holds pointers")
	}
	w := Words[T](n)
	if len(b.free) < w {
		return make([]T, n)
	}
	a := unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b.free))), n)
	b.free = b.free[w:]
	return a[:n:n]
}

// Split cuts w words from b, which has them free, as a Block of its own.
func (b *Block) Split(w int) Block { return Block{free: Cut[uint64](b, w)} }

// holdsPointers tells whether values of t hold a pointer the collector
// follows.
func holdsPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Array:
		return t.Len() > 0 && holdsPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if holdsPointers(t.Field(i).Type) {
				return true
			}
		}
		return false
	case reflect.Pointer, reflect.UnsafePointer, reflect.Map, reflect.Slice, reflect.String,
		reflect.Interface, reflect.Chan, reflect.Func:
		return true
	}
	return false
}
