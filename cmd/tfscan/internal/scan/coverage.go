package scan

import (
	"cmp"
	"encoding/binary"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/coverage/placement"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/graph/shape"
	"github.com/tfscan/tfscan/internal/hugepage"
	"github.com/tfscan/tfscan/internal/lastfew"
	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/training"

	opdefpb "github.com/wamuir/graft/tensorflow/core/framework/op_def_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// maxExamplePaths bounds the example node paths kept per uncovered group.
const maxExamplePaths = 5

// Nodes are what every target's coverage walks: the scanned nodes in the
// graph's order with their paths and dtypes, prepared once per model. A
// node's position is its index in list. They are not sorted: what a
// report lists is put in path order when it is listed (coverageInto), so
// that a scan listing the few nodes needing attention sorts those alone.
type Nodes struct {
	list []*graph.Node
	// paths are the nodes' paths, rendered as they are read or all at
	// once (nodePaths).
	paths *nodePaths
	// byPath are the positions in the order of their paths, made when a
	// report first lists every node (pathOrdered).
	byPath []int32
	// dtypes is each node's dtype list by position, an index in
	// dtypeLists (a model has few distinct lists).
	dtypes     []int32
	dtypeLists [][]string
	// keys are the distinct coverage.MatchKeys of the nodes over the
	// attrs that any of the targets' kernels constrain (attrs, by op);
	// key is each node's, by position, an index in keys.
	keys  []string
	key   []int32
	attrs map[string][]string
	// f32 tells by position whether a node is coverage.Float32Node
	// (0: not known yet, 1: no, 2: yes), for targets whose precision
	// mode treats those apart; matched holds each target's matches by
	// key (Nodes.match).
	f32     []uint8
	matched map[*coverage.Index]*keyMatches
	// cls are the nodes' classes and class each node's (Nodes.classes);
	// splitF32: they tell float32 nodes apart (classesFor).
	cls      []nodeClass
	class    []int32
	splitF32 bool
	// bits are each node's bits by position (nodeBits).
	bits []uint8
	// arrays is where dtypes, key, bits and class are cut from
	// (hugepage.Cut, a new array once it has no room), and sourceRoom,
	// the array of a source's nodes (sourceNodes), and the placed arrays
	// (placeNodes): apart, each of a graph of 200,000 nodes is under a
	// huge page, and would be mapped 4 KiB at a time.
	arrays     hugepage.Block
	sourceRoom []sourceNode
	// at is each node's position in list by graph.Node.ID (-1 out of
	// scope), for the placement's lookups (keyOf); nil where every node
	// of the graph is at its ID (posOfID).
	at []int32
	// phases is each node's phase (by graph.Node.ID) and counted the
	// phases the figures count; phases is nil when they were not computed
	// (then every node counts and reports name no phase).
	phases  []graph.Phase
	counted PhaseSet
	// parts is each node's part of the training step (by graph.Node.ID),
	// nil when the graph is no training step (WithParts).
	parts []training.Part
	// shapes are the model's static shapes, inferred by the first
	// placement and shared by the others (they do not depend on the
	// target; the options that shape them are the scan's).
	shapes *shape.Shapes
	// ahead are the shapes inferred while the nodes were prepared, nil
	// when none were started (shapesFor).
	ahead *aheadShapes
	// scratch is the memory each placement of the model passes on to the
	// next (placement.Scratch): PrepareNodes makes it, or a scan hands
	// over the one it flattens the graph in meanwhile (sharedAhead).
	scratch *placement.Scratch
	// placedDev and placedReq are the arrays of the last placement read
	// (placeNodes), lent to the next.
	placedDev, placedReq []int32
	// spareLowered is the array of the last target's lowered nodes
	// (coverageInto), lent to the next.
	spareLowered []loweredNode
	// xla are the model's functions compiled with XLA, found by the first
	// target that asks (compiled): a walk of every node, the same for
	// every target.
	xla     []training.Compiled
	xlaDone bool
}

// compiled is training.CompiledFunctions of g, the graph ns was prepared
// from, worked out once for all targets.
func (ns *Nodes) compiled(g *graph.Graph) []training.Compiled {
	if !ns.xlaDone {
		ns.xla, ns.xlaDone = training.CompiledFunctions(g), true
	}
	return ns.xla
}

// WithPhases records the phase of every node (graph.Graph.Phases) and the
// phases the figures count.
func (ns *Nodes) WithPhases(phases []graph.Phase, counted PhaseSet) *Nodes {
	ns.phases, ns.counted = phases, counted
	ns.cls, ns.class = nil, nil // classes group nodes by phase
	return ns
}

// counts tells whether node n is in the counted phases.
func (ns *Nodes) counts(n *graph.Node) bool {
	return ns.phases == nil || ns.counted[ns.phases[n.ID]]
}

// phaseName is n's phase as reports name it, "" when phases are unknown.
func (ns *Nodes) phaseName(n *graph.Node) string {
	if ns.phases == nil {
		return ""
	}
	return ns.phases[n.ID].String()
}

// PrepareNodes selects the nodes of g (or of scope, when not nil) in the
// graph's order, and keys each for matching against every target in ts.
func PrepareNodes(g *graph.Graph, scope map[*graph.Node]bool, ts []Target) *Nodes {
	ns := &Nodes{paths: new(nodePaths), scratch: new(placement.Scratch)}
	if scope == nil {
		// Every node: the graph's own list, which an append would
		// copy; at stays nil while each node's ID is its position.
		ns.list = g.Nodes[:len(g.Nodes):len(g.Nodes)]
	} else {
		ns.list = make([]*graph.Node, 0, len(scope))
		for _, n := range g.Nodes {
			if scope[n] {
				ns.list = append(ns.list, n)
			}
		}
		ns.at = positionsUpTo(len(g.Nodes), 0)
	}
	n := len(ns.list)
	ns.arrays = hugepage.NewBlock(5*hugepage.Words[int32](n) + hugepage.Words[uint8](n) + hugepage.Words[sourceNode](n))
	ns.dtypes = hugepage.Cut[int32](&ns.arrays, n)
	ns.placedDev, ns.placedReq = hugepage.Cut[int32](&ns.arrays, n), hugepage.Cut[int32](&ns.arrays, n)
	ns.key = hugepage.Cut[int32](&ns.arrays, n)
	ns.bits = hugepage.Cut[uint8](&ns.arrays, n)
	ns.sourceRoom = hugepage.Cut[sourceNode](&ns.arrays, n)
	attrs := map[string][]string{} // op → attrs constrained on any target
	ns.attrs = attrs
	// A model's nodes have few distinct dtype lists and keys: each is
	// kept once (they live as long as the scan of the model).
	// They are found by their type values, written in a buffer.
	dtypesSeen, keysSeen := map[string]int32{}, map[string]int32{}
	var kb, tk []byte
	var types []tpb.DataType
	// A node's dtypes and key are its op's, OpDef's and attr map's: the
	// build hands nodes whose attrs are alike one map, so the last few
	// nodes' are tried first (by map identity, no hashing).
	type like struct {
		attrs uintptr
		opDef *opdefpb.OpDef
		op    string
	}
	type seen struct {
		dt, k int32
		f32   uint8 // bitF32 and bitF32Known, or 0
	}
	var recent lastfew.Cache[like, seen]
	// Whether a node is float32 (Nodes.float32) is its attr map's: told
	// with its key when a target's precision mode asks (lowers).
	f32 := slices.ContainsFunc(ts, func(t Target) bool { return lowers(t.Index) })
	for i, n := range ns.list {
		if ns.at == nil && n.ID != i {
			ns.at = positionsUpTo(len(g.Nodes), i)
		}
		if ns.at != nil && n.ID >= 0 && n.ID < len(ns.at) {
			ns.at[n.ID] = int32(i)
		}
		ns.bits[i] = bitsOf(n)
		l := like{graph.AttrsID(n.Attrs), n.OpDef, n.Op}
		if r, ok := recent.Get(l); ok { // none without an attr map is put
			ns.dtypes[i], ns.key[i] = r.dt, r.k
			ns.bits[i] |= r.f32
			continue
		}
		var fb uint8
		if f32 {
			fb = bitF32Known
			if coverage.Float32Node(n) {
				fb |= bitF32
			}
			ns.bits[i] |= fb
		}
		types = n.AppendDTypeValues(types[:0])
		tk = tk[:0]
		for _, t := range types {
			tk = binary.AppendUvarint(tk, uint64(t))
		}
		dt, ok := dtypesSeen[string(tk)]
		if !ok {
			dt = int32(len(ns.dtypeLists))
			ns.dtypeLists = append(ns.dtypeLists, graph.DTypeNames(types))
			dtypesSeen[string(tk)] = dt
		}
		ns.dtypes[i] = dt
		names, ok := attrs[n.Op]
		if !ok {
			for _, t := range ts {
				for _, a := range t.Index.ConstrainedAttrs(n.Op) {
					if !slices.Contains(names, a) {
						names = append(names, a)
					}
				}
			}
			slices.Sort(names)
			attrs[n.Op] = names
		}
		kb = coverage.AppendMatchKey(kb[:0], n, names)
		k, ok := keysSeen[string(kb)]
		if !ok {
			k = int32(len(ns.keys))
			ns.keys = append(ns.keys, string(kb))
			keysSeen[ns.keys[k]] = k
		}
		ns.key[i] = k
		if l.attrs != 0 {
			recent.Put(l, seen{dt: dt, k: k, f32: fb})
		}
	}
	return ns
}

// positionsUpTo is Nodes.at for n graph nodes of which the first k are at
// their IDs' positions, the others not yet placed (-1).
func positionsUpTo(n, k int) []int32 {
	at := make([]int32, n)
	for i := range at {
		at[i] = -1
		if i < k {
			at[i] = int32(i)
		}
	}
	return at
}

// pathBuilder renders the paths of a model's nodes into shared chunks: a
// path is a substring of its chunk, not a string of its own (a model's
// 200,000 paths are as many allocations otherwise, and their garbage).
type pathBuilder struct {
	chunk strings.Builder
	pa    graph.PathAppender
}

// pathChunk is the size of a chunk of paths.
const pathChunk = 64 << 10

func (b *pathBuilder) path(n *graph.Node) string {
	if n.Func == nil {
		return n.Path() // its name, but for a renamed duplicate
	}
	start := b.chunk.Len()
	if b.chunk.Cap()-start < 4<<10 {
		b.chunk = strings.Builder{}
		b.chunk.Grow(pathChunk)
		start = 0
	}
	var tmp [256]byte
	p := b.pa.AppendPath(tmp[:0], n)
	if len(p) > b.chunk.Cap()-start {
		return string(p) // a path longer than what is left of the chunk
	}
	b.chunk.Write(p)
	return b.chunk.String()[start:]
}

// posOf is the position of n, a node of g, among the prepared nodes; -1
// when n is not one of them (out of scope, synthetic, or a copy).
func (ns *Nodes) posOf(g *graph.Graph, n *graph.Node) int {
	if n.ID < 0 || n.ID >= len(g.Nodes) || g.Nodes[n.ID] != n {
		return -1
	}
	return ns.posOfID(n.ID)
}

// posOfID is the position of the node of g whose ID is id among the
// prepared nodes, -1 when it is not one of them.
func (ns *Nodes) posOfID(id int) int {
	if ns.at == nil {
		if id < 0 || id >= len(ns.list) || ns.list[id].ID != id {
			return -1
		}
		return id
	}
	if id < 0 || id >= len(ns.at) {
		return -1
	}
	return int(ns.at[id])
}

// nodePaths are the prepared nodes' paths by position, rendered once for
// all targets and placements when the steps read many (Nodes.allPaths;
// made tells). A scan that lists only the nodes needing attention reads a
// few, each rendered as it is read (Nodes.path): a function body's paths
// are strings of their own, one allocation each.
type nodePaths struct {
	once  sync.Once
	made  atomic.Bool
	byPos []string
	// reads counts the paths rendered one by one: past a share of the
	// nodes, every path is rendered.
	reads atomic.Int64
}

// path is the path of the node at position i: rendered when read until
// more than a sixteenth of the nodes' have been, then from allPaths.
func (ns *Nodes) path(i int) string {
	if ns.paths.made.Load() {
		return ns.paths.byPos[i]
	}
	if ns.paths.reads.Add(1) > int64(len(ns.list)/16+64) {
		return ns.allPaths()[i]
	}
	return ns.list[i].Path()
}

// allPaths are every node's path by position, rendered on the first call
// (pathBuilder).
func (ns *Nodes) allPaths() []string {
	p := ns.paths
	p.once.Do(func() {
		var pb pathBuilder
		p.byPos = make([]string, len(ns.list))
		for i, n := range ns.list {
			p.byPos[i] = pb.path(n)
		}
		p.made.Store(true)
	})
	return p.byPos
}

// pathOfID is the path of the prepared node whose graph.Node.ID is id, as
// path reads it, "" for one out of scope: a placement's results read them
// (placement.Options.PathOf).
func (ns *Nodes) pathOfID(id int) string {
	i := ns.posOfID(id)
	if i < 0 {
		return ""
	}
	return ns.path(i)
}

// pathOrdered are every position in the order of the nodes' paths,
// sorted once for all the targets that list every node. The caller does
// not change them.
func (ns *Nodes) pathOrdered() []int32 {
	if ns.byPath == nil {
		ns.byPath = pathOrder(ns.allPaths())
	}
	return ns.byPath
}

// pathIndex is the position of the node whose path is p, found in
// pathOrdered.
func (ns *Nodes) pathIndex(p string) (int, bool) {
	order := ns.pathOrdered()
	paths := ns.allPaths()
	k, ok := slices.BinarySearchFunc(order, p, func(i int32, p string) int { return strings.Compare(paths[i], p) })
	if !ok {
		return -1, false
	}
	return int(order[k]), true
}

// sortByPath orders positions by the paths of their nodes (paths are
// unique), as pathOrder sorts them: a report lists its nodes in path
// order.
func (ns *Nodes) sortByPath(at []int32) {
	if len(at) < 2 {
		return
	}
	paths := make([]string, len(at))
	for k, i := range at {
		paths[k] = ns.path(int(i))
	}
	order := pathOrder(paths)
	sorted := make([]int32, len(at))
	for k, from := range order {
		sorted[k] = at[from]
	}
	copy(at, sorted)
}

// dtypesOf is the dtype list of the node at position i.
func (ns *Nodes) dtypesOf(i int) []string { return ns.dtypeLists[ns.dtypes[i]] }

// result is the entry of the node at position i matched as m.
func (ns *Nodes) result(i int, m *coverage.Match) reports.NodeResult {
	n := ns.list[i]
	return reports.NodeResult{
		Path:      ns.path(i),
		Op:        n.Op,
		DTypes:    ns.dtypesOf(i),
		Reason:    string(m.Reason),
		Reachable: n.Reachable,
		Phase:     ns.phaseName(n),
		LoweredTo: m.Lowered,
		Part:      ns.partName(i),
	}
}

// loweredNode is a node covered in a lower precision: its position in
// the target's node list and how it is lowered (lowerGroups).
type loweredNode struct {
	k      int
	to     string
	inputs bool
}

// pathOrder is the positions of paths in the order of the paths. The sort
// compares 16 bytes of each path held beside its position, from where the
// paths first differ, and reads the paths themselves only where a path
// ends within them; paths whose 16 bytes agree are sorted again by the
// next 16 (a comparison of two paths is two reads that miss the cache, and
// the nodes of a function share a long prefix).
func pathOrder(paths []string) []int32 {
	common := 0
	if len(paths) > 0 {
		common = len(paths[0])
		for _, p := range paths[1:] {
			k := 0
			for k < common && k < len(p) && p[k] == paths[0][k] {
				k++
			}
			common = k
		}
	}
	keys := make([]pathKey, len(paths))
	for i := range keys {
		keys[i].i = int32(i)
	}
	sortPaths(keys, paths, common)
	order := make([]int32, len(paths))
	for k := range keys {
		order[k] = keys[k].i
	}
	return order
}

// pathKey is 16 bytes of a path (from an offset) and its position.
type pathKey struct {
	hi, lo uint64
	i      int32
}

// sortPaths sorts keys by their paths, which agree before off.
func sortPaths(keys []pathKey, paths []string, off int) {
	for k := range keys {
		p := paths[keys[k].i]
		keys[k].hi, keys[k].lo = bigEndianAt(p, off), bigEndianAt(p, off+8)
	}
	end := off + 16
	radixSortKeys(keys, 0)
	for lo := 0; lo < len(keys); {
		hi := lo + 1
		for hi < len(keys) && keys[hi].hi == keys[lo].hi && keys[hi].lo == keys[lo].lo {
			hi++
		}
		if hi-lo > 1 {
			// Of two paths whose 16 bytes agree, one that ends within
			// them is a prefix of the other, or the same path: they
			// compare whole. Two that go on compare as equal here and
			// are sorted by their next bytes (below).
			slices.SortFunc(keys[lo:hi], func(a, b pathKey) int {
				pa, pb := paths[a.i], paths[b.i]
				if len(pa) > end && len(pb) > end {
					return 0
				}
				if c := strings.Compare(pa, pb); c != 0 {
					return c
				}
				return cmp.Compare(a.i, b.i)
			})
		}
		// The paths that end within the 16 bytes come first, in order.
		first := lo
		for first < hi && len(paths[keys[first].i]) <= end {
			first++
		}
		if hi-first > 1 {
			sortPaths(keys[first:hi], paths, end)
		}
		lo = hi
	}
}

// radixSortKeys sorts keys by their 16 bytes (hi, then lo), from byte b
// on (the bytes before agree), a byte at a time and in place: each pass
// counts the keys by one byte and swaps each into its bucket (an American
// flag sort). A byte where every key agrees moves nothing, and small
// buckets, for which a pass costs more than it saves, are sorted by
// comparison. It compares no path, where a comparison sort of the keys
// calls its comparison about 18 times a key on 200,000 nodes.
func radixSortKeys(keys []pathKey, b int) {
	for ; b < 16; b++ {
		if len(keys) <= radixMin {
			slices.SortFunc(keys, func(a, b pathKey) int {
				if c := cmp.Compare(a.hi, b.hi); c != 0 {
					return c
				}
				return cmp.Compare(a.lo, b.lo)
			})
			return
		}
		if b = firstDiffering(keys, b); b == 16 {
			return // every key the same
		}
		var count [256]int
		for k := range keys {
			count[keyByte(keys[k], b)]++
		}
		// next[v] is where bucket v takes its next key, end[v] where it
		// ends.
		var next, end [256]int
		sum := 0
		for v, c := range count {
			next[v] = sum
			sum += c
			end[v] = sum
		}
		for v := range next {
			for next[v] < end[v] {
				x := keys[next[v]]
				w := keyByte(x, b)
				for int(w) != v {
					// x goes to bucket w; the key there goes on.
					x, keys[next[w]] = keys[next[w]], x
					next[w]++
					w = keyByte(x, b)
				}
				keys[next[v]] = x
				next[v]++
			}
		}
		start := 0
		for _, c := range count {
			if c > 1 {
				radixSortKeys(keys[start:start+c], b+1)
			}
			start += c
		}
		return
	}
}

// firstDiffering is the first byte from b on where two of keys differ, 16
// where none does: one pass over the keys for every byte they share (the
// nodes of one scope share their path's prefix), where counting a byte at
// a time would pass over them once per byte.
func firstDiffering(keys []pathKey, b int) int {
	var hi, lo uint64
	for _, k := range keys {
		hi |= k.hi ^ keys[0].hi
		lo |= k.lo ^ keys[0].lo
	}
	if b < 8 {
		hi &= ^uint64(0) >> (8 * b)
	} else {
		hi = 0
		lo &= ^uint64(0) >> (8 * (b - 8))
	}
	switch {
	case hi != 0:
		return bits.LeadingZeros64(hi) / 8
	case lo != 0:
		return 8 + bits.LeadingZeros64(lo)/8
	}
	return 16
}

// radixMin is the most keys radixSortKeys sorts by comparison.
const radixMin = 256

// keyByte is byte b of a key's 16 (0 the highest of hi).
func keyByte(x pathKey, b int) uint8 {
	if b < 8 {
		return uint8(x.hi >> (56 - 8*b))
	}
	return uint8(x.lo >> (56 - 8*(b-8)))
}

// bigEndianAt is the 8 bytes of s from off as a big-endian number, zeros
// past its end: numbers of two strings compare as those bytes do, a
// string that ends first being the smaller, or the same when the bytes
// past its end are zeros.
func bigEndianAt(s string, off int) uint64 {
	if off >= 0 && off+8 <= len(s) {
		s = s[off : off+8] // one load of 8 bytes, swapped
		return uint64(s[0])<<56 | uint64(s[1])<<48 | uint64(s[2])<<40 | uint64(s[3])<<32 |
			uint64(s[4])<<24 | uint64(s[5])<<16 | uint64(s[6])<<8 | uint64(s[7])
	}
	var x uint64
	for k := 0; k < 8; k++ {
		x <<= 8
		if off+k < len(s) {
			x |= uint64(s[off+k])
		}
	}
	return x
}

// Coverage matches every prepared node against one target. An op counts as
// covered when every node of it is covered.
func Coverage(ns *Nodes, t Target) *reports.Target {
	rt, _ := coverageInto(ns, t, nil, nil)
	return rt
}

// coverageInto is Coverage listing the nodes in buf's array when it holds
// them all: a scan reuses one array for the targets it lists in part. It
// returns each listed node's position in ns, t.Nodes[k] being the node at
// position at[k]; the report lists nodes in path order.
//
// With keep, it lists only the nodes that are not covered, covered in a
// lower precision, or that keep accepts (i: the node's position in ns): a
// scan that lists only the nodes needing attention, and knows which those
// are before a placement, never holds every node's entry
// (docs/performance.md: a 7-target report of a 210,000-node model), and
// sorts only the paths of those it lists. Every figure is still counted
// over every node. Without keep at is ns.pathOrdered(), not to be changed.
func coverageInto(ns *Nodes, t Target, buf []reports.NodeResult, keep func(i int, reason string) bool) (*reports.Target, []int32) {
	if keep == nil && cap(buf) < len(ns.list) {
		buf = make([]reports.NodeResult, 0, len(ns.list))
	}
	p := t.Index.Info()
	rt := &reports.Target{
		Target: t.Name,
		Registry: reports.RegistryInfo{
			Name:        p.Name,
			Vendor:      p.Vendor,
			DeviceType:  p.DeviceType,
			Mechanism:   string(p.Mechanism),
			Source:      p.Source,
			Method:      string(p.Method),
			Confidence:  p.Confidence,
			LearnedFrom: p.LearnedFrom,

			ConfidenceLevel: string(p.ConfidenceLevel),
			TFVersion:       p.TFVersion,
		},
		Stack:     stackInfo(t.Index.Stack()),
		Coverage:  reports.Coverage{ByReason: map[string]int{}},
		Uncovered: []reports.Uncovered{},
		Nodes:     buf[:0],
	}
	if ns.phases != nil {
		rt.Coverage.Phases = ns.counted.Names()
		rt.Coverage.ByPhase = map[string]reports.PhaseCount{}
	}
	if p.Derived != nil {
		rt.Registry.Base = p.Derived.Base
	}
	// The figures are counted per class of nodes that match alike and
	// count alike (Nodes.classes), each class's match looked up once.
	cls := ns.classesFor(t.Index)
	ms := make([]*coverage.Match, len(cls))
	// What a class's reason tells, told once rather than by comparing
	// strings at each of its nodes.
	type told struct{ covered, lowered, rejected bool }
	tells := make([]told, len(cls))
	type groupKey struct{ op, dtypes, reason, phase string }
	groups := map[groupKey]*reports.Uncovered{}
	groupOf := make([]*reports.Uncovered, len(cls))
	opCovered := map[string]bool{}
	ops := map[string]*reports.OpCoverage{}
	c := &rt.Coverage
	for k := range cls {
		cl := &cls[k]
		m := ns.match(t.Index, int(cl.first))
		ms[k] = m
		tells[k] = told{m.Reason.Covered(), m.Reason == coverage.ReasonCoveredLowerPrecision, m.Reason == coverage.ReasonPrecisionModeError}
		covered, reason, n := tells[k].covered, string(m.Reason), cl.nodes
		if ns.phases != nil {
			pc := c.ByPhase[cl.phase]
			pc.Nodes += n
			if cl.counts {
				c.CountedNodesTotal += n
			}
			if covered {
				pc.Covered += n
				if cl.counts {
					c.CountedNodesCovered += n
				}
			}
			c.ByPhase[cl.phase] = pc
		}
		c.NodesTotal += n
		c.ByReason[reason] += n
		if cl.reachable {
			c.ReachableNodesTotal += n
		}
		if m.Unverified {
			c.DTypeUnverifiedNodes += n
		}
		if tells[k].lowered {
			c.LowerPrecisionNodes += n
		}
		if covered {
			c.NodesCovered += n
			if cl.reachable {
				c.ReachableNodesCovered += n
			}
		}
		if prev, ok := opCovered[cl.op]; cl.counts && (!ok || prev) {
			opCovered[cl.op] = covered
		}
		if cl.counts {
			o := ops[cl.op]
			if o == nil {
				o = &reports.OpCoverage{Op: cl.op, ByReason: map[string]int{}}
				ops[cl.op] = o
			}
			o.Nodes += n
			o.ByReason[reason] += n
		}
		if covered {
			continue
		}
		// Classes are in the order of their first nodes: a group is
		// made by its first node's class.
		gk := groupKey{cl.op, strings.Join(cl.dtypes, ","), reason, cl.phase}
		u := groups[gk]
		if u == nil {
			u = &reports.Uncovered{Op: cl.op, DTypes: cl.dtypes, Reason: reason, Nodes: []string{}, Supported: m.Supported, Hint: m.Hint, Phase: cl.phase}
			groups[gk] = u
		}
		u.Count += n
		groupOf[k] = u
	}
	// What is per node: the nodes listed, and the example paths of the
	// groups (the smallest paths of each, as the nodes come in the
	// graph's order).
	var at []int32
	if keep == nil {
		at = ns.pathOrdered()
	} else {
		at = []int32{}
	}
	for i := range ns.list {
		k := ns.class[i]
		if keep != nil {
			if tl := tells[k]; !tl.covered || tl.lowered || tl.rejected || keep(i, string(ms[k].Reason)) {
				at = append(at, int32(i))
			}
		}
		if u := groupOf[k]; u != nil {
			u.Nodes = appendSmallest(u.Nodes, ns.path(i), maxExamplePaths)
		}
	}
	if keep != nil {
		ns.sortByPath(at)
		// The nodes listed are known now: their array is made to size.
		rt.Nodes = make([]reports.NodeResult, 0, len(at))
	}
	// The lowered and rejected nodes, by their position in rt.Nodes. The
	// lowered nodes are counted by class: their array is made to size.
	nLowered := 0
	for k := range cls {
		if tells[k].lowered {
			nLowered += int(cls[k].nodes)
		}
	}
	lowered := ns.spareLowered[:0]
	if cap(lowered) < nLowered {
		lowered = make([]loweredNode, 0, nLowered)
	}
	rejected := map[int]coverage.Match{}
	for pos, i := range at {
		k := ns.class[i]
		m, tl := ms[k], tells[k]
		rt.Nodes = append(rt.Nodes, ns.result(int(i), m))
		switch {
		case tl.lowered:
			lowered = append(lowered, loweredNode{pos, m.Lowered, m.LoweredInputs})
		case tl.rejected:
			rejected[pos] = *m
		}
	}
	if len(lowered) > 0 {
		lowerGroups(rt, t.Index.Stack(), lowered)
	}
	ns.spareLowered = lowered[:0]
	if len(rejected) > 0 {
		modeErrors(rt, t.Index.Stack(), rejected)
	}
	rt.Ops = make([]reports.OpCoverage, 0, len(ops))
	for _, o := range ops {
		rt.Ops = append(rt.Ops, *o)
	}
	slices.SortFunc(rt.Ops, func(a, b reports.OpCoverage) int { return cmp.Compare(a.Op, b.Op) })
	rt.Coverage.OpsTotal = len(opCovered)
	for _, ok := range opCovered {
		if ok {
			rt.Coverage.OpsCovered++
		}
	}
	for _, u := range groups {
		if u.DTypes == nil {
			u.DTypes = []string{}
		}
		rt.Uncovered = append(rt.Uncovered, *u)
	}
	rt.SortUncovered()
	return rt, at
}

// sourceNodes is the array of a source's nodes, one a node: the one
// PrepareNodes cut (taken once, by the goroutine that reads the source),
// else a new one.
func (ns *Nodes) sourceNodes() []sourceNode {
	if a := ns.sourceRoom; len(a) == len(ns.list) {
		ns.sourceRoom = nil
		return a
	}
	return make([]sourceNode, len(ns.list))
}
