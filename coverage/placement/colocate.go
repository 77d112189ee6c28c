package placement

import (
	"fmt"
	"slices"
	"strings"

	kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/dtype"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/internal/lastfew"
)

// group is the state of a colocation group's root (colocation_graph.cc
// Member). It holds no pointer: its devices and priorities are indexes into
// the simulation's tables, so that the collector skips the slab of a group
// per node (sim.gslab).
type group struct {
	// rq is the requested device (sim.req), res the resource device
	// (sim.resSpec): indexes in sim.specTab, 0 for none (most groups).
	rq, res int32
	// prio is the group's device priorities (sim.prio): node prio's sup
	// while prio ≥ 0, else the group's own, sim.ownPrios[-prio-1].
	prio int32
	// lacks is a member without a target kernel (for reasons), -1.
	lacks int32
	// The devices are indexes in sim.devs, at most maxDevs of them.
	assigned int8 // pre-assigned device, -1
	dflt     int8
	pinned   int8 // device once a member was placed, -1
	// cands are the candidates (candLists), -1 until candidates works
	// them out: a simulation has few lists (internCands).
	cands int8
	// rank is the union-find rank of Member::Merge (colocation_graph.cc:323-366):
	// it decides which root survives a merge, and so the order of the two
	// device names in TF's merge errors. A rank is at most log2 of the
	// nodes.
	rank uint8
	// live: the group is a root's (sim.group).
	live     bool
	hostOnly bool
	// failed is set once a member could not be placed (error recorded).
	failed bool
}

// group is the colocation group whose root is node r, nil when r is no
// group's root (a ghost, or merged into another).
func (s *sim) group(r int) *group {
	if g := &s.gslab[r]; g.live {
		return g
	}
	return nil
}

// req is g's requested device, the empty spec for none.
func (s *sim) req(g *group) devSpec { return s.specTab[g.rq] }

// resSpec is g's resource device, the empty spec for none.
func (s *sim) resSpec(g *group) devSpec { return s.specTab[g.res] }

// specID is d's index in the simulation's table of the device requests
// groups hold, 0 for none.
func (s *sim) specID(d devSpec) int32 {
	if d.empty() {
		return 0
	}
	if k, ok := s.specIDs[d]; ok {
		return k
	}
	if s.specIDs == nil {
		s.specIDs = map[devSpec]int32{}
	}
	s.specTab = append(s.specTab, d)
	k := int32(len(s.specTab) - 1)
	s.specIDs[d] = k
	return k
}

// spec is the simulation's shared copy of a device request, nil for none:
// nodes keep their requests by pointer.
func (s *sim) spec(d devSpec) *devSpec {
	if d.empty() {
		return nil
	}
	if s.lastSpec != nil && *s.lastSpec == d {
		return s.lastSpec
	}
	if x, ok := s.specs[d]; ok {
		s.lastSpec = x
		return x
	}
	if s.specs == nil {
		s.specs = map[devSpec]*devSpec{}
	}
	x := new(devSpec) // not &d, which would put every d on the heap
	*x = d
	s.specs[d], s.lastSpec = x, x
	return x
}

// assignedSpec is the group's assigned device as TF holds it: a full name.
func (s *sim) assignedSpec(g *group) devSpec {
	if g.assigned < 0 {
		return devSpec{}
	}
	return localSpec(s.types[g.assigned])
}

