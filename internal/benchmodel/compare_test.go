package benchmodel

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestMedian(t *testing.T) {
	costs := []Cost{{CPU: 3, Faults: 9}, {CPU: 1, Faults: 7}, {CPU: 2, Faults: 8}}
	require.Equal(t, time.Duration(2), median(costs, func(c Cost) time.Duration { return c.CPU }))
	require.Equal(t, int64(8), median(costs, func(c Cost) int64 { return c.Faults }))
}

// TestMeasureCountsFaults touches 32 MiB the process does not hold
// (Measure returns freed memory to the system first): each page is a
// minor fault, one a 2 MiB page where the host backs the heap with huge
// pages, and their system time is part of the step's CPU.
func TestMeasureCountsFaults(t *testing.T) {
	const size = 32 << 20
	var kept []byte
	c := Measure(func() {
		kept = make([]byte, size)
		for i := 0; i < size; i += 4096 {
			kept[i] = 1
		}
	})
	require.Len(t, kept, size)
	require.GreaterOrEqual(t, c.Faults, int64(size>>21))
	require.LessOrEqual(t, c.Sys, c.CPU)
}
