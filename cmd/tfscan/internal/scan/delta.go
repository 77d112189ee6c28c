package scan

import (
	"strings"

	"github.com/tfscan/tfscan/reports"
)

// applyDelta compares target t with the source src the model runs on today
// and records the comparison in t.Delta and in each node's SourceDevice and
// Change. Both were computed over the same prepared nodes, so their node
// lists are in the same order. Only the nodes t's figures count take part.
func applyDelta(t, src *reports.Target) {
	d := &reports.Delta{Source: src.Target, NewFallbackOps: []reports.DeltaOp{}}
	if t.Placement != nil && src.Placement != nil {
		d.TransferBytesDelta = t.Placement.TransferBytes - src.Placement.TransferBytes
		d.TransferBytesPartial = t.Placement.TransferBytesPartial() || src.Placement.TransferBytesPartial()
	}
	type key struct{ op, dtypes, reason string }
	groups := map[key]int{} // index into d.NewFallbackOps
	for i := range t.Nodes {
		n := &t.Nodes[i]
		if i >= len(src.Nodes) || src.Nodes[i].Path != n.Path {
			continue // not the same node list: compare nothing rather than the wrong nodes
		}
		s := &src.Nodes[i]
		if n.Device != "" {
			n.SourceDevice = s.Device
		}
		if !t.Counts(n) {
			continue
		}
		here, there := t.LeavesDevice(n), src.LeavesDevice(s)
		// A kernel the source has and the target lacks is a new
		// fallback even where a device pin or colocation keeps the node
		// on CPU on the source too: without the pin (clear_devices) it
		// would run on the source's GPU, never on the target's device.
		lost := !reports.IsCovered(n.Reason) && reports.IsCovered(s.Reason)
		gained := reports.IsCovered(n.Reason) && !reports.IsCovered(s.Reason)
		switch {
		case here && (!there || lost):
			n.Change = reports.ChangeNewFallback
			d.NewFallbackNodes++
			reason := n.Reason
			if reports.IsCovered(reason) {
				reason = reports.ReasonPlacedOnCPU
			}
			k := key{n.Op, strings.Join(n.DTypes, ","), reason}
			j, ok := groups[k]
			if !ok {
				j = len(d.NewFallbackOps)
				groups[k] = j
				d.NewFallbackOps = append(d.NewFallbackOps, reports.DeltaOp{Op: n.Op, DTypes: n.DTypes, Reason: reason})
			}
			d.NewFallbackOps[j].Count++
			d.NewFallbackOps[j].Nodes = append(d.NewFallbackOps[j].Nodes, n.Path)
		case there && (!here || gained):
			n.Change = reports.ChangeBetterOnTarget
			d.BetterOnTargetNodes++
		case here && there:
			n.Change = reports.ChangeAlreadyOnCPU
			d.AlreadyOnCPUNodes++
		}
	}
	t.Delta = d
}