// lookupKernels runs the kernel lookup of every placed node on every device
// (SupportedDeviceTypesForNode, op_kernel.cc:1530-1599). Nodes of one
// lookup class (flattened.classOf) are looked up once on a device whose
// matcher answers by op and attrs (classSafe); the CPU's lookups come from
// those the simulations lent the Scratch share, where they apply
// (cpuLookups).
func (s *sim) lookupKernels() {
	n := len(s.nodes)
	nd := len(s.devs)
	s.rowOf = s.opts.Scratch.lentInt32(lentRows, n)
	var rt rowTable
	rt.nd = nd
	var mt matchTable
	shared := s.cpuLookups()
	var fromShared []int32 // index in s.mtab of each shared CPU match, -1 before its first use
	if shared != nil {
		fromShared = filled(len(shared.tab), -1)
	}
	safe := make([]bool, nd)
	for d, m := range s.matchers {
		safe[d] = classSafe(m)
	}
	s.classSafe = safe
	// Each class's match index and priority on each device, -1 before
	// its first lookup; where every device answers by class, its row.
	byClass := filled(s.flat.classes*nd, -1)
	classSup := make([]int, s.flat.classes*nd)
	allSafe := !slices.Contains(safe, false)
	var classRow []int32
	if allSafe {
		classRow = filled(s.flat.classes, -1)
	}
	// The nodes in no class, by their matcher's key (KeyedMatcher).
	keyers := make([]KeyedMatcher, nd)
	byKey := make([]map[int]int32, nd)
	for d, m := range s.matchers {
		if km, ok := m.(KeyedMatcher); ok {
			keyers[d], byKey[d] = km, map[int]int32{}
		}
	}
	// A node of a class is read only to be looked up: where the
	// simulation has no nodes of its own, its flags and class tell the
	// rest.
	fl := s.flat.opFlags()
	ghost := rt.intern(rowKey{-1, -1}, [maxDevs]int{})
	for i, p := range s.nodes {
		if fl[i]&flagGhost != 0 {
			s.rowOf[i] = ghost
			continue
		}
		var key rowKey
		var sup [maxDevs]int
		// A node auto mixed precision gave a lookup node of its own is
		// in no class and has no shared lookup.
		c, ci := int32(-1), int32(-1)
		if !s.ownNodes || p.look() == s.flat.nodes[i].look() {
			c = s.flat.classOf[i]
			if shared != nil {
				ci = shared.idx[i]
			}
		}
		if c >= 0 && allSafe && classRow[c] >= 0 {
			s.rowOf[i] = classRow[c]
			continue
		}
		for d := 0; d < nd; d++ {
			slot := -1
			if c >= 0 && safe[d] {
				slot = int(c)*nd + d
				if k := byClass[slot]; k >= 0 {
					key[d], sup[d] = k, classSup[slot]
					continue
				}
			}
			var k int32
			lk, keyed := 0, false
			if d == s.cpu && ci >= 0 {
				if fromShared[ci] < 0 {
					fromShared[ci] = mt.add(&shared.tab[ci])
				}
				k = fromShared[ci]
			} else {
				if keyers[d] != nil && s.flags(i)&flagSystem == 0 {
					lk, keyed = keyers[d].LookupKey(p.look())
				}
				if kk, ok := byKey[d][lk]; keyed && ok {
					k = kk
				} else {
					m := s.lookupOn(p, p.look(), d, s.matchers[d])
					k = mt.add(&m)
					if keyed {
						byKey[d][lk] = k
					}
				}
			}
			key[d], sup[d] = k, s.priority(d, &mt.tab[k])
			if slot >= 0 {
				byClass[slot], classSup[slot] = k, sup[d]
			}
		}
		s.rowOf[i] = rt.intern(key, sup)
		if c >= 0 && allSafe {
			classRow[c] = s.rowOf[i]
		}
	}
	s.mtab = mt.tab
	s.sups, s.rowMidx = rt.sups, rt.midx
}

// maxDevs is the most devices a simulation has: its target's and the
// CPU (newSim).
const maxDevs = 2

// rowKey is a row's kernel lookups, an index in sim.mtab a device (-1:
// none, a ghost's).
type rowKey [maxDevs]int32

// rowTable holds the rows of kernel lookups and priorities
// lookupKernels finds, each once: the nodes of a layer, and most nodes of
// one op, look up alike, so that a node holds the index of its row
// rather than a row of its own (sim.rowOf).
type rowTable struct {
	nd     int
	sups   []int
	midx   []int32
	byKey  map[rowKey]int32
	recent lastfew.Cache[rowKey, int32]
}

// intern is the index of the row with lookups key and priorities sup,
// added when new. The priorities follow from the lookups.
func (t *rowTable) intern(key rowKey, sup [maxDevs]int) int32 {
	if r, ok := t.recent.Get(key); ok {
		return r
	}
	r, ok := t.byKey[key]
	if !ok {
		if t.byKey == nil {
			t.byKey = map[rowKey]int32{}
		}
		r = int32(len(t.midx) / t.nd)
		t.sups = append(t.sups, sup[:t.nd]...)
		t.midx = append(t.midx, key[:t.nd]...)
		t.byKey[key] = r
	}
	t.recent.Put(key, r)
	return r
}

// sup is node i's kernel priority on each device (-1: unsupported), nil
// for a ghost node (never placed itself). A what-if writes it in place.
func (s *sim) sup(i int) []int {
	if s.nodes[i].is(pGhost) {
		return nil
	}
	return s.supRow(i)
}

