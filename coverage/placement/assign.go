package placement

import (
	"fmt"
	"iter"
	"slices"
	"sort"
	"strings"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/internal/lastfew"
)

// isGenerator: no data inputs, one non-ref output (placer.cc:115-118).
func (p *pnode) isGenerator() bool {
	return p.in.n == 0 && p.oneValueOut()
}

// oneValueOut: one output, not a ref.
func (p *pnode) oneValueOut() bool {
	return len(p.outTypes()) == 1 && !isRefType(p.outTypes()[0])
}

// isMetadata: Shape, Size and Rank (graph.cc:79-81).
func (p *pnode) isMetadata() bool {
	return p.op() == "Shape" || p.op() == "Size" || p.op() == "Rank"
}

// assignAll runs the placer's two passes (placer.cc:186-331) unit by unit.
func (s *sim) assignAll() {
	s.dev = s.opts.Scratch.lentInt8(lentDev, len(s.nodes))
	for i := range s.dev {
		s.dev[i] = -1
	}
	for ui, u := range s.units {
		end := len(s.nodes)
		if ui+1 < len(s.units) {
			end = s.units[ui+1].first
		}
		s.assignNodes(between(u.first, end))
	}
	s.pinCallResourceUsers()
	for i, f := range s.flat.opFlags() {
		if f&flagGhost != 0 {
			s.dev[i] = int8(s.ghostDevice(i))
		}
	}
}

// between is lo, lo+1, ..., hi-1.
func between(lo, hi int) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := lo; i < hi && yield(i); i++ {
		}
	}
}

// assignNodes places the given nodes (ascending ids of one unit, or the
// region of a what-if); all other nodes keep their devices.
func (s *sim) assignNodes(idx iter.Seq[int]) {
	second := s.opts.Scratch.spareInt32(lentGenerators) // the generators, placed after the others
	if n := s.flat.generatorCount(); cap(second) < n {
		// Made to size: grown by append, a graph whose generators are a
		// good part of its nodes (its constants) would copy them a few
		// times over.
		second = make([]int32, 0, n)
	}
	kinds := s.placeKinds()
	// The outcomes of the plain nodes alone in their groups (alone), by
	// row of lookups and default device, which decide them.
	var outcomes lastfew.Cache[aloneKey, aloneOutcome]
	for i := range idx {
		// A plain node (placeKinds) is none of the first three cases.
		plain := kinds != nil && kinds[i]&kindPlain != 0
		if !plain {
			p := s.nodes[i]
			if p.is(pGhost) {
				continue
			}
			if p.is(pHost) || p.ghostOf >= 0 || p.assigned == -2 {
				s.assignSingle(i)
				continue
			}
			if p.assigned >= 0 {
				s.place(i, s.device(int(p.assigned)), s.pinnedReason(p))
				continue
			}
		}
		fl := s.flags(i)
		if fl&flagGenerator != 0 {
			second = append(second, int32(i))
			continue
		}
		alone := plain && fl&flagMetadata == 0 && s.alone(i)
		var ak aloneKey
		if alone {
			ak = aloneKey{row: s.rowOf[i], dflt: s.gslab[i].dflt}
			if o, ok := outcomes.Get(ak); ok {
				s.placeAsBefore(i, o)
				continue
			}
		}
		cands := s.candidatesOrFail(i)
		d, why := cands[0], ""
		if p := s.nodes[i]; fl&flagMetadata != 0 && p.in.n > 0 && s.inputs(p)[0].n >= 0 {
			src := s.inputs(p)[0].n
			if sd := s.dev[src]; sd >= 0 && contains(cands, int(sd)) {
				d, why = int(sd), fmt.Sprintf("metadata op follows its input %s %s (placer.cc:257-271)", s.nodes[src].op(), s.nodes[src].name())
			}
		}
		// Neither in a host nor in a single-device body: the placer's (place).
		s.placeBy(i, d, s.describe(i, d, cands, why), true)
		if alone {
			if o, ok := s.outcome(i, d); ok {
				outcomes.Put(ak, o)
			}
		}
	}
	outs := s.outEdges()
	// The outcomes of the generators alone in their groups, by what
	// decides them besides (generatorKey).
	var followed lastfew.Cache[generatorKey, aloneOutcome]
	fls := s.flat.opFlags()
	for _, i32 := range second {
		i := int(i32)
		od := -1 // the device of every consumer, when they have one
		if es := outs.Of(i); len(es) > 0 {
			od = s.consumerDevice(es[0])
			for _, e := range es[1:] {
				if s.consumerDevice(e) != od {
					od = -1
					break
				}
			}
		}
		alone := kinds != nil && kinds[i]&kindPlain != 0 && s.alone(i)
		var gk generatorKey
		if alone {
			gk = generatorKey{aloneKey{row: s.rowOf[i], dflt: s.gslab[i].dflt}, int8(od), fls[i]&flagDevField != 0}
			if o, ok := followed.Get(gk); ok {
				s.placeAsBefore(i, o)
				continue
			}
		}
		d := s.placeGenerator(i, od)
		if alone {
			if o, ok := s.outcome(i, d); ok {
				followed.Put(gk, o)
			}
		}
	}
	s.opts.Scratch.keepInt32(lentGenerators, second)
}

