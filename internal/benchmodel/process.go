package benchmodel

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Process is one measured step of CompareProcesses: a command, run as a
// process of its own with its output discarded.
type Process struct {
	Name string
	Args []string // the program and its arguments
}

// CompareProcesses is Compare for whole processes, as a user runs tfscan:
// each round runs every command in turn, and each step reports its
// median cpu-ms (the process's user and system time), wall-ms (from start
// to exit), rss-MiB (its peak resident memory), sys-ms and faults-k (its
// system time and minor page faults), and after the first
// its ratios to the first. What a process pays that a step in a
// benchmark's process does not shows here: starting, decoding the packs
// it reads (a benchmark's process keeps them), touching its memory fresh.
func CompareProcesses(b *testing.B, steps ...Process) []Cost {
	all := make([][]Cost, len(steps))
	names := make([]string, len(steps))
	for k, s := range steps {
		names[k] = s.Name
	}
	b.ResetTimer()
	for range max(b.N, MinRounds) {
		for k, s := range steps {
			c, err := runProcess(s.Args)
			if err != nil {
				b.Fatalf("%s: %v", s.Name, err)
			}
			all[k] = append(all[k], c)
		}
	}
	b.StopTimer()
	return reportMedians(b, names, all, "rss")
}

// runProcess runs args and returns what the process cost. Its peak
// resident memory is VmHWM, read from /proc every millisecond while it
// runs (the last read before it exits): the ru_maxrss that wait returns
// counts the memory of the process that started it too, which this
// benchmark's process, holding the models it wrote, would make the
// larger.
func runProcess(args []string) (Cost, error) {
	cmd := exec.Command(args[0], args[1:]...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	began := time.Now()
	if err := cmd.Start(); err != nil {
		return Cost{}, err
	}
	stop := watchPeakRSS(cmd.Process.Pid)
	err := cmd.Wait()
	c := Cost{Wall: time.Since(began), Heap: stop()}
	if err != nil {
		return Cost{}, &processError{err: err, stderr: stderr.String()}
	}
	c.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	c.Sys = cmd.ProcessState.SystemTime()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		c.Faults = ru.Minflt
	}
	return c, nil
}

// watchPeakRSS reads process pid's peak resident memory (VmHWM) every
// millisecond until the returned function is called, which returns the
// last value read (0 where /proc has none).
func watchPeakRSS(pid int) func() uint64 {
	status := fmt.Sprintf("/proc/%d/status", pid)
	return samplePeak(func() (uint64, bool) { return vmHWM(status) })
}

// vmHWM is the VmHWM line of a /proc status file, in bytes.
func vmHWM(status string) (uint64, bool) {
	data, err := os.ReadFile(status)
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}

// processError is a command that failed, with what it said.
type processError struct {
	err    error
	stderr string
}

func (e *processError) Error() string { return e.err.Error() + ": " + e.stderr }