// supRow is node i's row of sups, read without the node.
func (s *sim) supRow(i int) []int {
	nd := len(s.devs)
	r := int(s.rowOf[i])
	return s.sups[r*nd : (r+1)*nd : (r+1)*nd]
}

// ownRow gives node i a row of its own, a copy of the one it shares, for
// a what-if to write its priorities in (whatIf): writing the shared row
// would change every node that holds it.
func (s *sim) ownRow(i int) {
	nd := len(s.devs)
	r := int(s.rowOf[i])
	s.sups = append(s.sups, s.sups[r*nd:(r+1)*nd]...)
	s.rowMidx = append(s.rowMidx, s.rowMidx[r*nd:(r+1)*nd]...)
	s.rowOf[i] = int32(len(s.rowMidx)/nd - 1)
}

// prio is g's device priorities, len(devs) of them: its root node's sup
// until the group has its own (ownPrio, setPrio).
func (s *sim) prio(g *group) []int {
	if i := int(g.prio); i >= 0 {
		// Node i has a group, so it is no ghost (sup).
		return s.supRow(i)
	}
	return s.ownPrios[-g.prio-1]
}

// ownPrio is g's device priorities, to change: a group starts with its
// node's (sup), which it must not change.
func (s *sim) ownPrio(g *group) []int {
	if g.prio >= 0 {
		s.setPrio(g, slices.Clone(s.prio(g)))
	}
	return s.prio(g)
}

// setPrio makes p g's own device priorities.
func (s *sim) setPrio(g *group, p []int) {
	s.ownPrios = append(s.ownPrios, p)
	g.prio = -int32(len(s.ownPrios))
}

// filled is n copies of v.
func filled(n int, v int32) []int32 {
	xs := make([]int32, n)
	for i := range xs {
		xs[i] = v
	}
	return xs
}

// matchTable holds distinct Matches. Matches repeat (one per kernel lookup
// key, not per node): each distinct one is kept once, and the nodes hold
// its index. They are found under their kernel and slices, cheap to hash
// and shared by few.
type matchTable struct {
	tab  []coverage.Match
	seen map[cheapMatchID][]int32
}

type cheapMatchID struct {
	kernel                *kdpb.KernelDef
	hostMemory, supported *string
}

// add is m's index in the table, added when new.
func (t *matchTable) add(m *coverage.Match) int32 {
	if t.seen == nil {
		t.seen = map[cheapMatchID][]int32{}
	}
	id := idOf(m)
	ck := cheapMatchID{id.kernel, id.hostMemory, id.supported}
	same := t.seen[ck]
	for _, j := range same {
		if idOf(&t.tab[j]) == id {
			return j
		}
	}
	k := int32(len(t.tab))
	t.tab = append(t.tab, *m)
	t.seen[ck] = append(same, k)
	return k
}

// matchID identifies a Match by its values, its slices by their arrays
// (a memoized Match shares them), so that equal matches intern alike.
type matchID struct {
	reason                  coverage.Reason
	kernel                  *kdpb.KernelDef
	hostMemory, supported   *string
	nHost, nSupported       int
	hint, lowered, stackErr string
	unverified, loweredIns  bool
}

func idOf(m *coverage.Match) matchID {
	id := matchID{reason: m.Reason, kernel: m.Kernel, nHost: len(m.HostMemory), nSupported: len(m.Supported),
		hint: m.Hint, lowered: m.Lowered, stackErr: m.StackError, unverified: m.Unverified, loweredIns: m.LoweredInputs}
	if len(m.HostMemory) > 0 {
		id.hostMemory = &m.HostMemory[0]
	}
	if len(m.Supported) > 0 {
		id.supported = &m.Supported[0]
	}
	return id
}

// match is node i's kernel lookup on device d, as lookupKernels found it
// (nil for a node that has none: an inlined call or lowered op).
func (s *sim) match(i, d int) *coverage.Match {
	nd := len(s.devs)
	k := s.rowMidx[int(s.rowOf[i])*nd+d]
	if k < 0 {
		return nil
	}
	return &s.mtab[k]
}

