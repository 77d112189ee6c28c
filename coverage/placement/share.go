package placement

import (
	"errors"
	"reflect"
	"slices"
	"strings"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/internal/lastfew"
)

// Sharing the flattened graph between the simulations of one scan.
//
// What build makes of a graph (the placement nodes, their resolved
// inputs, instances, units, while frames, fetches and out edges) depends
// on the graph and on a few options (flatKey), not on the target, with
// three exceptions, kept apart so that the flattened graph can be built
// once and read by every later simulation:
//
//   - device indices: a placement node's default and pre-assigned devices
//     (pnode.dflt, pnode.assigned) are device roles (roleTarget, roleCPU),
//     which each simulation maps to its own device indices (sim.device):
//     the CPU is device 1 beside an accelerator and device 0 alone;
//   - the function device (Options.FunctionDevice) resolves against the
//     target's type: the role it resolves to is part of the key;
//   - the device of a function's resource argument asks the target's
//     matcher (resourceArgDevice): build records those arguments
//     (flattened.resArgs) and each simulation places them itself (bind).
//
// Besides the graph, the flattening groups the nodes whose kernel lookups
// are alike (lookup classes: one op and attr map), so that a simulation
// looks each class up once on a device whose matcher answers by op and
// attrs; and the Scratch keeps the CPU's lookups of every node
// (cpuLookups), the same for every target whose CPU matcher is the same.
//
// A simulation never writes to a shared placement node: what it changes
// (the resource arguments; auto mixed precision's lookup node) it changes
// in its own copy of the node (sim.own), in its own list of nodes. The
// nodes' input and control slices, their extras, the instances and the
// units are read-only once built. Copying every node into each simulation
// instead would cost 47 MB of nodes for the 210,000-node model, most of a
// build's cost again; moving every target-dependent field out of pnode
// would make every reader of a node's op and dtypes look auto mixed
// precision's node up apart.

// Device roles, as the flattened graph records devices.
const (
	roleTarget = 0
	roleCPU    = 1
)

// device is the simulation's device index for a role (negative values,
// "none" and "the caller's", pass through).
func (s *sim) device(role int) int {
	switch role {
	case roleTarget:
		return s.tgt
	case roleCPU:
		return s.cpu
	}
	return role
}

// functionRole is the role of the default device of functions placed on
// their own (Options.FunctionDevice; "" is the target), -1 when the
// machine has no device of that type.
func (s *sim) functionRole() int {
	switch fd := strings.ToUpper(s.opts.FunctionDevice); fd {
	case "":
		return roleTarget
	case "CPU":
		return roleCPU
	case s.types[s.tgt]:
		return roleTarget
	}
	return -1
}

// flatKey is what, besides the graph, shapes the flattened graph.
type flatKey struct {
	clearDevices bool
	signature    string
	fetches      []graph.Tensor
	// hasFetches tells Options.Fetches nil from empty.
	hasFetches bool
	fnRole     int
}

func (s *sim) flatKey() flatKey {
	return flatKey{clearDevices: s.opts.ClearDevices, signature: s.opts.Signature,
		fetches: s.opts.Fetches, hasFetches: s.opts.Fetches != nil, fnRole: s.functionRole()}
}

func (k flatKey) equal(o flatKey) bool {
	return k.clearDevices == o.clearDevices && k.signature == o.signature && k.hasFetches == o.hasFetches &&
		k.fnRole == o.fnRole && slices.Equal(k.fetches, o.fetches)
}

// flattened is a graph as build leaves it, for every simulation of that
// graph with the same key (read-only once made).
type flattened struct {
	g     *graph.Graph
	key   flatKey
	nodes []*pnode
	links
	units      []*unit
	firstOf    []int32
	topFetches []fetchRef
	outs       edges
	warnings   []string
	resArgs    []resArg
	crossings  []crossing
	crossAt    map[[2]int32]int32
	// classOf is each node's lookup class, -1 for none; classes counts
	// them (classer).
	classOf []int32
	classes int
	// withClass are the nodes whose graph node has a _class attr, made
	// once (classed).
	withClass []int32
	// flags are each node's opFlags, made once; generators counts the
	// nodes flagged flagGenerator; kinds are their placeKindOf.
	flags      []uint8
	generators int
	kinds      []uint8
	// special are the nodes some walks act on (sim.special), found once,
	// with flags and withClass (walk).
	special *special
}

