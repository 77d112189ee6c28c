package scan

import (
	"github.com/tfscan/tfscan/coverage/placement"
	"github.com/tfscan/tfscan/reports"
)

// applyPlacement copies a placement simulation into the report model: the
// placement summary, fallback islands, wishlist, fusions, and each node's
// device and reasons (matched by node path; nodes the report does not list,
// e.g. outside the scanned signature, are left out; by graph node when ns
// is what t.Nodes was built from, t.Nodes[k] being the node at position
// at[k] of ns). DeviceNodes counts the nodes the target's figures count
// (Target.Counts).
func applyPlacement(t *reports.Target, res *placement.Result, ns *Nodes, at []int32) {
	if t == nil || res == nil {
		return
	}
	p := placementSummary(t, res)
	find := placedNodes(t, res, ns, at)
	// Device and pin counts are over the nodes the target's figures count
	// (Target.Counts), like its coverage.
	counts, pins := map[string]int{}, map[string]int{}
	for i := range t.Nodes {
		nr := &t.Nodes[i]
		n := find(i)
		if n == nil {
			continue
		}
		nr.Device = n.Device
		nr.Reasons = n.Reasons // the simulation's, not appended to
		nr.RequestedDevice = n.RequestedDevice
		if t.Counts(nr) {
			count(p, counts, pins, n)
		}
	}
	setCounts(p, counts, pins)
}

// applyPlacementAt is applyPlacement for a target that lists only some
// of the prepared nodes, t.Nodes[k] being the node at position at[k] of
// ns (coverageInto with keep): the listed nodes get their devices and
// reasons, and the counts are over every node of ns the figures count.
func applyPlacementAt(t *reports.Target, pl *placed, ns *Nodes, at []int32) {
	if t == nil || pl == nil {
		return
	}
	p := placementSummary(t, pl.res)
	for k, i := range at {
		if n, ok := pl.res.NodeOf(ns.list[i].ID); ok {
			nr := &t.Nodes[k]
			nr.Device, nr.Reasons, nr.RequestedDevice = n.Device, n.Reasons, n.RequestedDevice
		}
	}
	devs, reqs := make([]int, len(pl.names)), make([]int, len(pl.names))
	// Whether the figures count a node is its class's, asked once a class.
	cls := ns.classes()
	counted := make([]bool, len(cls))
	for k := range cls {
		counted[k] = t.Counts(&reports.NodeResult{Reachable: cls[k].reachable, Phase: cls[k].phase})
	}
	for i := range ns.list {
		if pl.dev[i] == 0 {
			continue // not placed
		}
		if counted[ns.class[i]] {
			devs[pl.dev[i]]++
			reqs[pl.req[i]]++
		}
	}
	counts, pins := map[string]int{}, map[string]int{}
	for k, name := range pl.names {
		if k == 0 {
			continue
		}
		if devs[k] > 0 {
			counts[name] = devs[k]
		}
		if reqs[k] > 0 {
			pins[name] = reqs[k]
			p.PinnedNodes += reqs[k]
		}
	}
	setCounts(p, counts, pins)
}

// placed is what a placement says of each prepared node of ns: its device
// and the device it requests, read from the lazy result once per node, in
// the graph's order.
type placed struct {
	res *placement.Result
	// names are the devices, each once; names[0] is "" (none).
	names []string
	// dev and req are by position in ns; dev is 0 for a node the
	// placement does not place.
	dev, req []int32
}

// placeNodes reads res for every node of ns; nil when res is.
func placeNodes(ns *Nodes, res *placement.Result) *placed {
	if res == nil {
		return nil
	}
	// The arrays are those of the last placement read: a target's is
	// done with before the next target is placed.
	if cap(ns.placedDev) < len(ns.list) {
		ns.placedDev, ns.placedReq = make([]int32, len(ns.list)), make([]int32, len(ns.list))
	}
	pl := &placed{res: res, dev: ns.placedDev[:len(ns.list)], req: ns.placedReq[:len(ns.list)]}
	clear(pl.dev)
	clear(pl.req)
	pl.names = res.DevicesAt(ns.at, pl.dev, pl.req)
	return pl
}

// device is the device of the node at position i ("" when not placed).
func (pl *placed) device(i int) string {
	if pl == nil {
		return ""
	}
	return pl.names[pl.dev[i]]
}

// requested is the device the node at position i requests ("" for none).
func (pl *placed) requested(i int) string {
	if pl == nil {
		return ""
	}
	return pl.names[pl.req[i]]
}

// count adds a counted node's device and pin to the counts.
func count(p *reports.Placement, counts, pins map[string]int, n *placement.NodeResult) {
	counts[n.Device]++
	if n.RequestedDevice != "" {
		pins[n.RequestedDevice]++
		p.PinnedNodes++
	}
}