// kernelsFor computes the supported devices (kernel priority, -1 = none) of
// one node; override, when set, replaces the target matcher (what-if).
func (s *sim) kernelsFor(p *pnode, look *graph.Node, override coverage.Matcher) ([]int, []coverage.Match) {
	sup := make([]int, len(s.devs))
	ms := make([]coverage.Match, len(s.devs))
	for d, m := range s.matchers {
		if override != nil && d == s.tgt {
			m = override
		}
		ms[d] = s.lookupOn(p, look, d, m)
		sup[d] = s.priority(d, &ms[d])
	}
	return sup, ms
}

// lookupOn is the kernel lookup of node p (lookup node look) on device d
// with matcher m.
func (s *sim) lookupOn(p *pnode, look *graph.Node, d int, m coverage.Matcher) coverage.Match {
	if p.op() != "_Arg" && p.op() != "_Retval" {
		return m.Match(look)
	}
	// System kernels exist on every device (function_ops.cc:91-172).
	r := coverage.Match{Reason: coverage.ReasonCovered}
	if d != s.cpu && look != nil && len(look.OutputTypes())+len(look.InputTypes()) > 0 {
		t := append(append([]tpb.DataType(nil), look.InputTypes()...), look.OutputTypes()...)[0]
		if hostType(t) || t == tpb.DataType_DT_INT32 {
			r.HostMemory = argHostMemory
		}
	}
	return r
}

// priority is the kernel priority a lookup on device d gives the node, -1
// for no kernel.
func (s *sim) priority(d int, m *coverage.Match) int {
	switch m.Reason {
	case coverage.ReasonCovered, coverage.ReasonCoveredDefault, coverage.ReasonCoveredLowerPrecision:
		return int(m.Kernel.GetPriority())
	case coverage.ReasonFunctionCall:
		return 0
	case coverage.ReasonPrecisionModeError:
		// The stack partitions by op name: the node goes to the
		// device, where its compiler rejects the graph: an error
		// after placement, reported by coverage (Match.StackError).
		return 0
	case coverage.ReasonUnknownOp:
		// A custom op TF would need its library for; tfscan assumes
		// the library brings a CPU kernel and nothing for the target.
		if d == s.cpu {
			return 0
		}
	}
	return -1
}

// argHostMemory is an _Arg's or _Retval's host memory for host types,
// shared (read it, do not modify it).
var argHostMemory = []string{"input", "output"}

func hostType(t tpb.DataType) bool {
	t = dtype.Base(t)
	return t == tpb.DataType_DT_STRING || t == tpb.DataType_DT_RESOURCE
}

func (s *sim) find(i int) int {
	for int(s.parent[i]) != i {
		s.parent[i] = s.parent[s.parent[i]]
		i = int(s.parent[i])
	}
	return i
}

// resourceGenerator: no inputs, one resource or ref output
// (colocation_graph.cc:95-98).
func (p *pnode) resourceGenerator() bool {
	return p.in.n == 0 && len(p.outTypes()) == 1 &&
		(p.outTypes()[0] == tpb.DataType_DT_RESOURCE || dtype.IsRef(p.outTypes()[0]))
}