// Flags of a flattened node (opFlags): what its op tells, then what it
// is (ghost, io, fed: the same in a simulation's own copy of the node).
const (
	flagGenerator = 1 << iota
	flagMetadata
	flagSystem // _Arg or _Retval
	flagGhost
	flagIO
	flagFed
	flagDevField // pnode.devField
)

// opFlags are what each node's op and types tell the placer (isGenerator,
// isMetadata, a system kernel), worked out once for every simulation that
// shares the graph: each would read every node's graph node again. A
// simulation's own copy of a node (auto mixed precision's lookup node)
// asks the node itself (sim.flags).
func (f *flattened) opFlags() []uint8 {
	f.walk()
	return f.flags
}

// A plain node is one the colocation and the placer need read nothing of
// but its default device: no ghost, neither in a host nor in a
// single-device body, not assigned, requesting no device, its device
// field parsed. Most nodes are plain: their walks then read a byte a node
// (placeKinds) rather than the node.
const (
	kindRole  = 3 // the default device's role plus one (0: none)
	kindPlain = 4
)

// placeKindOf is node p's placeKinds entry: kindPlain with its default
// device's role, or 0.
func placeKindOf(p *pnode) uint8 {
	if p.is(pGhost|pHost|pBadDevice) || p.ghostOf >= 0 || p.assigned != -1 || p.rq != nil && !p.rq.empty() || p.dflt < -1 || p.dflt > roleCPU {
		return 0
	}
	return kindPlain | uint8(p.dflt+1)
}

// placeKinds are the nodes' placeKindOf, made once with opFlags; nil
// where the simulation has nodes of its own (sim.own), whose placement
// may differ from the shared node's.
func (s *sim) placeKinds() []uint8 {
	if s.ownNodes {
		return nil
	}
	s.flat.walk()
	return s.flat.kinds
}

// plainRole is the role of the default device of a node of kind k.
func plainRole(k uint8) int { return int(k&kindRole) - 1 }

// generatorCount is how many nodes opFlags flags flagGenerator.
func (f *flattened) generatorCount() int {
	f.walk()
	return f.generators
}

// opFlagsOf are node p's opFlags.
func opFlagsOf(p *pnode) uint8 {
	b := nodeFlagsOf(p)
	if p.look() != nil {
		if p.isGenerator() {
			b |= flagGenerator
		}
		if p.isMetadata() {
			b |= flagMetadata
		}
		if op := p.op(); op == "_Arg" || op == "_Retval" {
			b |= flagSystem
		}
	}
	return b
}

// nodeFlagsOf are the flags of what node p is.
func nodeFlagsOf(p *pnode) uint8 {
	var b uint8
	if p.is(pGhost) {
		b |= flagGhost
	}
	if p.is(pIO) {
		b |= flagIO
	}
	if p.is(pFed) {
		b |= flagFed
	}
	if p.is(pDevField) {
		b |= flagDevField
	}
	return b
}

// flags are node i's opFlags: the flattened graph's, unless the
// simulation's own copy of the node looks another node up.
func (s *sim) flags(i int) uint8 {
	if s.ownNodes {
		if p := s.nodes[i]; p != s.flat.nodes[i] && p.look() != s.flat.nodes[i].look() {
			return opFlagsOf(p)
		}
	}
	return s.flat.opFlags()[i]
}

// classed are the nodes whose graph node has a _class attr: the only
// ones colocateClasses reads (classRefs), found by one walk of the graph
// for every simulation that shares it. A simulation's own copy of a node
// has its graph node.
func (f *flattened) classed() []int32 {
	f.walk()
	return f.withClass
}

// walk finds, in one walk of the nodes, the special nodes, the op flags
// and the nodes with a _class attr (findSpecial).
func (f *flattened) walk() *special {
	if f.special == nil {
		f.special = findSpecial(f.nodes, &f.links, f.crossAt, f.firstOf, f.classOf, f.classes, f)
	}
	return f.special
}

// resArg is a resource argument of a function placed on its own: node pn
// stands for argument i of f.
type resArg struct {
	pn int
	f  *graph.Function
	i  int
}

