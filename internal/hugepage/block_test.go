package hugepage

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The arrays cut from a Block follow one another without overlapping,
// each as long as asked with no room to append into the next, a split
// Block cuts from its own words only, and what is cut is zeroed.
func TestBlockCuts(t *testing.T) {
	b := NewBlock(Words[int32](5) + Words[[3]uint16](3) + 4 + Words[uint8](9))
	a := Cut[int32](&b, 5)
	c := Cut[[3]uint16](&b, 3)
	sub := b.Split(4)
	d := Cut[uint8](&b, 9)
	require.Equal(t, 0, b.Free())
	assert.Equal(t, []int{5, 5, 3, 3, 9, 9}, []int{len(a), cap(a), len(c), cap(c), len(d), cap(d)})
	for _, v := range a {
		assert.Zero(t, v)
	}
	end := func(p unsafe.Pointer, n uintptr) uintptr { return uintptr(p) + n }
	assert.LessOrEqual(t, end(unsafe.Pointer(&a[0]), 5*4), uintptr(unsafe.Pointer(&c[0])))
	assert.LessOrEqual(t, end(unsafe.Pointer(&c[0]), 3*6), uintptr(unsafe.Pointer(&sub.Rest()[0])))
	assert.LessOrEqual(t, end(unsafe.Pointer(&sub.Rest()[0]), 4*8), uintptr(unsafe.Pointer(&d[0])))
	e := Cut[uint64](&sub, 4)
	e[3] = 7
	assert.Equal(t, 0, sub.Free())
	assert.Zero(t, d[0], "a split Block's array ends before the next cut")
	more := Cut[int32](&b, 3)
	assert.Equal(t, []int32{0, 0, 0}, more, "a new array once the Block has no room")
	assert.Equal(t, 3, cap(more))
}

// A type that holds a pointer is refused: the collector would not see it.
func TestCutRefusesPointers(t *testing.T) {
	for name, cut := range map[string]func(*Block){
		"pointer": func(b *Block) { Cut[*int](b, 1) },
		"string in a struct": func(b *Block) {
			Cut[struct {
				a int32
				s string
			}](b, 1)
		},
		"slice in an array": func(b *Block) { Cut[[2][]byte](b, 1) },
	} {
		b := NewBlock(8)
		assert.Panics(t, func() { cut(&b) }, name)
	}
	b := NewBlock(8)
	assert.NotPanics(t, func() {
		Cut[struct {
			a [3]int16
			b bool
		}](&b, 2)
	})
}