// colocate builds the colocation groups (ColocationGraph::Initialize,
// colocation_graph.cc:929-944).
func (s *sim) colocate() {
	n := len(s.nodes)
	s.parent = s.opts.Scratch.lentInt32(lentParent, n)
	// The groups, one allocation. A group's device priorities are its
	// node's (sup) until it changes them (ownPrio).
	s.gslab = s.opts.Scratch.groupSlab(n)
	s.specTab, s.specIDs, s.ownPrios = []devSpec{{}}, nil, nil
	s.mergeNote = map[int]string{}
	s.reasons, s.reasonLists = s.opts.Scratch.lentInt32(lentReasons, n), [][]string{nil}
	kinds := s.placeKinds()
	for i, p := range s.nodes {
		s.parent[i] = int32(i)
		if kinds != nil && kinds[i]&kindPlain != 0 && !allNeg(s.supRow(i)) {
			// A plain node with a kernel somewhere: what the rest of the
			// loop does of it, without reading it.
			s.newGroup(i, plainRole(kinds[i]))
			continue
		}
		// Single-device bodies run without a placer (function.cc:930-951).
		noPlacer := p.is(pHost) || p.ghostOf >= 0
		if p.is(pGhost) {
			// An inlined call or lowered control flow: TF places the
			// call node itself (or the lowered nodes carrying its device).
			if p.is(pBadDevice) && !noPlacer {
				s.addErr(s.malformedDevice(p))
			}
			continue
		}
		g := s.newGroup(i, int(p.dflt))
		// ColocationGraph::InitializeMember (colocation_graph.cc:1494-1541).
		if p.assigned >= 0 {
			// SetAssignedDeviceName: the requested name is the assigned one.
			g.assigned = int8(s.device(int(p.assigned)))
			g.rq = s.specID(localSpec(s.types[g.assigned]))
			continue
		}
		if p.rq != nil && !p.rq.empty() { // few nodes request a device
			g.rq = s.specID(*p.rq)
			if p.resourceGenerator() {
				// Resource generators' requests are resource devices
				// (colocation_graph.cc:95-98, 1525-1537).
				g.res = g.rq
			}
		}
		if p.assigned == -2 || noPlacer {
			continue
		}
		switch {
		case allNeg(s.prio(g)):
			s.addErr(fmt.Sprintf("No OpKernel was registered to support Op '%s' used by {{node %s}} with these attrs: [%s]\nRegistered devices: [%s]\nRegistered kernels:\n%s",
				p.op(), p.name(), attrString(p), strings.Join(sortedTypes(s.types), ", "), strings.TrimSuffix(s.registeredKernels(p.op()), "\n")))
			s.addReason(i, "TensorFlow fails: no kernel on any device (colocation_graph.cc:1508-1521); tfscan assumes CPU to go on")
			s.ownPrio(g)[s.cpu] = 0
		case p.is(pBadDevice):
			// SetRequestedDeviceName / SetResourceDeviceName fail whatever
			// the soft-placement setting (colocation_graph.cc:194-232).
			s.addErr(s.malformedDevice(p))
			s.addReason(i, fmt.Sprintf("TensorFlow fails: malformed device specification '%s' (colocation_graph.cc:225-229); tfscan ignores it to go on", p.deviceField()))
		}
	}
	s.colocateResourceEdges()
	s.colocateClasses()
	s.hostOnlyVariants()
}

// newGroup makes node i, no ghost, the root of a group of its own with
// default device role dflt, its priorities its row's.
func (s *sim) newGroup(i, dflt int) *group {
	g := &s.gslab[i] // zeroed: set field by field (see builder.addNode)
	g.assigned, g.pinned, g.dflt, g.prio, g.lacks, g.live, g.cands = -1, -1, int8(s.device(dflt)), int32(i), -1, true, -1
	if s.supRow(i)[s.tgt] < 0 {
		g.lacks = int32(i)
	}
	return g
}

func allNeg(xs []int) bool {
	for _, x := range xs {
		if x >= 0 {
			return false
		}
	}
	return true
}

func sortedTypes(ts []string) []string {
	out := append([]string(nil), ts...)
	if len(out) == 2 && out[0] > out[1] {
		out[0], out[1] = out[1], out[0]
	}
	return out
}

func (s *sim) addErr(msg string) {
	s.errs = append(s.errs, msg)
}

// colocationExempt are the ops registered with
// REGISTER_INPUT_COLOCATION_EXEMPTION in TF 2.15 (identity_n_op.cc:35,
// partitioned_function_ops.cc:290-291, tensorflow/core/kernels/data/*).
var colocationExempt = map[string]bool{
	"IdentityN": true, "PartitionedCall": true, "StatefulPartitionedCall": true,
	"MapDataset": true, "ParallelMapDataset": true, "ParallelMapDatasetV2": true,
	"FilterDataset": true, "FlatMapDataset": true, "InterleaveDataset": true,
	"ParallelInterleaveDataset": true, "ParallelInterleaveDatasetV2": true,
	"ParallelInterleaveDatasetV3": true, "ParallelInterleaveDatasetV4": true,
	"LegacyParallelInterleaveDatasetV2": true, "GeneratorDataset": true,
	"ReduceDataset": true, "ScanDataset": true, "MapAndBatchDataset": true,
	"GroupByWindowDataset": true, "GroupByReducerDataset": true, "TakeWhileDataset": true,
	"ParallelFilterDataset": true, "DeleteMultiDeviceIterator": true,
	"ExperimentalGroupByReducerDataset": true, "ExperimentalGroupByWindowDataset": true,
	"ExperimentalMapAndBatchDataset": true, "ExperimentalParallelInterleaveDataset": true,
	"ExperimentalScanDataset": true, "ExperimentalTakeWhileDataset": true,
}

