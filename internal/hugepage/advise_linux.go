package hugepage

import (
	"bufio"
	"bytes"
	"os"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// advise asks for huge pages over the n bytes at p, whole huge pages
// aligned to their size. An error (a kernel without transparent huge
// pages answers EINVAL) leaves the memory as it was, so it is not
// reported.
func advise(p unsafe.Pointer, n uintptr) {
	_ = unix.Madvise(unsafe.Slice((*byte)(p), n), unix.MADV_HUGEPAGE)
}

// Forget takes back every advice Advise gave in this process, for a
// benchmark whose next step must start as it would in a fresh process:
// the advice stays on the heap's address ranges after the arrays it was
// given for are freed, and a step that reuses them would get huge pages
// it did not ask for. Where the system backs every range with huge
// pages, or none, the advice changes nothing and nothing is taken back;
// set to "madvise", a range marked not to be backed is backed
// as one never marked.
func Forget() {
	if !madviseMode() {
		return
	}
	for _, r := range advised() {
		// The ranges are not Go values to slice: the call takes addresses.
		_, _, _ = unix.Syscall(unix.SYS_MADVISE, r[0], r[1]-r[0], unix.MADV_NOHUGEPAGE)
	}
}

// advised is the process's mappings that are marked for huge pages (flag
// "hg" in /proc/self/smaps), as start and end addresses.
func advised() [][2]uintptr {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return nil
	}
	defer f.Close()
	var out [][2]uintptr
	var start, end uint64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if flags, ok := strings.CutPrefix(line, "VmFlags:"); ok {
			if end > start && slices.Contains(strings.Fields(flags), "hg") {
				out = append(out, [2]uintptr{uintptr(start), uintptr(end)})
			}
			continue
		}
		// A mapping's first line: "start-end perms offset dev inode path".
		if r, _, ok := strings.Cut(line, " "); ok {
			if s, e, ok := strings.Cut(r, "-"); ok {
				a, err1 := strconv.ParseUint(s, 16, 64)
				b, err2 := strconv.ParseUint(e, 16, 64)
				if err1 == nil && err2 == nil {
					start, end = a, b
				}
			}
		}
	}
	return out
}

// madviseMode tells whether the system's transparent huge pages are set to
// "madvise": only the ranges advised for them are backed by them.
func madviseMode() bool {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	return err == nil && bytes.Contains(mode, []byte("[madvise]"))
}

// aligns: Make aligns its arrays to huge pages (Linux has them to ask for).
const aligns = true
