package scan

import (
	"slices"
	"strings"

	"github.com/tfscan/tfscan/coverage"
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
	device          int32 // in devices
	leaves, covered bool
}

// deviceIndex is dev's index in s.devices, added when new.
func (s *source) deviceIndex(dev string) int32 {
	if i := slices.Index(s.devices, dev); i >= 0 {
		return int32(i)
	}
	s.devices = append(s.devices, dev)
	return int32(len(s.devices) - 1)
}

// sourceOf takes what applyDelta needs of the source's target, whose
// node list is every node of ns, src.Nodes[k] the node at position at[k].
func sourceOf(ns *Nodes, src *reports.Target, at []int32) *source {
	s := &source{name: src.Target, ns: ns, nodes: ns.sourceNodes()}
	if src.Placement != nil {
		s.placed, s.transferBytes = true, src.Placement.TransferBytes
		s.transferBytesPartial = src.Placement.TransferBytesPartial()
	}
	for k := range src.Nodes {
		n := &src.Nodes[k]
		s.nodes[at[k]] = sourceNode{device: s.deviceIndex(n.Device), leaves: src.LeavesDevice(n), covered: reports.IsCovered(n.Reason)}
	}
	return s
}

// sourceFrom is sourceOf without the source's node list: each node of ns
// is matched here and, with a placement pl (nil: none), placed where it
// puts it.
func sourceFrom(ns *Nodes, t Target, pl *placed) *source {
	// The devices are the placement's names, a node's its index there
	// (none: names[0], "").
	s := &source{name: t.Name, ns: ns, nodes: ns.sourceNodes(), devices: []string{""}}
	probe := probeTarget(t, pl)
	if pl != nil {
		s.placed, s.transferBytes = true, probe.Placement.TransferBytes
		s.transferBytesPartial = probe.Placement.TransferBytesPartial()
		s.devices = pl.names
	}
	// What a node tells is its reason's and device's: asked once of each
	// pair (a device's name is parsed to tell whether it is a CPU). A
	// node's reason is its class's (Nodes.classesFor), matched once, and
	// the nodes of a class mostly share a device: the answer for the
	// class's last device is tried before the pairs' map.
	type pair struct {
		reason coverage.Reason
		dev    int32
	}
	cls := ns.classesFor(t.Index)
	type last struct {
		dev int32
		sn  sourceNode
		ok  bool
	}
	reasons, byClass := make([]coverage.Reason, len(cls)), make([]last, len(cls))
	for c := range cls {
		reasons[c] = ns.match(t.Index, int(cls[c].first)).Reason
	}
	told := map[pair]sourceNode{}
	for i := range ns.list {
		c := ns.class[i]
		k := pair{reason: reasons[c]}
		if pl != nil {
			k.dev = pl.dev[i]
		}
		if b := &byClass[c]; b.ok && b.dev == k.dev {
			s.nodes[i] = b.sn
			continue
		}
		sn, ok := told[k]
		if !ok {
			nr := reports.NodeResult{Reason: string(k.reason), Device: pl.device(i)}
			sn = sourceNode{device: k.dev, leaves: probe.LeavesDevice(&nr), covered: reports.IsCovered(nr.Reason)}
			told[k] = sn
		}
		byClass[c] = last{dev: k.dev, sn: sn, ok: true}
		s.nodes[i] = sn
	}
	return s
}