// isDatasetOp follows DatasetOpKernel::IsDatasetOp: one variant output and
// a name ending in Dataset or DatasetV2.
func isDatasetOp(p *pnode) bool {
	return len(p.outTypes()) == 1 && p.outTypes()[0] == tpb.DataType_DT_VARIANT &&
		(strings.HasSuffix(p.op(), "Dataset") || strings.HasSuffix(p.op(), "DatasetV2"))
}

// colocateResourceEdges unions the ends of every resource or ref edge and
// of dataset-to-dataset variant edges (colocation_graph.cc:707-785).
func (s *sim) colocateResourceEdges() {
	for _, e := range s.special().coloc {
		i, p, src := int(e.dst), s.nodes[e.dst], s.nodes[e.src]
		kind := colocationEdgeKinds[e.kind]
		// ColocateResourceOrRefEdge (colocation_graph.cc:728-749): the
		// edge check's errors come as they are, a failed merge wrapped.
		if err := s.ensureCompatible(int(e.src), i); err != nil {
			s.addErr(err.Error())
			continue
		}
		if err := s.union(int(e.src), i); err != nil {
			s.addErr("Nodes were connected by a reference or resource connection (requiring them to be on the same device), but the two nodes were assigned two different devices: " + err.Error())
			continue
		}
		s.noteMerge(i, fmt.Sprintf("%s from %s %s", kind, src.op(), src.name()))
		s.noteMerge(int(e.src), fmt.Sprintf("%s to %s %s", kind, p.op(), p.name()))
	}
}

// ensureCompatible is Member::EnsureCompatibilityAcrossResourceEdge
// (colocation_graph.cc:268-321) for the edge src → dst: assigned and
// resource devices of the two groups must agree; when only the requested
// ones disagree, the consumer's request gives way to the producer's. This
// check belongs to resource and reference edges only; `_class` merges go
// straight to ColocateNodes.
func (s *sim) ensureCompatible(src, dst int) error {
	gs, gd := s.group(s.find(src)), s.group(s.find(dst))
	ns, nd := s.nodes[src], s.nodes[dst]
	for _, c := range []struct {
		what string
		a, b devSpec
	}{{"assigned", s.assignedSpec(gs), s.assignedSpec(gd)}, {"resource", s.resSpec(gs), s.resSpec(gd)}} {
		if !compatible(c.a, c.b) {
			return fmt.Errorf("Cannot place the graph because a reference or resource edge connects colocation groups with incompatible %s devices: %s vs %s. The edge src node is name='%s' (op='%s'), and the dst node is name='%s' (op='%s').",
				c.what, c.a, c.b, ns.name(), ns.op(), nd.name(), nd.op())
		}
	}
	if !compatible(s.req(gs), s.req(gd)) {
		// "Ignoring device specification ... because the input edge ...
		// is a reference connection": the producer's request wins.
		gd.rq = s.specID(s.req(gs).specialize(s.assignedSpec(gd)).specialize(s.resSpec(gd)))
		gd.cands = -1
	}
	return nil
}

func (s *sim) noteMerge(i int, note string) {
	if _, ok := s.mergeNote[i]; !ok {
		s.mergeNote[i] = note
	}
}

// groupKey names a `_class` colocation group inside one placement unit.
type groupKey struct {
	unit int
	name string
}

// colocateClasses applies `_class` "loc:@NAME" attrs like
// ColocationGraph::ColocateAllNodes (colocation_graph.cc:655-705): nodes in
// graph order; each "loc:@NAME" of a node, then the node's own name, is a
// group whose root is the first node that carried the name, and the node is
// colocated with that root (ColocateNodeToGroup, lines 1071-1098). Names
// resolve inside the node's own function instance.
func (s *sim) colocateClasses() {
	// Only names some _class refers to can join a group: the others
	// need no entry (node names are unique within a unit).
	// A node's name is made only when its graph node's name is one a
	// _class refers to (base).
	wanted, base := map[groupKey]bool{}, map[string]bool{}
	for _, i := range s.flat.classed() {
		if p := s.nodes[i]; !p.is(pGhost) {
			classRefs(p, func(k groupKey, name string) { wanted[k], base[name] = true, true })
		}
	}
	if len(wanted) == 0 {
		return
	}
	roots := make(map[groupKey]int, len(wanted))
	join := func(i int, k groupKey, cls string) {
		root, ok := roots[k]
		if !ok {
			roots[k] = i
			return
		}
		if root == i {
			return
		}
		if err := s.union(i, root); err != nil {
			// Under soft placement the request is dropped (only logged).
			if !s.soft {
				s.addErr(err.Error())
			}
			return
		}
		if cls != "" {
			s.noteMerge(i, "_class loc:@"+cls)
		} else {
			s.noteMerge(i, "_class loc:@"+k.name+" of "+s.nodes[root].name())
		}
		s.noteMerge(root, fmt.Sprintf("_class loc:@%s of %s", k.name, s.nodes[i].name()))
	}
	for i, p := range s.nodes {
		if p.is(pGhost) {
			continue
		}
		classRefs(p, func(k groupKey, name string) { join(i, k, name) })
		if p.src != nil && !base[p.src.Name] {
			continue
		}
		if k := (groupKey{p.unit(), p.name()}); wanted[k] {
			join(i, k, "")
		}
	}
}