func setCounts(p *reports.Placement, counts, pins map[string]int) {
	if len(counts) > 0 {
		p.DeviceNodes = counts
	}
	if len(pins) > 0 {
		p.PinnedDevices = pins
	}
}

// placementSummary records in t what a placement says beside its nodes:
// the summary, fallback islands, wishlist and fusions; it returns t's
// Placement, whose device counts are left to fill.
func placementSummary(t *reports.Target, res *placement.Result) *reports.Placement {
	p := placementOf(res)
	t.Placement = p

	t.Islands = nil
	for _, is := range res.Islands {
		t.Islands = append(t.Islands, reports.Island{Nodes: append([]string(nil), is.Nodes...), Bytes: is.Bytes, Cause: is.Cause, Transfers: is.Transfers, PinnedNodes: is.Pinned})
	}
	t.Wishlist = nil
	for _, w := range res.Wishlist {
		// A kernel whose addition would add transfers removes none.
		t.Wishlist = append(t.Wishlist, reports.Wish{Op: w.Op, DType: w.DType,
			TransfersRemoved: max(w.TransfersRemoved, 0), BytesRemoved: max(w.BytesRemoved, 0)})
	}
	t.Fusions = make([]reports.Fusion, 0, len(res.Fusions))
	for _, f := range res.Fusions { // res is not used after this: its slices move
		t.Fusions = append(t.Fusions, reports.Fusion{Fused: f.Fused, Nodes: f.Nodes, Reason: f.Reason})
	}
	return p
}

// placementOf is the report's summary of a placement, without its nodes'
// counts.
func placementOf(res *placement.Result) *reports.Placement {
	p := &reports.Placement{
		SoftPlacement:         res.SoftPlacement,
		Partitions:            res.Partitions,
		Transfers:             res.Transfers,
		TransferBytes:         res.TransferBytes,
		TransfersPerIteration: res.TransfersPerIteration,
		IOTransfers:           res.IOTransfers,
		IOBytes:               res.IOBytes,
		AssumedDims:           append([]string{}, res.AssumedDims...),
		Error:                 res.Error,
		UnknownSizeTransfers:  res.UnknownBytes,
		Warnings:              append([]string(nil), res.Warnings...),
		ClearedDevices:        res.ClearedDevices,
	}
	for _, x := range res.TransferList {
		if x.IO && !x.BytesKnown {
			p.UnknownSizeIOTransfers++
		}
	}
	for _, e := range res.PartitionEdges {
		p.PartitionEdges = append(p.PartitionEdges, reports.PartitionEdge{From: e.From, To: e.To, Transfers: e.Transfers, Bytes: e.Bytes})
	}
	for _, a := range res.AMP {
		p.AMP = append(p.AMP, reports.AMPNode{Path: a.Path, Op: a.Op, DType: a.DType, Covered: a.Covered})
	}
	return p
}

// applyComparison records the agreement of the prediction with a real
// placement log (--compare-log).
func applyComparison(t *reports.Target, a *placement.Agreement) {
	if t == nil || t.Placement == nil || a == nil {
		return
	}
	c := &reports.PlacementComparison{Matched: a.Matched, Agreed: a.Agreed, Unmatched: append([]string(nil), a.Unmatched...)}
	for _, n := range a.Nodes {
		c.Nodes = append(c.Nodes, reports.ComparedNode{Name: n.Name, Op: n.Op, Predicted: n.Predicted, Actual: n.Actual, Agree: n.Agree})
	}
	t.Placement.Comparison = c
}

// placedNodes finds the simulation's result for t.Nodes[k]: by graph node
// ID when t.Nodes is still the nodes at positions at of ns (as coverage
// listed them) and the result is place's (lazy, Options.LazyNodes), else
// by path. Read what it points to before the next call: a lazy result's
// node is worked out into one value each time.
func placedNodes(t *reports.Target, res *placement.Result, ns *Nodes, at []int32) func(k int) *placement.NodeResult {
	if ns != nil && len(at) == len(t.Nodes) && res.Nodes == nil {
		var nr placement.NodeResult
		return func(k int) *placement.NodeResult {
			i := int(at[k])
			if t.Nodes[k].Path != ns.path(i) {
				return nil
			}
			var ok bool
			if nr, ok = res.NodeOf(ns.list[i].ID); !ok {
				return nil
			}
			return &nr
		}
	}
	res.Materialize()
	byPath := make(map[string]*placement.NodeResult, len(res.Nodes))
	for i := range res.Nodes {
		byPath[res.Nodes[i].Path] = &res.Nodes[i]
	}
	return func(i int) *placement.NodeResult { return byPath[t.Nodes[i].Path] }
}
