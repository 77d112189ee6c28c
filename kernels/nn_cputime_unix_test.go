//go:build unix

package kernels

import (
	"syscall"
	"time"
)

// processCPUTime returns the user+system CPU time of this process, for
// benchmarks on shared machines: GFLOP per CPU-second is far less sensitive
// to other load than GFLOP per wall-second.
func processCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