// classRefs calls fn with each node its _class attr names ("loc:@name"),
// resolved inside the node's own function instance.
func classRefs(p *pnode, fn func(k groupKey, name string)) {
	if p.src == nil {
		return
	}
	cls := p.src.Attrs["_class"].GetList().GetS()
	if len(cls) == 0 {
		return
	}
	prefix := p.inst.prefix // p.name() less its graph node's name
	for _, c := range cls {
		if name, ok := strings.CutPrefix(string(c), "loc:@"); ok {
			fn(groupKey{p.unit(), prefix + name}, name)
		}
	}
}

// union merges the groups of x and y like ColocationGraph::ColocateNodes
// (colocation_graph.cc:1115-1159); the errors name x first. Member::Merge
// keeps the root of higher rank, x's on a tie (lines 323-366), and the
// merged device names are the surviving root's merged with the other's
// (MergeDeviceNames, lines 391-420): assigned and resource names must agree,
// requested ones give way under soft placement.
func (s *sim) union(x, y int) error {
	rx, ry := s.find(x), s.find(y)
	if rx == ry {
		return nil
	}
	root, other := rx, ry
	if s.group(rx).rank < s.group(ry).rank {
		root, other = ry, rx
	}
	g, o := s.group(root), s.group(other)
	colocate := fmt.Sprintf("Cannot colocate nodes {{colocation_node %s}} and {{colocation_node %s}}", s.nodes[x].name(), s.nodes[y].name())
	asg, err := mergeSpecs(s.assignedSpec(g), s.assignedSpec(o), false)
	if err != nil {
		return fmt.Errorf("%s: %w", colocate, err)
	}
	res, err := mergeSpecs(s.resSpec(g), s.resSpec(o), false)
	if err != nil {
		return fmt.Errorf("%s: %w", colocate, err)
	}
	req, err := mergeSpecs(s.req(g), s.req(o), s.soft)
	if err != nil {
		return fmt.Errorf("%s: %w", colocate, err)
	}
	prio, ok := mergePrio(s.prio(g), s.prio(o), s)
	if !ok {
		// TF appends its Colocation Debug Info here; tfscan leaves it out.
		return fmt.Errorf("%s because no device type supports both of those nodes and the other nodes colocated with them.", colocate)
	}
	g.rq = s.specID(req.specialize(asg).specialize(res))
	g.res = s.specID(res)
	if g.assigned < 0 {
		g.assigned = o.assigned
	}
	s.setPrio(g, prio)
	if g.dflt < 0 {
		g.dflt = o.dflt
	}
	g.hostOnly = g.hostOnly || o.hostOnly
	if o.lacks >= 0 && (g.lacks < 0 || o.lacks < g.lacks) {
		g.lacks = o.lacks
	}
	if g.rank == o.rank {
		g.rank++
	}
	g.cands = -1
	s.parent[other] = int32(root)
	o.live = false
	return nil
}

// mergePrio intersects supported device lists with
// Member::MergeSupportedDevices' priority rules (colocation_graph.cc:428-488).
func mergePrio(a, b []int, s *sim) ([]int, bool) {
	out := make([]int, len(a))
	ai := make([]int, len(a))
	bi := make([]int, len(a))
	any := false
	aP, bP := false, false
	for d := range a {
		if a[d] >= 0 && b[d] >= 0 {
			any = true
			ai[d], bi[d] = a[d], b[d]
			aP = aP || a[d] != 0
			bP = bP || b[d] != 0
		} else {
			ai[d], bi[d] = -1, -1
		}
	}
	if !any {
		return nil, false
	}
	switch {
	case !aP && !bP, aP && !bP:
		copy(out, ai)
	case !aP && bP:
		copy(out, bi)
	default:
		if slices.Equal(s.orderOf(ai), s.orderOf(bi)) {
			copy(out, ai)
		} else {
			for d := range out {
				if ai[d] >= 0 {
					out[d] = 0
				} else {
					out[d] = -1
				}
			}
		}
	}
	return out, true
}

