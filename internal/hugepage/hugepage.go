// Package hugepage asks the kernel to back a large array with huge pages
// where it can. The first write of each 4 KiB page a process has not
// touched yet stops the writer while the kernel maps it, a few
// microseconds on a virtual machine: more than writing the page costs. A
// 2 MiB huge page is mapped by one such stop, so that the arrays a scan
// fills node by node (tens of megabytes on a graph of 200,000 nodes) cost
// a few hundred of them instead of thousands.
package hugepage

import "unsafe"

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
