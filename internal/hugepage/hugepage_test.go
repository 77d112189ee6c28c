package hugepage

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Advise changes nothing a program reads: values written before it are
// there after it, whatever the array's size, empty arrays included.
func TestAdviseKeepsValues(t *testing.T) {
	for _, n := range []int{0, 1, 1000, Size / 8, 3 * Size / 8} {
		a := make([]uint64, n, n+n/3)
		for i := range a {
			a[i] = uint64(i) * 2654435761
		}
		Advise(a)
		for i := range a {
			if a[i] != uint64(i)*2654435761 {
				t.Fatalf("n=%d: element %d changed", n, i)
			}
		}
	}
	Advise([]struct{}(nil))
}

// The range Advise asks for is the whole huge pages inside the array's
// capacity, and none where it spans none.
func TestAdvisedRange(t *testing.T) {
	for _, c := range []struct {
		name        string
		start, size uintptr
		first, end  uintptr
	}{
		{"aligned, two pages", 0, 2 * Size, 0, 2 * Size},
		{"unaligned start", 4096, 3 * Size, Size, 3 * Size},
		{"unaligned end", 0, 2*Size + 4096, 0, 2 * Size},
		{"spans none", 4096, Size, 0, 0},
		{"under one page", 0, Size - 1, 0, 0},
	} {
		first, end := wholePages(c.start, c.size)
		if c.first == c.end {
			assert.LessOrEqual(t, end, first, c.name)
			continue
		}
		assert.Equal(t, [2]uintptr{c.first, c.end}, [2]uintptr{first, end}, c.name)
	}
}
