// Package hugepage asks the kernel to back a large array with huge pages
// where it can. The first write of each 4 KiB page a process has not
// touched yet stops the writer while the kernel maps it, a few
// microseconds on a virtual machine: more than writing the page costs. A
// 2 MiB huge page is mapped by one such stop, so that the arrays a scan
// fills node by node (tens of megabytes on a graph of 200,000 nodes) cost
// a few hundred of them instead of thousands.
package hugepage

import (
	"os"
	"unsafe"
)

// Size is the huge page the advice asks for: 2 MiB, the one size that
// x86-64 and arm64 Linux back transparently.
const Size = 2 << 20

// Advise marks the whole huge pages that a's backing array spans (its
// capacity, from its first element) to be backed by huge pages when they
// are first written. It changes nothing a program can read: the memory
// stays as zeroed or as written as it was, and where the system has no
// transparent huge pages, or they are turned off, it does nothing.
// An array that spans no whole huge page is left alone.
func Advise[T any](a []T) {
	a = a[:cap(a)]
	if len(a) == 0 {
		return
	}
	var zero T
	size := uintptr(len(a)) * unsafe.Sizeof(zero)
	start := uintptr(unsafe.Pointer(&a[0]))
	first, end := wholePages(start, size)
	if end <= first {
		return
	}
	advise(unsafe.Add(unsafe.Pointer(&a[0]), first-start), end-first)
}

// wholePages is the range of the whole huge pages within size bytes at
// start: empty (end at most first) where there are none.
func wholePages(start, size uintptr) (first, end uintptr) {
	return (start + Size - 1) &^ (Size - 1), (start + size) &^ (Size - 1)
}

// Make is n zeroed elements of T for an array a program fills soon after:
// when they span a huge page or more, they start and end on huge-page
// boundaries, inside a larger allocation, and are advised (Advise), so
// that every page they span can be a huge one. An array left where the
// allocator puts it starts and ends inside huge pages it does not wholly
// span, which Advise leaves alone: up to 4 MiB of it, about a thousand
// 4 KiB pages, would be mapped one by one. The allocation is up to twice
// Size longer than the array; the part before the array is never
// written, so the system maps none of it, and the array's capacity runs
// to the end of its last huge page. Off Linux, for an array under a huge
// page, or where T has no size, it is make([]T, n).
func Make[T any](n int) []T {
	var zero T
	es := unsafe.Sizeof(zero)
	if !aligns || es == 0 || n <= 0 || uintptr(n)*es < Size {
		return make([]T, n)
	}
	pad := int((Size + es - 1) / es)
	a := make([]T, n+2*pad)
	base := uintptr(unsafe.Pointer(&a[0]))
	// The array's first element is the first one from the first huge-page
	// boundary on, and its last huge page ends within the tail pad.
	first := (base + Size - 1) &^ (Size - 1)
	off := int((first - base + es - 1) / es)
	start := base + uintptr(off)*es
	end := (start + uintptr(n)*es + Size - 1) &^ (Size - 1)
	advise(unsafe.Add(unsafe.Pointer(&a[0]), first-base), end-first)
	return a[off : off+n : off+int((end-start)/es)]
}

// Touch writes the zero value to one element in every page that a's
// elements span, and returns a: a's pages are mapped, on a first write,
// before the program reads them. The first read of a page the process has
// not touched maps the system's shared page of zeros, and the write after
// it stops the writer again to copy that page, which on a machine of
// several cores also stops the other cores that run the process while
// their address translations are flushed; an array read at random before
// it is written (a hash table's slots, a walk's states) pays both stops
// for each of its pages, and Touch spares it the second. Touch writes
// only zeros: it changes nothing a program can read of a zeroed array.
func Touch[T any](a []T) []T {
	var zero T
	step := max(1, pageSize/max(1, int(unsafe.Sizeof(zero))))
	for i := 0; i < len(a); i += step {
		a[i] = zero
	}
	return a
}

// pageSize is the size of the pages Touch maps.
var pageSize = os.Getpagesize()

// MakeBytes is about the bytes Make allocates for an array of size bytes:
// its pads included, which the heap counts though the system maps none of
// the first and at most a huge page's part of the last.
func MakeBytes(size uint64) uint64 {
	if !aligns || size < Size {
		return size
	}
	return size + 2*Size
}