// attentionKeep tells coverageInto which covered nodes of ns target t
// lists: those that may need attention (reports.Target.NeedsAttention)
// once placed as pl says (nil: no placement) and compared with the source src
// (nil: none). modelFindings are the model's; the target's own findings
// name nodes coverageInto lists anyway (lowered, rejected). Without
// phases it cannot tell yet which nodes the figures count and keeps those
// that would need attention if counted; KeepAttention drops the rest.
func attentionKeep(ns *Nodes, t Target, pl *placed, src *source, modelFindings []reports.Finding) func(i int, reason string) bool {
	probe := probeTarget(t, pl)
	if ns.phases != nil {
		probe.Coverage.Phases = ns.counted.Names()
	}
	flagged := map[string]bool{}
	for _, f := range modelFindings {
		flagged[f.Path] = true
	}
	if probe.Placement != nil {
		for _, a := range probe.Placement.AMP {
			flagged[a.Path] = true
		}
	}
	// Beside its path (flagged), a node's answer is that of its class,
	// reason, devices and source node: asked once of each (a device's
	// name is parsed to tell whether it is a CPU).
	type asked struct {
		class           int32
		reason          string
		dev, req        int32
		leaves, covered bool
	}
	told := map[asked]bool{}
	// The nodes of a class mostly give the same reason, devices and
	// source node: the answer for a class's last key is tried before the
	// map, whose key hashes the reason.
	type last struct {
		k     asked
		v, ok bool
	}
	var byClass []last
	return func(i int, reason string) bool {
		if len(flagged) > 0 && flagged[ns.path(i)] {
			return true
		}
		k := asked{class: ns.class[i], reason: reason}
		if pl != nil {
			k.dev, k.req = pl.dev[i], pl.req[i]
		}
		if src != nil {
			k.leaves, k.covered = src.nodes[i].leaves, src.nodes[i].covered
		}
		if byClass == nil {
			byClass = make([]last, len(ns.cls))
		}
		// Field by field, the reason last: a struct's == is a call.
		b := &byClass[k.class]
		if bk := &b.k; b.ok && bk.dev == k.dev && bk.req == k.req && bk.leaves == k.leaves && bk.covered == k.covered && bk.reason == k.reason {
			return b.v
		}
		if v, ok := told[k]; ok {
			*b = last{k: k, v: v, ok: true}
			return v
		}
		// The class holds what the node's graph node would tell (a read
		// that misses the cache at every node).
		cl := &ns.cls[ns.class[i]]
		nr := reports.NodeResult{Path: ns.path(i), Reason: reason, Reachable: cl.reachable, Phase: cl.phase,
			Device: pl.device(i), RequestedDevice: pl.requested(i)}
		if src != nil && probe.Counts(&nr) {
			nr.Change = change(probe, &nr, &src.nodes[i])
		}
		v := probe.NeedsAttention(&nr, nil)
		told[k] = v
		*b = last{k: k, v: v, ok: true}
		return v
	}
}

// probeTarget is a report of t without nodes, with what a placement pl
// (nil: none) says beside its nodes: enough to ask of a node whether it
// leaves the device, or changes against a source, before t's report is
// made.
func probeTarget(t Target, pl *placed) *reports.Target {
	rt := &reports.Target{Target: t.Name, Registry: reports.RegistryInfo{DeviceType: t.Index.Info().DeviceType}}
	if pl != nil {
		rt.Placement = placementOf(pl.res)
	}
	return rt
}

// applyDelta compares target t with the source src the model runs on today
// and records the comparison in t.Delta and in each node's SourceDevice and
// Change. Both were computed over the prepared nodes src.ns, t.Nodes[k]
// being the node at position at[k] of ns. Only the nodes t's figures count
// take part.
func applyDelta(t *reports.Target, src *source, ns *Nodes, at []int32) {
	d := &reports.Delta{Source: src.name, NewFallbackOps: []reports.DeltaOp{}}
	if t.Placement != nil && src.placed {
		d.TransferBytesDelta = t.Placement.TransferBytes - src.transferBytes
		d.TransferBytesPartial = t.Placement.TransferBytesPartial() || src.transferBytesPartial
	}
	t.Delta = d
	if src.ns != ns || len(at) != len(t.Nodes) {
		return // not the same node list: compare nothing rather than the wrong nodes
	}
	type key struct{ op, dtypes, reason string }
	groups := map[key]int{} // index into d.NewFallbackOps
	for k := range t.Nodes {
		n, s := &t.Nodes[k], &src.nodes[at[k]]
		if n.Device != "" {
			n.SourceDevice = src.devices[s.device]
		}
		if !t.Counts(n) {
			continue
		}
		n.Change = change(t, n, s)
		switch n.Change {
		case reports.ChangeNewFallback:
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
		case reports.ChangeBetterOnTarget:
			d.BetterOnTargetNodes++
		case reports.ChangeAlreadyOnCPU:
			d.AlreadyOnCPUNodes++
		}
	}
}

// change is what target t changes for node n, which its figures count,
// against the source's s: new_fallback, better_on_target, already_on_cpu
// or "" (it runs on the accelerator on both).
func change(t *reports.Target, n *reports.NodeResult, s *sourceNode) string {
	here, there := t.LeavesDevice(n), s.leaves
	// A kernel the source has and the target lacks is a new fallback even
	// where a device pin or colocation keeps the node on CPU on the
	// source too: without the pin (clear_devices) it would run on the
	// source's GPU, never on the target's device.
	lost := !reports.IsCovered(n.Reason) && s.covered
	gained := reports.IsCovered(n.Reason) && !s.covered
	switch {
	case here && (!there || lost):
		return reports.ChangeNewFallback
	case there && (!here || gained):
		return reports.ChangeBetterOnTarget
	case here && there:
		return reports.ChangeAlreadyOnCPU
	}
	return ""
}