// flatten gives the simulation the flattened graph (shared) and places
// what in it depends on the target (adopt).
func (s *sim) flatten() error {
	f, err := s.shared()
	if err != nil {
		return err
	}
	s.adopt(f)
	return nil
}

// shared is the flattened graph: the one the Scratch holds when it was
// made of the same graph with the same key, else a new one, which the
// Scratch then keeps.
func (s *sim) shared() (*flattened, error) {
	key := s.flatKey()
	sc := s.opts.Scratch
	if sc != nil && sc.flat != nil && sc.flat.g == s.g && sc.flat.key.equal(key) {
		return sc.flat, nil
	}
	if sc != nil {
		// Its nodes live in the slabs the new build clears.
		sc.flat = nil
	}
	if err := s.build(); err != nil {
		return nil, err
	}
	f := &flattened{g: s.g, key: key, nodes: s.nodes, links: s.links, units: s.units, firstOf: s.firstOf,
		topFetches: s.topFetches, outs: s.outEdges(), warnings: slices.Clip(s.warnings), resArgs: s.resArgs,
		crossings: s.crossings, crossAt: s.crossAt}
	f.classOf, f.classes = s.classOf, s.classes
	f.flags, f.kinds = flatArray[uint8](sc, len(f.nodes)), flatArray[uint8](sc, len(f.nodes)) // filled by walk
	if sc != nil {
		sc.flat = f
	}
	return f, nil
}

// adopt makes f the simulation's graph and places what in it depends on
// the target (bind).
func (s *sim) adopt(f *flattened) {
	s.flat = f
	s.nodes, s.links, s.units, s.firstOf, s.topFetches, s.outs = f.nodes, f.links, f.units, f.firstOf, f.topFetches, f.outs
	s.warnings = slices.Clone(f.warnings)
	s.resArgs = f.resArgs
	s.crossings, s.crossAt = f.crossings, f.crossAt
	s.ownNodes = false
	s.bind()
}

// bind places the resource arguments of functions placed on their own,
// which ask the target's matcher.
func (s *sim) bind() {
	for _, a := range s.resArgs {
		p, x := s.ownExtra(a.pn)
		d, note := s.resourceArgDevice(a.f, a.i)
		p.assigned, x.note = int8(d), note
	}
}

// ownExtra is node i and its extra as the simulation may change them:
// its own copy of the node (own), which shares the shared node's extra,
// given a copy of that extra (a new one where it has none).
func (s *sim) ownExtra(i int) (*pnode, *pextra) {
	p := s.own(i)
	var x pextra
	if p.x != nil {
		x = *p.x
	}
	p.x = &x
	return p, &x
}

// own is node i as the simulation may change it: its own copy of the
// shared node, made on the first call.
func (s *sim) own(i int) *pnode {
	if !s.ownNodes {
		s.nodes = slices.Clone(s.nodes)
		s.ownNodes = true
	}
	if s.nodes[i] == s.flat.nodes[i] {
		p := *s.nodes[i]
		s.nodes[i] = &p
	}
	return s.nodes[i]
}

// Prepare computes into sc what the simulations of g with opts share, as
// the first simulation lent sc does: the flattened graph, with what its
// walks find once (walk), and the CPU's kernel lookups (the latter when cpu
// has a lookup identity, see IdentifiedMatcher). A caller that wants its
// cost apart from the simulations' (a benchmark) prepares ahead, and one
// that runs simulations at the same time (Beside) must. The flattened
// graph is Flatten's when sc holds one of g with the same options.
func (sc *Scratch) Prepare(g *graph.Graph, target, cpu coverage.Matcher, opts Options) error {
	if g == nil || target == nil || cpu == nil {
		return errors.New("placement: a graph, a target and a CPU matcher are needed")
	}
	opts.Scratch = sc
	s := newSim(g, target, cpu, opts)
	if err := s.flatten(); err != nil {
		return err
	}
	s.flat.walk()
	s.cpuLookups()
	return nil
}

// Flatten computes into sc the flattened graph of Prepare, with what its
// walks find, but not the CPU's lookups: it asks no matcher for a kernel
// and reads only the target's device type (the function device resolves
// against it), so a caller whose matchers are not ready yet (a scan's,
// which key the nodes first) flattens the graph meanwhile, and Prepare
// then finds it made.
func (sc *Scratch) Flatten(g *graph.Graph, target coverage.Matcher, opts Options) error {
	if g == nil || target == nil {
		return errors.New("placement: a graph and a target matcher are needed")
	}
	opts.Scratch = sc
	f, err := newSim(g, target, noLookups{}, opts).shared()
	if err != nil {
		return err
	}
	f.walk()
	return nil
}

