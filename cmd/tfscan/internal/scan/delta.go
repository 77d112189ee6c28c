package scan

import (
	"slices"
	"strings"

	"github.com/tfscan/tfscan/reports"
)

// source is what a delta reads of the source's coverage and placement:
// per node, in the prepared order of ns, its device and whether it leaves
// the source's accelerator or lacks a kernel there. It is small beside the
// source's node list, which can go once it is taken (or is never made:
// sourceFrom): a scan keeps at most one whole node list alive.
type source struct {
	name string
	ns   *Nodes
	// transferBytes is the source's placement's, partial when it leaves
	// out transfers of unknown size; placed: it has a placement.
	transferBytes        int64
	transferBytesPartial bool
	placed               bool
	nodes                []sourceNode
	// devices are the devices the nodes run on, each once (few).
	devices []string
}

type sourceNode struct {
	device          uint16 // in devices
	leaves, covered bool
}

// deviceIndex is dev's index in s.devices, added when new.
func (s *source) deviceIndex(dev string) uint16 {
	if i := slices.Index(s.devices, dev); i >= 0 {
		return uint16(i)
	}
	s.devices = append(s.devices, dev)
	return uint16(len(s.devices) - 1)
}

// sourceOf takes what applyDelta needs of the source's target, whose
// node list is every node of ns.
func sourceOf(ns *Nodes, src *reports.Target) *source {
	s := &source{name: src.Target, ns: ns, nodes: make([]sourceNode, len(src.Nodes))}
	if src.Placement != nil {
		s.placed, s.transferBytes = true, src.Placement.TransferBytes
		s.transferBytesPartial = src.Placement.TransferBytesPartial()
	}
	for i := range src.Nodes {
		n := &src.Nodes[i]
		s.nodes[i] = sourceNode{device: s.deviceIndex(n.Device), leaves: src.LeavesDevice(n), covered: reports.IsCovered(n.Reason)}
	}
	return s
}

// sourceFrom is sourceOf for a source without a placement, matched here
// without the node list a target's coverage makes: without a placement a
// node leaves the device when it is not covered (Target.LeavesDevice).
func sourceFrom(ns *Nodes, t Target) *source {
	s := &source{name: t.Name, ns: ns, nodes: make([]sourceNode, len(ns.list)), devices: []string{""}}
	for i, n := range ns.list {
		covered := reports.IsCovered(string(t.Index.MatchKeyed(n, ns.keys[i]).Reason))
		s.nodes[i] = sourceNode{leaves: !covered, covered: covered}
	}
	return s
}

// mayChange tells whether the node at prepared position i of a target
// covered on the target, without a placement, may change against src
// (applyDelta: better_on_target where the source lacks its kernel).
func (src *source) mayChange(i int) bool {
	return src != nil && (src.nodes[i].leaves || !src.nodes[i].covered)
}

// applyDelta compares target t with the source src the model runs on today
// and records the comparison in t.Delta and in each node's SourceDevice and
// Change. Both were computed over the prepared nodes src.ns: t.Nodes lists
// each of them in the same order, or, when at is not nil, the node at
// position at[k] of ns as t.Nodes[k]. Only the nodes t's figures count
// take part.
func applyDelta(t *reports.Target, src *source, ns *Nodes, at []int32) {
	d := &reports.Delta{Source: src.name, NewFallbackOps: []reports.DeltaOp{}}
	if t.Placement != nil && src.placed {
		d.TransferBytesDelta = t.Placement.TransferBytes - src.transferBytes
		d.TransferBytesPartial = t.Placement.TransferBytesPartial() || src.transferBytesPartial
	}
	t.Delta = d
	if src.ns != ns || at == nil && len(t.Nodes) != len(src.nodes) {
		return // not the same node list: compare nothing rather than the wrong nodes
	}
	type key struct{ op, dtypes, reason string }
	groups := map[key]int{} // index into d.NewFallbackOps
	for k := range t.Nodes {
		n, i := &t.Nodes[k], k
		if at != nil {
			i = int(at[k])
		}
		s := &src.nodes[i]
		if n.Device != "" {
			n.SourceDevice = src.devices[s.device]
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
}
