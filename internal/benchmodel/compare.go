package benchmodel

import (
	"cmp"
	"slices"
	"testing"
	"time"
)

// Step is one measured step of a Compare: a name for its metrics and the
// work.
type Step struct {
	Name string
	Run  func()
}

// Cost is what one step cost: CPU time of the process (user+system, GC
// included), the time it took (wall: what a user waits, where work runs
// on several cores at once), and the most heap it held above what was live
// when it began (for a whole process, CompareProcesses: its peak resident
// memory). Sys is the system part of CPU and Faults the minor page faults
// the process took meanwhile: memory touched for the first time costs a
// fault a page, which on a virtual machine is much of a step's system
// time.
type Cost struct {
	CPU    time.Duration
	Wall   time.Duration
	Heap   uint64
	Sys    time.Duration
	Faults int64
}

// MinRounds is the fewest rounds Compare runs, whatever b.N: under the
// default -benchtime a step of a second or more gets b.N = 1, and a median
// of one round on a shared machine is one sample of its noise.
const MinRounds = 5

// Compare runs the steps in turn, b.N rounds (at least MinRounds), each
// after a garbage collection that is not measured and returns the freed
// memory to the operating system (sampleHeap), and reports for each step
// its median cpu-ms, wall-ms and peak-heap-MiB, and for every step after
// the first its ratios to the first (the baseline) as "NAME/BASE-cpu",
// "NAME/BASE-wall" and "NAME/BASE-heap".
// Interleaving the steps in one benchmark run makes the ratios hold on a
// shared, noisy machine, where two separate benchmark runs do not compare.
// It returns the medians.
func Compare(b *testing.B, steps ...Step) []Cost {
	all := make([][]Cost, len(steps))
	names := make([]string, len(steps))
	b.ResetTimer()
	for range max(b.N, MinRounds) {
		for k, s := range steps {
			all[k] = append(all[k], Measure(s.Run))
		}
	}
	b.StopTimer()
	for k, s := range steps {
		names[k] = s.Name
	}
	return reportMedians(b, names, all, "heap")
}

// reportMedians reports each step's median costs (sys-ms and faults-k,
// thousands of page faults, beside the three of Compare) and, after the
// first, its ratios to the first's; heap names the peak memory measured
// (heap, or rss for a process). It returns the medians.
func reportMedians(b *testing.B, names []string, all [][]Cost, heap string) []Cost {
	med := make([]Cost, len(names))
	for k, costs := range all {
		med[k] = Cost{CPU: median(costs, func(c Cost) time.Duration { return c.CPU }),
			Wall:   median(costs, func(c Cost) time.Duration { return c.Wall }),
			Heap:   median(costs, func(c Cost) uint64 { return c.Heap }),
			Sys:    median(costs, func(c Cost) time.Duration { return c.Sys }),
			Faults: median(costs, func(c Cost) int64 { return c.Faults })}
		b.ReportMetric(float64(med[k].CPU)/1e6, names[k]+"-cpu-ms")
		b.ReportMetric(float64(med[k].Wall)/1e6, names[k]+"-wall-ms")
		b.ReportMetric(float64(med[k].Heap)/(1<<20), names[k]+"-"+heap+"-MiB")
		b.ReportMetric(float64(med[k].Sys)/1e6, names[k]+"-sys-ms")
		b.ReportMetric(float64(med[k].Faults)/1e3, names[k]+"-faults-k")
		if k > 0 {
			b.ReportMetric(float64(med[k].CPU)/float64(med[0].CPU), names[k]+"/"+names[0]+"-cpu")
			b.ReportMetric(float64(med[k].Wall)/float64(med[0].Wall), names[k]+"/"+names[0]+"-wall")
			b.ReportMetric(float64(med[k].Heap)/float64(med[0].Heap), names[k]+"/"+names[0]+"-"+heap)
		}
	}
	return med
}

// median is the median of what of costs.
func median[T cmp.Ordered](costs []Cost, what func(Cost) T) T {
	xs := make([]T, len(costs))
	for i, c := range costs {
		xs[i] = what(c)
	}
	slices.Sort(xs)
	return xs[len(xs)/2]
}

// Measure runs fn once after a garbage collection and returns its Cost.
func Measure(fn func()) Cost {
	stop := sampleHeap()
	start, began := usage(), time.Now()
	fn()
	end, wall := usage(), time.Since(began)
	return Cost{CPU: end.cpu - start.cpu, Sys: end.sys - start.sys, Faults: end.faults - start.faults, Wall: wall, Heap: stop()}
}