// noLookups is the CPU as Flatten sees it: a device type, whose kernels
// flattening never looks up.
type noLookups struct{}

func (noLookups) DeviceType() string { return "CPU" }

func (noLookups) Match(*graph.Node) coverage.Match {
	panic("placement: flattening looked a kernel up")
}

// Beside is a Scratch for a simulation that runs at the same time as the
// one lent sc: it reads the flattened graph and CPU lookups sc holds, which
// no simulation changes once Prepare has made them, and lends arrays of
// its own. A simulation whose graph or options another flattened graph
// serves builds that one in the new Scratch.
// The first one given is the one Reserve made ready, if any.
func (sc *Scratch) Beside() *Scratch {
	b := sc.beside
	if b == nil {
		b = &Scratch{}
	}
	sc.beside = nil
	b.flat, b.cpu = sc.flat, sc.cpu
	return b
}

// classer puts nodes, met in order, in lookup classes: the nodes whose
// kernel lookups a matcher over a coverage.Index answers alike
// (classSafe), nodes whose attrs are one map (graph.Build, and the decoder
// before it, hand the nodes whose attrs are alike one map, across ops too)
// and whose op, OpDef and whether they call functions are alike. A node
// alone in its class is in none (-1), and so are inlined calls and lowered
// ops (no lookup) and _Arg and _Retval (system kernels). The build meets
// every node once when it resolves its inputs (resolveAll) and classes it
// there, while the node is read anyway.
type classer struct {
	nodes []*pnode
	// classOf is each node's class while they are met: the first node of
	// its class, -1 for none; size counts each first node's class.
	classOf, size []int32
	// The first node of each attr map, and of each op of a map that
	// other ops share; a layer's few maps come together, and the last few
	// are tried before the map.
	first      map[uintptr]int32 // grown as maps are met: most graphs' nodes share a few
	recent     lastfew.Cache[uintptr, int32]
	firstOfOp  map[mapOp]int32
	recentOfOp lastfew.Cache[mapOp, int32] // the last few of firstOfOp's: a layer's ops share its maps
}

// mapOp is an attr map and an op of the nodes that share it.
type mapOp struct {
	attrs uintptr
	op    string
}

// newClasser is a classer of nodes, every one of which its add meets.
func newClasser(sc *Scratch, nodes []*pnode) *classer {
	return &classer{nodes: nodes, classOf: flatArray[int32](sc, len(nodes)), size: flatArray[int32](sc, len(nodes)),
		first: map[uintptr]int32{}}
}

// alike tells nodes whose lookups are one: op, OpDef and whether they call
// functions.
func alike(a, b *graph.Node) bool {
	return a.Op == b.Op && a.OpDef == b.OpDef && (len(a.Calls()) > 0) == (len(b.Calls()) > 0)
}

// add meets node i, p.
func (c *classer) add(i int, p *pnode) {
	c.classOf[i] = -1
	if p.is(pGhost) || p.look() == nil || p.look().Attrs == nil || p.op() == "_Arg" || p.op() == "_Retval" {
		return
	}
	k := graph.AttrsID(p.look().Attrs)
	f, ok := c.recent.Get(k)
	if !ok {
		if f, ok = c.first[k]; !ok {
			c.first[k] = int32(i)
			f = int32(i)
		}
		c.recent.Put(k, f)
	}
	if !alike(c.nodes[f].look(), p.look()) {
		if c.firstOfOp == nil {
			c.firstOfOp = map[mapOp]int32{}
		}
		ko := mapOp{k, p.op()}
		if f, ok = c.recentOfOp.Get(ko); !ok {
			if f, ok = c.firstOfOp[ko]; !ok {
				c.firstOfOp[ko] = int32(i)
				f = int32(i)
			}
			c.recentOfOp.Put(ko, f)
		}
		if !alike(c.nodes[f].look(), p.look()) {
			return
		}
	}
	c.classOf[i] = f
	c.size[f]++
}

