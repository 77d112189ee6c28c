package hugepage

import (
	"os"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// On Linux with transparent huge pages set to "madvise", the
// kernel marks the whole huge pages of an advised array for them, and
// Forget takes the mark back.
func TestKernelTakesTheAdvice(t *testing.T) {
	if !madviseMode() {
		t.Skip("transparent huge pages are not set to madvise")
	}
	Forget()
	a := make([]byte, 3*Size)
	first, _ := wholePages(uintptr(unsafe.Pointer(&a[0])), uintptr(len(a)))
	marked := func() bool {
		for _, r := range advised() {
			if r[0] <= first && first < r[1] {
				return true
			}
		}
		return false
	}
	require.False(t, marked(), "marked before the advice")
	Advise(a)
	assert.True(t, marked(), "advised")
	Forget()
	assert.False(t, marked(), "forgotten")
}

// Make's arrays of a huge page or more start within one element of a
// huge-page boundary, their capacity ends on one, and the kernel marks
// the huge page they start in for huge pages; they are zeroed, and
// smaller ones are plain arrays of their length.
func TestMakeAligns(t *testing.T) {
	type triple struct{ a, b, c uint32 } // 12 bytes: no power of two
	for _, n := range []int{Size/12 + 1, 3*Size/12 + 7} {
		a := Make[triple](n)
		require.Len(t, a, n)
		start := uintptr(unsafe.Pointer(&a[0]))
		boundary := start &^ (Size - 1)
		assert.Less(t, start-boundary, uintptr(12), "n=%d: starts past the element at the boundary", n)
		end := start + uintptr(cap(a))*12
		assert.Less(t, (end+Size-1)&^(Size-1)-end, uintptr(12), "n=%d: capacity ends short of a huge page's end", n)
		for i, v := range a {
			if v != (triple{}) {
				t.Fatalf("n=%d: element %d not zero", n, i)
			}
		}
		if madviseMode() {
			marked := false
			for _, r := range advised() {
				marked = marked || r[0] <= boundary && boundary < r[1]
			}
			assert.True(t, marked, "n=%d: first huge page not advised", n)
		}
	}
	small := Make[uint64](Size/8 - 1)
	assert.Len(t, small, Size/8-1)
	assert.Equal(t, cap(small), len(small))
	assert.Empty(t, Make[uint64](0))
	assert.Len(t, Make[struct{}](5), 5)
}

// Touch maps every page of an array that the process has not touched yet
// (mincore: resident) by writing zeros, whatever the element's size; the
// pages past the array stay unmapped.
func TestTouchMapsEveryPage(t *testing.T) {
	type triple struct{ a, b, c uint32 } // 12 bytes: pages do not hold a whole number
	const pages = 64
	page := os.Getpagesize()
	mem, err := unix.Mmap(-1, 0, (pages+1)*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	require.NoError(t, err)
	defer unix.Munmap(mem)
	resident := func() []bool {
		vec := make([]byte, pages+1)
		_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&mem[0])), uintptr(len(mem)), uintptr(unsafe.Pointer(&vec[0])))
		require.Zero(t, errno, "mincore")
		out := make([]bool, len(vec))
		for i, v := range vec {
			out[i] = v&1 != 0
		}
		return out
	}
	require.NotContains(t, resident(), true, "fresh mapping already resident")
	a := unsafe.Slice((*triple)(unsafe.Pointer(&mem[0])), pages*page/12)
	assert.Same(t, &a[0], &Touch(a)[0])
	got := resident()
	for i := range pages {
		assert.True(t, got[i], "page %d not mapped", i)
	}
	assert.False(t, got[pages], "the page past the array mapped")
	for i, v := range a {
		if v != (triple{}) {
			t.Fatalf("element %d not zero", i)
		}
	}
	assert.Empty(t, Touch([]uint64(nil)))
	assert.Len(t, Touch(make([]struct{}, 3)), 3)
}
