package hugepage

import (
	"os"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// On Linux with transparent huge pages set to "madvise", the
// kernel marks the whole huge pages of an advised array for them, and
// Forget takes the mark back.
func TestKernelTakesTheAdvice(t *testing.T) {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || !strings.Contains(string(mode), "[madvise]") {
		t.Skipf("transparent huge pages are not set to madvise: %q %v", mode, err)
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
