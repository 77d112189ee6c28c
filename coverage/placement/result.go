package placement

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/graph/shape"
)

// inferShapes takes the shapes given in the options, or infers them.
func (s *sim) inferShapes() {
	if s.opts.Shapes != nil {
		s.shapes = s.opts.Shapes
		return
	}
	s.shapes = InferShapes(s.g, s.opts)
}

// InferShapes runs static shape inference on g with the input shapes of
// the signature opts choose and the user's dimensions (opts.Dims), as a
// simulation does: pass the result as Options.Shapes to simulate several
// targets with one inference.
func InferShapes(g *graph.Graph, opts Options) *shape.Shapes {
	inputs := map[string][]int64{}
	dims := map[string]int64{}
	for k, v := range opts.Dims {
		dims[k] = v
	}
	if sig := signatureOf(g, opts.Signature); sig != nil {
		for _, in := range sig.inputs {
			node, _ := tensorName(in.name)
			if !in.unknownRank && in.shape != nil {
				inputs[in.name] = in.shape
			}
			if v, ok := opts.Dims[in.key]; ok {
				if _, set := dims[node]; !set {
					dims[node] = v
				}
			}
		}
	}
	return shape.Infer(g, shape.Options{Inputs: inputs, Dims: dims, Checkpoint: opts.Checkpoint})
}

// result assembles the Result: per-node devices, transfers, islands,
// wishlist and fusions.
func (s *sim) result() *Result {
	r := &Result{Target: s.devs[s.tgt], CPU: s.devs[s.cpu], SoftPlacement: s.soft, DeviceNodes: map[string]int{}}
	r.Errors = append(r.Errors, s.errs...)
	if len(s.errs) > 0 {
		r.Error = s.errs[0]
	}
	all := s.transfers(nil)
	xs := make([]*xfer, 0, len(all))
	for _, x := range all {
		if s.countedXfer(x) {
			xs = append(xs, x)
		}
	}
	sortTransfers(xs)
	edges := map[[2]string]*PartitionEdge{}
	for _, x := range xs {
		r.TransferList = append(r.TransferList, x.Transfer)
		if !x.BytesKnown {
			r.UnknownBytes++
		}
		if x.IO {
			r.IOTransfers++
			r.IOBytes = satAdd(r.IOBytes, x.Bytes)
			continue
		}
		r.Transfers++
		r.TransferBytes = satAdd(r.TransferBytes, x.Bytes)
		if x.PerIteration {
			r.TransfersPerIteration++
		}
		if x.From != x.To {
			k := [2]string{x.From, x.To}
			e := edges[k]
			if e == nil {
				e = &PartitionEdge{From: x.From, To: x.To}
				edges[k] = e
			}
			e.Transfers++
			e.Bytes = satAdd(e.Bytes, x.Bytes)
		}
	}
	for _, e := range edges {
		r.PartitionEdges = append(r.PartitionEdges, *e)
	}
	sort.Slice(r.PartitionEdges, func(a, b int) bool {
		if r.PartitionEdges[a].From != r.PartitionEdges[b].From {
			return r.PartitionEdges[a].From < r.PartitionEdges[b].From
		}
		return r.PartitionEdges[a].To < r.PartitionEdges[b].To
	})
	// Partitions and node counts are gathered by device index, a slice
	// each: a map write per node costs more than the rest of the loop.
	parts := make([]bool, len(s.devs))
	for i, p := range s.nodes {
		if d := s.dev[i]; d >= 0 && !parts[d] && !p.is(pGhost|pIO|pFed) && s.counted(i) {
			parts[d] = true
			r.Partitions++
		}
	}
	if s.shapes != nil {
		r.AssumedDims = append([]string{}, s.shapes.AssumedDims...)
	} else {
		r.AssumedDims = []string{}
	}
	counts := !s.opts.NoNodeCounts && !s.opts.DevicesOnly
	if counts {
		perDev := make([]int, len(s.devs))
		for id := range s.g.Nodes {
			if i, ok := s.placedAt(id); ok {
				perDev[s.dev[i]]++
			}
		}
		for d, k := range perDev {
			if k > 0 {
				r.DeviceNodes[s.devs[d]] += k
			}
		}
	}
	// The other instances' devices are read by the nodes' results alone:
	// a caller that reads only devices (DeviceOf) never needs them.
	others := sync.OnceValue(s.otherInstances)
	r.nodeOf = func(id int) (NodeResult, bool) {
		if id < 0 || id >= len(s.g.Nodes) {
			return NodeResult{}, false
		}
		return s.nodeResult(s.g.Nodes[id], others())
	}
	r.all = func() []NodeResult { return s.nodeResults(others()) }
	r.deviceOf = func(id int) (string, string, bool) {
		if id < 0 || id >= len(s.g.Nodes) {
			return "", "", false
		}
		i, ok := s.placedAt(id)
		if !ok {
			return "", "", false
		}
		return s.devs[s.dev[i]], s.pinAt(i), true
	}
	r.devicesAt = func(at, dev, req []int32) []string {
		nm := deviceNames{""}
		byDev := make([]int32, len(s.devs))
		for d, name := range s.devs {
			byDev[d] = nm.index(name)
		}
		// placedAt and pinAt of every node, their arrays held in locals: a
		// call a node would cost more than the rest of the walk.
		first, sdev, fl := s.firstOf, s.dev, s.flat.opFlags()
		n := min(len(dev), len(s.g.Nodes))
		if at != nil {
			n = min(len(at), len(s.g.Nodes))
		}
		for id := range n {
			k := int32(id)
			if at != nil {
				if k = at[id]; k < 0 {
					continue
				}
			}
			i := first[id]
			if i < 0 || sdev[i] < 0 {
				continue
			}
			dev[k], req[k] = byDev[sdev[i]], 0
			if fl[i]&flagDevField != 0 {
				if pin := s.pinOf(s.nodes[i]); pin != "" {
					req[k] = nm.index(pin)
				}
			}
		}
		return nm
	}
	if !s.opts.LazyNodes {
		r.Materialize()
	} else if sc := s.opts.Scratch; sc != nil {
		r.own = func() func() {
			sc.keepNodeArrays()
			return func() { sc.giveNodeArrays(s.dev, s.reasons) }
		}
	}
	s.countPins(r, counts)
	if !s.opts.DevicesOnly {
		r.Islands = s.islands(all)
	}
	if !s.opts.NoWishlist {
		r.Wishlist = s.wishlist(all)
	}
	r.WhatIf = s.whatIfCovered()
	if !s.opts.DevicesOnly {
		r.Fusions = s.fusions()
	}
	r.AMP = s.ampResult()
	r.Warnings = dedupStrings(s.warnings)
	return r
}