// orderOf sorts supported devices by kernel priority, then device-type
// priority (DeviceSet::SortPrioritizedDeviceTypeVector).
func (s *sim) orderOf(prio []int) []int {
	var out []int
	for d := range prio {
		if prio[d] >= 0 {
			out = append(out, d)
		}
	}
	if len(out) == 2 && s.less(out[1], out[0], prio) {
		out[0], out[1] = out[1], out[0]
	}
	return out
}

func (s *sim) less(a, b int, prio []int) bool {
	if prio[a] != prio[b] {
		return prio[a] > prio[b]
	}
	pa, pb := typePriority(s.types[a]), typePriority(s.types[b])
	if pa != pb {
		return pa > pb
	}
	return s.devs[a] < s.devs[b]
}

// tensorListOps are the ops GetElementDataType knows (colocation_graph.cc:791-809).
var tensorListOps = map[string]bool{
	"TensorListReserve": true, "TensorListFromTensor": true, "EmptyTensorList": true,
	"TensorListSplit": true, "TensorListScatter": true, "TensorListScatterV2": true,
	"TensorListScatterIntoExistingList": true, "TensorListPushBack": true,
	"TensorListPushBackBatch": true, "TensorListPopBack": true, "TensorListStack": true,
	"TensorListConcat": true, "TensorListConcatV2": true, "TensorListGetItem": true,
	"TensorListSetItem": true, "TensorListGather": true, "TensorListConcatLists": true,
}

// hostOnlyVariants restricts groups of nodes whose variant inputs carry a
// TensorList of strings or resources to CPU, without soft placement
// (AddHostOnlyDataTypesConstraints, colocation_graph.cc:812-914; the legacy
// reverse-DFS path, memoised).
func (s *sim) hostOnlyVariants() {
	variantIn := s.special().variantIn
	if len(variantIn) == 0 {
		return
	}
	memo := make([]int8, len(s.nodes)) // 0 unknown, 1 host, 2 not host, 3 visiting/none
	var elem func(i int, depth int) int8
	elem = func(i int, depth int) int8 {
		if memo[i] != 0 {
			if memo[i] == 3 {
				return 0
			}
			return memo[i]
		}
		if depth > 10000 {
			return 0
		}
		memo[i] = 3
		p := s.nodes[i]
		if tensorListOps[p.op()] && p.look() != nil {
			if a, ok := p.look().Attrs["element_dtype"]; ok {
				et := a.GetType()
				if et != tpb.DataType_DT_INVALID && et != tpb.DataType_DT_VARIANT {
					r := int8(2)
					if hostType(et) {
						r = 1
					}
					memo[i] = r
					return r
				}
			}
		}
		for _, q := range s.inputs(p) {
			if q.n < 0 {
				continue
			}
			src := s.nodes[q.n]
			if int(q.port) < len(src.outTypes()) && src.outTypes()[q.port] == tpb.DataType_DT_VARIANT {
				if r := elem(int(q.n), depth+1); r != 0 {
					memo[i] = r
					return r
				}
			}
		}
		memo[i] = 3
		return 0
	}
	for _, i32 := range variantIn {
		i := int(i32)
		root := s.find(i)
		g := s.group(root)
		if g == nil || s.cpuOnly(s.prio(g)) {
			continue
		}
		if elem(i, 0) == 1 {
			if s.prio(g)[s.cpu] >= 0 {
				prio := s.ownPrio(g)
				for d := range prio {
					if d != s.cpu {
						prio[d] = -1
					}
				}
				g.hostOnly = true
				s.addReason(i, "CPU: carries a TensorList of strings or resources (host-only variant, colocation_graph.cc:812-911)")
			}
		}
	}
}

func (s *sim) cpuOnly(prio []int) bool {
	for d, p := range prio {
		if d != s.cpu && p >= 0 {
			return false
		}
	}
	return true
}
