package scan

import (
	"strings"

	"github.com/tfscan/tfscan/reports"
)

// source is what a delta reads of the source's coverage and placement:
// per node, in the prepared order, its path, its device and whether it
// leaves the source's accelerator or lacks a kernel there. It is small
// beside the source's node list, which can go once it is taken: a scan
// keeps at most one whole node list alive.
type source struct {
	name string
	// transferBytes is the source's placement's, partial when it leaves
	// out transfers of unknown size; placed: it has a placement.
	transferBytes        int64
	transferBytesPartial bool
	placed               bool
	nodes                []sourceNode
}

type sourceNode struct {
	path, device    string
	leaves, covered bool
}

// sourceOf takes what applyDelta needs of the source's target.
func sourceOf(src *reports.Target) *source {
	s := &source{name: src.Target, nodes: make([]sourceNode, len(src.Nodes))}
	if src.Placement != nil {
		s.placed, s.transferBytes = true, src.Placement.TransferBytes
		s.transferBytesPartial = src.Placement.TransferBytesPartial()
	}
	for i := range src.Nodes {
		n := &src.Nodes[i]
		s.nodes[i] = sourceNode{path: n.Path, device: n.Device, leaves: src.LeavesDevice(n), covered: reports.IsCovered(n.Reason)}
	}
	return s
}

// applyDelta compares target t with the source src the model runs on today
// and records the comparison in t.Delta and in each node's SourceDevice and
// Change. Both were computed over the same prepared nodes, so their node
// lists are in the same order. Only the nodes t's figures count take part.
func applyDelta(t *reports.Target, src *source) {
	d := &reports.Delta{Source: src.name, NewFallbackOps: []reports.DeltaOp{}}
	if t.Placement != nil && src.placed {
		d.TransferBytesDelta = t.Placement.TransferBytes - src.transferBytes
		d.TransferBytesPartial = t.Placement.TransferBytesPartial() || src.transferBytesPartial
	}
	type key struct{ op, dtypes, reason string }
	groups := map[key]int{} // index into d.NewFallbackOps
	for i := range t.Nodes {
		n := &t.Nodes[i]
		if i >= len(src.nodes) || src.nodes[i].path != n.Path {
			continue // not the same node list: compare nothing rather than the wrong nodes
		}
		s := &src.nodes[i]
		if n.Device != "" {
			n.SourceDevice = s.device
		}
		if !t.Counts(n) {
			continue
		}
		here, there := t.LeavesDevice(n), s.leaves
		// A kernel the source has and the target lacks is a new
		// fallback even where a device pin or colocation keeps the node
		// on CPU on the source too: without the pin (clear_devices) it
		// would run on the source's GPU, never on the target's device.
		lost := !reports.IsCovered(n.Reason) && s.covered
		gained := reports.IsCovered(n.Reason) && !s.covered
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
