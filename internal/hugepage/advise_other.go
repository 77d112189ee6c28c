//go:build !linux

package hugepage

import "unsafe"

// advise does nothing where the system has no transparent huge pages to
// ask for.
func advise(unsafe.Pointer, uintptr) {}

// Forget has nothing to take back where Advise asks for nothing.
func Forget() {}

// aligns: Make leaves its arrays where the allocator puts them.
const aligns = false