func satAdd(a, b int64) int64 {
	if a > (1<<62)-b {
		return 1 << 62
	}
	return a + b
}

func dedupStrings(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// otherInstances are, by graph node ID, the devices where instances of the
// node other than its first (other call sites) landed, when they differ
// from the first's.
func (s *sim) otherInstances() map[int]map[int]bool {
	others := map[int]map[int]bool{}
	for i, p := range s.nodes {
		if p.src == nil || s.dev[i] < 0 {
			continue
		}
		first := s.firstOf[p.src.ID]
		if int(first) != i && s.dev[first] != s.dev[i] {
			if others[p.src.ID] == nil {
				others[p.src.ID] = map[int]bool{}
			}
			others[p.src.ID][int(s.dev[i])] = true
		}
	}
	return others
}

// placedAt is the placement node of the first instance of the graph node
// with ID id, false when it was not placed (a function never
// instantiated, a ghost left without a device): the node a result speaks
// for. It reads no graph node, so that a walk over every ID touches only
// the simulation's arrays.
func (s *sim) placedAt(id int) (int, bool) {
	i := s.firstOf[id]
	return int(i), i >= 0 && s.dev[i] >= 0
}

// nodeResults reports every graph node that was placed, by its first
// instance; other instances that landed elsewhere are mentioned.
func (s *sim) nodeResults(others map[int]map[int]bool) []NodeResult {
	placed := 0
	for id := range s.g.Nodes {
		if _, ok := s.placedAt(id); ok {
			placed++
		}
	}
	out := make([]NodeResult, 0, placed)
	for _, gn := range s.g.Nodes {
		if nr, ok := s.nodeResult(gn, others); ok {
			out = append(out, nr)
		}
	}
	return out
}

// nodeResult is graph node gn's result, by its first instance, false
// when it was not placed.
func (s *sim) nodeResult(gn *graph.Node, others map[int]map[int]bool) (NodeResult, bool) {
	i, ok := s.placedAt(gn.ID)
	if !ok {
		return NodeResult{}, false
	}
	p := s.nodes[i]
	nr := NodeResult{ID: gn.ID, Path: s.path(gn), Name: gn.Name, Op: gn.Op, Device: s.devs[s.dev[i]], RequestedDevice: s.pinOf(p)}
	if !p.is(pGhost) && p.note() == "" && len(others[gn.ID]) == 0 {
		// The simulation's own reasons, shared: nothing appends to
		// them past this length.
		nr.Reasons = s.reasonsOf(i)
		return nr, true
	}
	if p.is(pGhost) {
		nr.Reasons = append(nr.Reasons, s.devs[s.dev[i]]+": "+p.note())
	}
	nr.Reasons = append(nr.Reasons, s.reasonsOf(i)...)
	if p.note() != "" && !p.is(pGhost) && !strings.Contains(strings.Join(nr.Reasons, "\n"), p.note()) {
		nr.Reasons = append(nr.Reasons, p.note())
	}
	if o := others[gn.ID]; len(o) > 0 {
		var ds []string
		for d := range o {
			ds = append(ds, s.devs[d])
		}
		sort.Strings(ds)
		nr.Reasons = append(nr.Reasons, fmt.Sprintf("other instances of this node (other call sites) are placed on %s", strings.Join(ds, ", ")))
	}
	return nr, true
}

// islands finds maximal connected groups of CPU nodes (counted units) that
// touch target nodes, with the transfers crossing their border.
func (s *sim) islands(all map[xferKey]*xfer) []Island {
	if s.tgt == s.cpu {
		return nil
	}
	outs := s.outEdges()
	// The device first, then the flags: most nodes are not on the CPU, and
	// neither needs the node.
	fl := s.flat.opFlags()
	onCPU := func(i int) bool {
		return int(s.dev[i]) == s.cpu && fl[i]&(flagGhost|flagIO|flagFed) == 0 && s.counted(i)
	}
	if !slices.Contains(s.dev, int8(s.cpu)) {
		return nil // no node on the CPU (most of a well-covered model's): no island
	}
	comp, sizes := s.components(s.opts.Scratch.lentInt32(lentIslands, len(s.nodes)), func(_, k int) bool { return onCPU(k) })
	// An island is a component that borders a counted node on the
	// target; its members in index order.
	var islands []Island
	type islandInfo struct {
		nodes []int
	}
	infos := make([]islandInfo, len(sizes))
	touches := make([]bool, len(sizes))
	for j, c := range comp {
		if c < 0 {
			continue
		}
		infos[c].nodes = append(infos[c].nodes, j)
		border := func(k int) {
			if k >= 0 && !onCPU(k) && int(s.dev[k]) == s.tgt && !s.nodes[k].is(pGhost) && s.counted(k) {
				touches[c] = true
			}
		}
		s.eachNeighbour(j, outs, border)
	}
	for c := range infos {
		if !touches[c] {
			infos[c].nodes = nil
		}
	}
	// transfers crossing each island's border
	count := make([]int, len(infos))
	bytes := make([]int64, len(infos))
	for _, x := range all {
		if x.IO || !x.counted {
			continue
		}
		src := x.key.src
		if c := comp[src]; c >= 0 && x.to != s.cpu {
			count[c]++
			bytes[c] = satAdd(bytes[c], x.Bytes)
			continue
		}
		if x.to == s.cpu && x.from != s.cpu {
			// destination island: any consumer of that port on CPU
			seen := map[int]bool{}
			for _, e := range outs.Of(src) {
				if c := comp[int(e.dst)]; c >= 0 && !seen[int(c)] && (x.key.port == -1) == e.isCtrl() && (e.isCtrl() || int(e.port) == x.key.port) {
					seen[int(c)] = true
					count[c]++
					bytes[c] = satAdd(bytes[c], x.Bytes)
				}
			}
		}
	}
	for id, in := range infos {
		if in.nodes == nil {
			continue
		}
		cause, pinned := s.islandCause(in.nodes)
		isl := Island{Transfers: count[id], Bytes: bytes[id], Cause: cause, Pinned: pinned}
		for _, j := range in.nodes {
			isl.Nodes = append(isl.Nodes, s.label(s.nodes[j]))
		}
		islands = append(islands, isl)
	}
	sort.SliceStable(islands, func(a, b int) bool {
		if islands[a].Bytes != islands[b].Bytes {
			return islands[a].Bytes > islands[b].Bytes
		}
		if islands[a].Transfers != islands[b].Transfers {
			return islands[a].Transfers > islands[b].Transfers
		}
		return islands[a].Nodes[0] < islands[b].Nodes[0]
	})
	return islands
}

// islandCause names what holds an island on CPU: the nodes without a
// target kernel, then the device fields that pin nodes to CPU (with how
// many nodes those are), or else the first node's reason.
func (s *sim) islandCause(nodes []int) (string, int) {
	ops := map[string]int{}
	for _, j := range nodes {
		if s.sup(j) != nil && s.sup(j)[s.tgt] < 0 {
			ops[s.nodes[j].op()+" ("+missingWhy(*s.match(j, s.tgt), s.types[s.tgt])+")"]++
		}
	}
	keys := slices.Sorted(maps.Keys(ops))
	parts := make([]string, 0, len(keys)+1)
	for _, k := range keys {
		if ops[k] > 1 {
			parts = append(parts, fmt.Sprintf("%d× %s", ops[k], k))
		} else {
			parts = append(parts, k)
		}
	}
	pins, pinned := s.pinCause(nodes)
	if pins != "" {
		parts = append(parts, pins)
	}
	if len(parts) > 0 {
		return strings.Join(parts, "; "), pinned
	}
	// Nothing lacks a kernel and nothing is pinned: give the reason of the
	// first node that chose CPU itself (generators only follow their
	// consumers).
	pick := nodes[0]
	for _, j := range nodes {
		if !s.nodes[j].isGenerator() {
			pick = j
			break
		}
	}
	if rs := s.reasonsOf(pick); len(rs) > 0 {
		return s.nodes[pick].op() + " " + s.nodes[pick].name() + ": " + rs[0], 0
	}
	return "placed on CPU", 0
}

func (s *sim) ampResult() []AMPNode {
	if len(s.amp) == 0 {
		return nil
	}
	var out []AMPNode
	for i, t := range s.amp {
		p := s.nodes[i]
		if p.src == nil || int(s.firstOf[p.src.ID]) != i {
			continue
		}
		out = append(out, AMPNode{Path: s.label(p), Op: p.op(), DType: dtName(t), Covered: s.sup(i)[s.tgt] >= 0})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Path < out[b].Path })
	return out
}
