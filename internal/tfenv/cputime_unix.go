//go:build unix

package tfenv

import (
	"syscall"
	"time"
)

// CPUTime is this process's user and system CPU time, the Go side's
// counterpart of Python's time.process_time in the same-run benchmarks:
// on a shared machine CPU time moves far less with other load than wall
// time does.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
