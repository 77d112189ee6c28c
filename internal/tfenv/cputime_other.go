//go:build !unix

package tfenv

import "time"

// CPUTime is 0 where getrusage is missing; the benchmarks fall back to
// wall time.
func CPUTime() time.Duration { return 0 }
