package render

import (
	"fmt"
	"strings"

	"github.com/tfscan/tfscan/reports"
)

// CollectiveLines say what a training step's collective ops exchange and
// what runs them on target t: "collectives: CollectiveReduceV2 (ring) ×2 on
// 2 replicas, 8.6 KiB all-reduced per replica per step", the library and
// what runs the all-reduce with its copies, and ReductionToOneDevice's
// copies where the stack has no library.
func CollectiveLines(t *reports.Target) []string {
	if t.Training == nil || t.Training.Collectives == nil {
		return nil
	}
	c := t.Training.Collectives
	var ops []string
	for _, o := range c.Ops {
		s := o.Op
		if o.Hint != "" {
			s += " (" + o.Hint + ")"
		}
		s += fmt.Sprintf(" ×%d", o.Count)
		if o.OnCPU > 0 {
			s += fmt.Sprintf(", %d on CPU", o.OnCPU)
		}
		ops = append(ops, s)
	}
	replicas := "unknown replicas"
	if c.Replicas > 0 {
		replicas = fmt.Sprintf("%d replicas", c.Replicas)
	}
	bytes := FormatBytes(c.ReduceBytes)
	if !c.ReduceBytesKnown {
		bytes = "at least " + bytes
	}
	out := []string{fmt.Sprintf("collectives: %s on %s, %s all-reduced per replica per step", strings.Join(ops, ", "), replicas, bytes)}
	lib := "collective library: none known for TensorFlow"
	if c.Library != nil {
		lib = fmt.Sprintf("collective library: %s, through %s (%s)", c.Library.Name, c.Library.Via, c.Library.Source)
	}
	out = append(out, lib)
	runs := "all-reduce runs " + c.Runs
	if c.Copies > 0 {
		runs += fmt.Sprintf(": %d copies, %s per step", c.Copies, FormatBytes(c.CopyBytes))
	}
	out = append(out, runs+" ("+c.RunsSource+")")
	if o := c.OneDevice; o != nil {
		out = append(out, fmt.Sprintf("without a library, MirroredStrategy in a TF1 graph or over CPUs and GPUs uses ReductionToOneDevice: %d copies, %s per step (%s)",
			o.Copies, FormatBytes(o.Bytes), o.Source))
	}
	return out
}

// XLALines say what becomes of each function marked for XLA compilation on
// target t: compiled by the stack's XLA device, not compiled for want of
// its kernels, or run op by op where the stack has no XLA device.
func XLALines(t *reports.Target) []string {
	x := t.XLA
	if x == nil {
		return nil
	}
	var out []string
	for _, f := range x.Functions {
		head := fmt.Sprintf("XLA: %s (marked by %s, %d node(s))", f.Function, f.Caller, f.Nodes)
		switch {
		case x.Device == "":
			out = append(out, fmt.Sprintf("%s runs op by op: the stack has no XLA device (%s)", head, x.Source))
		case f.Compiled:
			out = append(out, fmt.Sprintf("%s compiles on %s (%s)", head, x.Device, x.Source))
		default:
			out = append(out, fmt.Sprintf("%s does not compile on %s: no XLA kernel for %s", head, x.Device,
				TrainingOpList(reports.TrainingPart{Fallback: f.Missing})))
		}
	}
	return out
}