// outcome is where node i, alone in its group, went (device d), for
// nodes decided alike to take (placeAsBefore); false when its group has no
// candidates to give or failed.
func (s *sim) outcome(i, d int) (aloneOutcome, bool) {
	g := &s.gslab[i]
	return aloneOutcome{dev: int8(d), cands: g.cands, reasons: s.reasons[i]}, g.cands >= 0 && !g.failed
}

// placeAsBefore places node i, alone in its group, as o says an earlier
// node decided alike went: its device, its group's candidates and its
// reasons.
func (s *sim) placeAsBefore(i int, o aloneOutcome) {
	g := &s.gslab[i]
	s.dev[i], s.reasons[i] = int8(o.dev), o.reasons
	g.pinned, g.cands = o.dev, o.cands
}

// placeGenerator places generator i, whose consumers are all on device od
// (-1: none, or not all on one), and returns its device: od where its
// group may go there (placer.cc:296-311), else the placer's choice.
func (s *sim) placeGenerator(i, od int) int {
	cands := s.candidatesOrFail(i)
	d := cands[0]
	if od >= 0 && contains(cands, od) {
		d = od
		// A generator its own device field pins had no choice: the pin
		// is the reason.
		if len(cands) > 1 || s.pinAt(i) == "" {
			s.placeBy(i, d, s.generatorFollows(d), true)
			return d
		}
	}
	s.placeBy(i, d, s.describe(i, d, cands, ""), true)
	return d
}

// alone tells that node i, a plain node, is its group's only member with
// the group as colocate made it: its priorities its row's (a merge gives
// the group its own), no device assigned, pinned or requested, no
// failure, no reason yet. Its candidates, device and reasons then follow
// from its row of lookups and its default device (aloneKey), as
// candidates and describe work them out.
func (s *sim) alone(i int) bool {
	if int(s.parent[i]) != i {
		return false
	}
	g := &s.gslab[i]
	return g.live && g.prio == int32(i) && g.pinned < 0 && g.assigned < 0 && !g.failed && !g.hostOnly && g.rq == 0 && s.reasons[i] == 0
}

// aloneKey is what decides where a node alone in its group goes (alone).
type aloneKey struct {
	row  int32
	dflt int8
}

// generatorKey is what decides where a generator alone in its group goes
// (placeGenerator): what decides an alone node's place, the device all its
// consumers are on (-1: none, or not one) and whether its own device
// field may pin it (pinAt).
type generatorKey struct {
	aloneKey
	consumers int8
	devField  bool
}