// classes numbers the classes of two or more nodes, once every node is
// met: each node's class, -1 for none, and how many there are.
func (c *classer) classes() ([]int32, int) {
	num := c.size // reused: a group's number, by its first node
	n := int32(0)
	for i, k := range c.size {
		num[i] = -1
		if k > 1 {
			num[i] = n
			n++
		}
	}
	for i, f := range c.classOf {
		if f >= 0 {
			c.classOf[i] = num[f]
		}
	}
	return c.classOf, int(n)
}

// classSafe tells that m looks a node up by its op, OpDef, attrs and
// whether it calls functions, so that the nodes of a lookup class match
// alike: a coverage.Index (Index.Match), or a matcher that answers as one
// (IdentifiedMatcher).
func classSafe(m coverage.Matcher) bool {
	if x, ok := m.(IdentifiedMatcher); ok {
		m, _ = x.LookupIdentity().(*coverage.Index)
	}
	ix, ok := m.(*coverage.Index)
	return ok && ix != nil
}

// KeyedMatcher is a Matcher that tells which nodes it answers alike:
// nodes of one LookupKey (ok) get one Match. A scan's matchers key the
// nodes by the attrs its indexes constrain, so that nodes whose attr maps
// differ only in attrs no kernel constrains (every Const's value: a lookup
// class of its own) are looked up once.
type KeyedMatcher interface {
	coverage.Matcher
	LookupKey(n *graph.Node) (key int, ok bool)
}

// IdentifiedMatcher is a Matcher that answers every lookup as the matcher
// LookupIdentity (a comparable value) names does: a wrapper that only
// answers faster, as a scan's matchers over one coverage.Index. The CPU's
// kernel lookups are the same for every target of a scan: simulations
// lent one Scratch share them when their CPU matchers are the same
// pointer or name the same identity (other matchers share nothing).
type IdentifiedMatcher interface {
	coverage.Matcher
	LookupIdentity() any
}

// matcherID is m's lookup identity: the one it names, else m itself when
// it is a pointer; nil for none.
func matcherID(m coverage.Matcher) any {
	var id any = m
	if x, ok := m.(IdentifiedMatcher); ok {
		id = x.LookupIdentity()
	} else if reflect.ValueOf(m).Kind() != reflect.Pointer {
		return nil
	}
	if id == nil || !reflect.TypeOf(id).Comparable() {
		return nil
	}
	return id
}

// cpuLookups are the CPU's kernel lookups of a flattened graph's nodes
// (their lookup nodes as flattened, before auto mixed precision gives a
// node its own), made with a CPU matcher of identity id.
type cpuLookups struct {
	flat *flattened
	id   any
	tab  []coverage.Match
	// idx is each node's lookup in tab, -1 for none (ghosts; _Arg and
	// _Retval, whose kernels are the system's).
	idx []int32
}

// cpuLookups are the shared CPU lookups that apply to the simulation,
// made and kept in its Scratch when it has none that apply; nil without a
// Scratch or a lookup identity.
func (s *sim) cpuLookups() *cpuLookups {
	sc, m := s.opts.Scratch, s.matchers[s.cpu]
	id := matcherID(m)
	if sc == nil || id == nil {
		return nil
	}
	if c := sc.cpu; c != nil && c.flat == s.flat && c.id == id {
		return c
	}
	c := &cpuLookups{flat: s.flat, id: id, idx: flatArray[int32](sc, len(s.flat.nodes))}
	var mt matchTable
	// Each lookup class's match, -1 before its first lookup, when m
	// answers alike for a class.
	var byClass []int32
	if classSafe(m) {
		byClass = filled(s.flat.classes, -1)
	}
	// The flags tell a ghost or a system node without reading its graph
	// node, which most nodes, answered by their class, need not.
	fl := s.flat.opFlags()
	for i, p := range s.flat.nodes {
		c.idx[i] = -1
		if fl[i]&(flagGhost|flagSystem) != 0 {
			continue
		}
		cl := s.flat.classOf[i]
		if byClass != nil && cl >= 0 && byClass[cl] >= 0 {
			c.idx[i] = byClass[cl]
			continue
		}
		r := m.Match(p.look())
		c.idx[i] = mt.add(&r)
		if byClass != nil && cl >= 0 {
			byClass[cl] = c.idx[i]
		}
	}
	c.tab = mt.tab
	sc.cpu = c
	return c
}