// aloneOutcome is where a node alone in its group went: its device, its
// group's candidates and its reasons.
type aloneOutcome struct {
	dev, cands int8
	reasons    int32
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func (s *sim) pinnedReason(p *pnode) string {
	d := s.devs[s.device(int(p.assigned))]
	if p.note() != "" {
		return d + ": " + p.note()
	}
	return d + ": assigned before placement"
}

// assignSingle places a node of a single-device body: no placer runs there
// (function.cc:930-951), a missing kernel fails at kernel creation.
func (s *sim) assignSingle(i int) {
	p := s.nodes[i]
	d := s.cpu
	if !p.is(pHost) && p.ghostOf >= 0 {
		d = int(s.dev[p.ghostOf])
		if d < 0 {
			d = s.cpu
		}
	}
	why := p.singleWhy()
	if p.op() == "_Arg" || p.op() == "_Retval" || s.sup(i) == nil || s.sup(i)[d] >= 0 {
		s.place(i, d, s.devs[d]+": "+why)
		return
	}
	msg := fmt.Sprintf("No registered '%s' OpKernel for '%s' devices compatible with node {{node %s}}", p.op(), s.types[d], p.name())
	s.warnings = append(s.warnings, "will fail at run time (no soft placement inside functional op bodies): "+msg)
	s.place(i, d, s.devs[d]+": "+why+"; will fail at run time: "+msg)
}

// place assigns node i to device d and pins its group (AssignAndLog,
// placer.cc:141-151).
func (s *sim) place(i, d int, reason string) {
	s.placeBy(i, d, reason, !s.nodes[i].is(pHost) && s.nodes[i].ghostOf < 0)
}

// placeBy is place for a node the placer places (placer: neither in a
// host nor in a single-device body), which pins its group: the generators
// of assignNodes' second pass are, and are placed without reading their
// nodes again.
func (s *sim) placeBy(i, d int, reason string, placer bool) {
	s.dev[i] = int8(d)
	if reason != "" {
		// First: the reason the node is placed where it is.
		s.prependReason(i, reason)
	}
	if g := s.group(s.find(i)); g != nil && placer && !g.failed && g.pinned < 0 {
		g.pinned = int8(d)
	}
}

func (s *sim) ghostDevice(i int) int {
	p := s.nodes[i]
	for _, a := range p.alias() {
		if q := s.resolve(a); q.n >= 0 && s.dev[q.n] >= 0 {
			return int(s.dev[q.n])
		}
	}
	return s.callDevice(i)
}

// candidatesOrFail returns the group's candidate devices; on a placement
// error it records TF's message and falls back to what soft placement
// would pick, so that the simulation can go on.
func (s *sim) candidatesOrFail(i int) []int {
	c, err := s.candidates(i)
	if err == nil {
		return c
	}
	p := s.nodes[i]
	g := s.group(s.find(i))
	msg := fmt.Sprintf("Cannot assign a device for operation %s: %s", p.name(), err.Error())
	if !g.failed {
		// TF stops at the first error; later members of the group would
		// fail the same way.
		s.addErr(msg)
		g.failed = true
	}
	s.addReason(i, "TensorFlow fails here: "+msg)
	var out []int
	for d := range s.devs {
		if s.prio(g)[d] >= 0 {
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		out = []int{s.cpu}
	}
	s.sortCands(out, g)
	return out
}

// candidates computes a group's possible devices (GetDevicesForNode,
// colocation_graph.cc:1231-1365).
func (s *sim) candidates(i int) ([]int, error) {
	root := s.find(i)
	g := s.group(root)
	p := s.nodes[i]
	// An assigned group (a pre-assigned member, or one the placer already
	// placed) keeps that device: AssignDevice merges it into the requested
	// and assigned names (colocation_graph.cc Member::AssignDevice), and soft
	// placement never relaxes an assigned type (583-605).
	a := g.pinned
	if a < 0 {
		a = g.assigned
	}
	if a >= 0 {
		if s.prio(g)[a] >= 0 {
			return s.candLists[s.internCands([]int{int(a)})], nil
		}
		return nil, s.explicitError(p, g, int(a))
	}
	if g.cands >= 0 {
		return s.candLists[g.cands], nil
	}
	prio := s.prio(g)
	filter := func(spec devSpec) []int {
		out := s.candBuf[:0]
		for d, t := range s.types {
			if spec.matchesLocal(t) && prio[d] >= 0 {
				out = append(out, d)
			}
		}
		s.candBuf = out
		return out
	}
	var out []int
	if g.rq != 0 { // a request (specID 0 is none), read only then: a devSpec is 64 bytes
		req := s.req(g)
		out = filter(req)
		if len(out) == 0 && s.soft {
			// GetSoftDeviceCandidates (colocation_graph.cc:1173-1222):
			// first drop type and id unless an assigned or resource device
			// fixes them (GetPreferredSoftDeviceName, 595-605), then
			// unless an assigned one does (GetSoftDeviceName, 583-593),
			// which moves resources. Job, replica and task never relax.
			asg := s.assignedSpec(g)
			res := s.resSpec(g)
			soft := req.relax(asg.hasType() || res.hasType(), asg.hasID() || res.hasID())
			out = filter(soft)
			if len(out) == 0 {
				out = filter(req.relax(asg.hasType(), asg.hasID()))
				if len(out) > 0 {
					s.warnings = append(s.warnings, fmt.Sprintf("Failed to place the graph without changing the devices of some resources. Some of the operations (that had to be colocated with resource generating operations) are not supported on the resources' devices. (group of %s %s)", p.op(), p.name()))
				}
			}
			if len(out) > 0 {
				s.addReason(i, s.ignored(req))
			}
		}
		if len(out) == 0 {
			return nil, s.explicitError(p, g, -1)
		}
	} else {
		// A group without a request has the candidates of its device
		// priorities and default device: most groups have the few
		// same ones, tried among the last found.
		var k candKey
		if len(s.devs) == 2 {
			k = candKey{prio: [2]int{prio[0], prio[1]}, dflt: g.dflt, ok: true}
			for _, r := range s.recentCands {
				if r.ok && r.candKey == k {
					g.cands = r.cands
					return s.candLists[g.cands], nil
				}
			}
		}
		out = filter(devSpec{})
		if len(out) == 0 {
			return nil, fmt.Errorf("Node had no OpKernel registered to support this operation: Operation was %s and inputs were [%s].", p.op(), typeList(p.inTypes()))
		}
		s.sortCands(out, g)
		g.cands = s.internCands(out)
		if k.ok {
			s.recentCands[s.nextCands] = recentCand{candKey: k, cands: g.cands}
			s.nextCands = (s.nextCands + 1) % len(s.recentCands)
		}
		return s.candLists[g.cands], nil
	}
	s.sortCands(out, g)
	g.cands = s.internCands(out)
	return s.candLists[g.cands], nil
}

// candKey is what a group without a request on two devices has its
// candidates by (candidates): its devices' priorities and its default
// device; ok marks a key in use.
type candKey struct {
	prio [2]int
	dflt int8
	ok   bool
}

type recentCand struct {
	candKey
	cands int8
}

// internCands is the index in candLists of the simulation's one copy of
// the device list c: the lists are few and read only, and a graph has a
// group for most of its nodes. A list holds each of a simulation's
// devices at most once, in some order, and a simulation has at most
// maxDevs devices: four lists at most, which a group's int8 holds.
func (s *sim) internCands(c []int) int8 {
	for k, l := range s.candLists {
		if slices.Equal(l, c) {
			return int8(k)
		}
	}
	s.candLists = append(s.candLists, slices.Clone(c))
	return int8(len(s.candLists) - 1)
}

// sortCands orders candidates: default device first, then kernel priority,
// then device-type priority, then name (device_set.cc:116-140).
func (s *sim) sortCands(out []int, g *group) {
	prio := s.prio(g)
	less := func(da, db int) bool {
		if g.dflt >= 0 && (da == int(g.dflt)) != (db == int(g.dflt)) {
			return da == int(g.dflt)
		}
		return s.less(da, db, prio)
	}
	// A stable insertion sort: there are as many candidates as devices
	// (two), and sort.SliceStable costs an allocation per node.
	for k := 1; k < len(out); k++ {
		for j := k; j > 0 && less(out[j], out[j-1]); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
}

// sortedDevices lists the full device names sorted, as the "available
// devices" of colocation_graph.cc:1291-1296.
func (s *sim) sortedDevices() string {
	names := make([]string, len(s.devs))
	for i, d := range s.devs {
		names[i] = fullName(d)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// setDevices lists the full device names in the device set's order: a
// session adds the CPU devices first (device_factory.cc:229-234).
func (s *sim) setDevices() string {
	names := []string{fullName(s.devs[s.cpu])}
	if s.tgt != s.cpu {
		names = append(names, fullName(s.devs[s.tgt]))
	}
	return strings.Join(names, ", ")
}

// explicitError words the error of an unsatisfiable request
// (colocation_graph.cc:1271-1340). TF appends the group's Colocation Debug
// Info (a dump of its union-find state) to these messages; tfscan leaves
// it out.
func (s *sim) explicitError(p *pnode, g *group, assigned int) error {
	own := p.req()
	greq := s.req(g)
	if assigned >= 0 {
		// A placed group's request holds its assigned device
		// (Member::AssignDevice).
		greq = greq.specialize(localSpec(s.types[assigned]))
	}
	if !p.is(pBadDevice) && own.sameAs(greq) {
		exists := false
		for _, t := range s.types {
			exists = exists || own.matchesLocal(t)
		}
		switch {
		case !exists:
			gpu := ""
			if strings.EqualFold(own.typ, "gpu") && s.types[s.tgt] != "GPU" {
				gpu = " The requested device appears to be a GPU, but CUDA is not enabled."
			}
			return fmt.Errorf("{{node %s}} was explicitly assigned to %s but available devices are [ %s ]. Make sure the device specification refers to a valid device.%s",
				p.name(), own.raw, s.sortedDevices(), gpu)
		case own.hasType():
			return fmt.Errorf("Could not satisfy explicit device specification '%s' because no supported kernel for %s devices is available.\nOp: %s\nNode attrs: %s\nRegistered kernels:\n%s",
				own.raw, own.typ, p.op(), attrString(p), strings.TrimSuffix(s.registeredKernels(p.op()), "\n"))
		default:
			// sic: TF prints no closing quote here (colocation_graph.cc:1319-1321).
			return fmt.Errorf("Could not satisfy explicit device specification '%s", own.raw)
		}
	}
	return fmt.Errorf("Could not satisfy explicit device specification '%s' because the node {{colocation_node %s}} was colocated with a group of nodes that required incompatible device '%s'. All available devices [%s].",
		own.raw, p.name(), greq, s.setDevices())
}

// says is "DEVICE: what", made once per device and text: most nodes of
// a model go to their device for one of a few reasons.
func (s *sim) says(d int, what string) string {
	k := saysKey{d, what}
	if v, ok := s.said[k]; ok {
		return v
	}
	if s.said == nil {
		s.said = map[saysKey]string{}
	}
	v := s.devs[d] + ": " + what
	s.said[k] = v
	return v
}

// kernelOn is "a kernel on the device's own type" (and it is the group's
// default device), in says's words, made once per device.
func (s *sim) kernelOn(d int, dflt bool) string {
	if s.kernelTexts == nil {
		s.kernelTexts = make([][2]string, len(s.devs))
		for e, t := range s.types {
			s.kernelTexts[e] = [2]string{s.says(e, "kernel on "+t), s.says(e, "kernel on "+t+", the default device")}
		}
	}
	if dflt {
		return s.kernelTexts[d][1]
	}
	return s.kernelTexts[d][0]
}

// generatorFollows is describe's words for a generator placed with its
// consumers on device d, made once per device.
func (s *sim) generatorFollows(d int) string {
	if s.generatorWhy == nil {
		s.generatorWhy = make([]string, len(s.devs))
	}
	if s.generatorWhy[d] == "" {
		s.generatorWhy[d] = s.says(d, "generator follows its consumers (placer.cc:296-311)")
	}
	return s.generatorWhy[d]
}

type saysKey struct {
	d    int
	what string
}

// loweredKey is what the reason of a node covered in a lower precision
// says (lowered).
type loweredKey struct {
	d      int
	to     string
	inputs bool
}

// lowered is the reason of a node covered on device d in the lower
// precision to (its inputs alone when inputs), made once per device and
// precision: most nodes of a model a precision mode lowers give it.
func (s *sim) lowered(d int, to string, inputs bool) string {
	k := loweredKey{d, to, inputs}
	if v, ok := s.loweredSaid[k]; ok {
		return v
	}
	if s.loweredSaid == nil {
		s.loweredSaid = map[loweredKey]string{}
	}
	how := "computed in " + to
	if inputs {
		how = "inputs in " + to + ", output float32"
	}
	v := s.devs[d] + ": " + s.types[d] + " kernel " + how + " under the stack's precision mode"
	s.loweredSaid[k] = v
	return v
}

// describe words why node i went to device d.
func (s *sim) describe(i, d int, cands []int, why string) string {
	dn := s.devs[d]
	if why != "" {
		return s.says(d, why)
	}
	g := s.group(s.find(i))
	if d == s.tgt && s.tgt != s.cpu {
		m := s.match(i, d)
		switch m.Reason {
		case coverage.ReasonCoveredDefault:
			return dn + ": DEFAULT kernel on " + s.types[d] + " (op_kernel.cc:1419-1452)"
		case coverage.ReasonFunctionCall:
			return dn + ": function call, supported on every device"
		case coverage.ReasonCoveredLowerPrecision:
			return s.lowered(d, m.Lowered, m.LoweredInputs)
		case coverage.ReasonPrecisionModeError:
			return dn + ": partitioned onto " + s.types[d] + " by op name, where its compiler rejects it: " + m.StackError
		}
		return s.kernelOn(d, int(g.dflt) == d && len(cands) > 1)
	}
	if s.tgt == s.cpu {
		return s.says(d, "the only device")
	}
	// CPU while a target exists.
	tm := *s.match(i, s.tgt)
	switch {
	case s.sup(i)[s.tgt] < 0:
		return s.says(d, missingWhy(tm, s.types[s.tgt]))
	case g.hostOnly:
		return s.says(d, "group limited to CPU (host-only variant)")
	case s.prio(g)[s.tgt] < 0 && g.lacks >= 0 && int(g.lacks) != i:
		c := s.nodes[g.lacks]
		via := s.mergeNote[i]
		if via == "" {
			via = "its colocation group"
		}
		return fmt.Sprintf("%s: colocated with %s %s (%s) through %s", dn, c.op(), c.name(), missingWhy(*s.match(int(g.lacks), s.tgt), s.types[s.tgt]), via)
	case s.req(g).typ == "CPU" && s.req(g).hasType():
		return dn + ": " + s.pinDescription(i, g)
	case int(g.dflt) == d:
		return s.says(d, "the default device")
	case s.prio(g)[d] > s.prio(g)[s.tgt]:
		return fmt.Sprintf("%s: CPU kernel priority %d beats %s priority %d (op_kernel.cc:1586-1591)", dn, s.prio(g)[d], s.types[s.tgt], s.prio(g)[s.tgt])
	}
	return s.says(d, "first candidate")
}

func missingWhy(m coverage.Match, typ string) string {
	switch m.Reason {
	case coverage.ReasonNoKernelForDType:
		if len(m.Supported) > 0 {
			return fmt.Sprintf("no kernel on %s for these dtypes; supported: %s", typ, strings.Join(m.Supported, "; "))
		}
		return "no kernel on " + typ + " for these dtypes"
	case coverage.ReasonLabelMismatch:
		return "no kernel on " + typ + " with this _kernel label"
	case coverage.ReasonUnknownOp:
		return "unknown op: assumed to need its own library, CPU only"
	case coverage.ReasonOpNewerThanStack:
		return "op newer than the TensorFlow " + typ + "'s stack ships: no device there has it (placed on CPU as TF 2.15 would)"
	}
	return "no kernel on " + typ
}

// fixControlFlow applies OptimizeControlFlowColocation
// (graph_partition.cc:359-398) before partitioning.
func (s *sim) fixControlFlow() {
	outs := s.outEdges()
	for _, i32 := range s.special().ctrlFlow {
		i, p := int(i32), s.nodes[i32]
		nd := -1
		switch p.op() {
		case "Switch", "RefSwitch", "Exit", "RefExit":
			if q := s.inputs(p)[0]; q.n >= 0 {
				nd = int(s.dev[q.n])
			}
		case "Enter", "NextIteration":
			for _, e := range outs.Of(i) {
				if !e.isCtrl() {
					nd = int(s.dev[e.dst])
					break
				}
			}
		}
		if nd >= 0 && nd != int(s.dev[i]) {
			s.dev[i] = int8(nd)
			s.prependReason(i, s.devs[nd]+": moved by OptimizeControlFlowColocation (graph_partition.cc:359-398)")
		}
	}
}

// reasonsOf is node i's reasons, read only: a list may be many nodes'.
func (s *sim) reasonsOf(i int) []string {
	return s.reasonLists[s.reasons[i]]
}

// newReasons keeps the list rs and is its index.
func (s *sim) newReasons(rs []string) int32 {
	s.reasonLists = append(s.reasonLists, rs[:len(rs):len(rs)])
	return int32(len(s.reasonLists) - 1)
}

// reasonEdit is a list of reasons made from another (base) by adding one
// reason at its end or, first, at its start. Nodes that go the same way
// (every node whose ignored request soft placement then places) share
// the list it makes.
type reasonEdit struct {
	base  int32
	r     string
	first bool
}

// edit is the list e makes, made once.
func (s *sim) edit(e reasonEdit) int32 {
	// Nodes one after the other often give the same few reasons.
	for j := range s.recentEdits {
		if r := &s.recentEdits[j]; r.k > 0 && r.e == e {
			return r.k
		}
	}
	k, ok := s.edits[e]
	if !ok {
		k = s.newEdit(e)
	}
	r := &s.recentEdits[s.nextRecent]
	r.e, r.k = e, k
	s.nextRecent = (s.nextRecent + 1) % len(s.recentEdits)
	return k
}

// newEdit makes the list e makes.
func (s *sim) newEdit(e reasonEdit) int32 {
	if s.edits == nil {
		s.edits = map[reasonEdit]int32{}
	}
	base := s.reasonLists[e.base]
	rs := make([]string, 0, len(base)+1)
	if e.first {
		rs = append(append(rs, e.r), base...)
	} else {
		rs = append(append(rs, base...), e.r)
	}
	k := s.newReasons(rs)
	s.edits[e] = k
	return k
}

// addReason appends r to node i's reasons.
func (s *sim) addReason(i int, r string) {
	s.reasons[i] = s.edit(reasonEdit{base: s.reasons[i], r: r})
}

// prependReason puts r first among node i's reasons.
func (s *sim) prependReason(i int, r string) {
	s.reasons[i] = s.edit(reasonEdit{base: s.reasons[i], r: r, first: true})
}

// ignored is the reason soft placement gives for a request it drops, made
// once per request. The map is keyed by the request without its raw text,
// which the message does not show: building the text for every group that
// drops a request costs more than the rest of its candidates.
func (s *sim) ignored(req devSpec) string {
	k := req
	k.raw = ""
	if m, ok := s.ignoredMsg[k]; ok {
		return m
	}
	if s.ignoredMsg == nil {
		s.ignoredMsg = map[devSpec]string{}
	}
	m := fmt.Sprintf("soft placement ignored the requested device %s (colocation_graph.cc:1173-1222)", k)
	s.ignoredMsg[k] = m
	return m
}
