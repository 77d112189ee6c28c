package placement

import (
	"fmt"
	"sort"
	"strings"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/dtype"
	"github.com/tfscan/tfscan/graph"
)

func isRefType(t tpb.DataType) bool { return dtype.IsRef(t) }

func typeList(ts []tpb.DataType) string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = dtype.Name(t)
	}
	return strings.Join(names, ", ")
}

// memTypes says, per input and output port, whether node i's kernel keeps
// the tensor in host memory on its device (MemoryTypesForNode,
// tensorflow/core/framework/memory_types.cc:82-175).
func (s *sim) memTypes(i, d int) (inHost, outHost []bool) {
	p := s.nodes[i]
	if d != s.cpu && !p.is(pIO) && s.deviceMemoryOnly(i, d) {
		return noHost(len(p.inTypes())), noHost(len(p.outTypes()))
	}
	inHost = make([]bool, len(p.inTypes()))
	outHost = make([]bool, len(p.outTypes()))
	if d == s.cpu || p.is(pIO) {
		for j := range inHost {
			inHost[j] = true
		}
		for j := range outHost {
			outHost[j] = true
		}
		return
	}
	var hm []string
	hasKernel := false
	if m := s.matchFor(i, d); m != nil {
		hm = m.HostMemory
		hasKernel = m.Kernel != nil
	}
	funcCall := callOps[p.op()] || p.op() == "While" || p.op() == "StatelessWhile" || p.op() == "SymbolicGradient"
	if p.op() == "_Arg" || p.op() == "_Retval" {
		hasKernel = true
	}
	for j, t := range p.inTypes() {
		inHost[j] = hostType(t) || (t == tpb.DataType_DT_INT32 && (!hasKernel || funcCall))
	}
	for j, t := range p.outTypes() {
		outHost[j] = hostType(t) || (t == tpb.DataType_DT_INT32 && (!hasKernel || funcCall))
	}
	if len(hm) > 0 {
		for _, name := range hm {
			if p.op() == "_Arg" || p.op() == "_Retval" {
				for j := range inHost {
					inHost[j] = true
				}
				for j := range outHost {
					outHost[j] = true
				}
				continue
			}
			s.markArg(p, name, inHost, outHost)
		}
	}
	if p.look() != nil {
		for _, k := range p.look().Attrs["_input_hostmem"].GetList().GetI() {
			if k >= 0 && int(k) < len(inHost) {
				inHost[k] = true
			}
		}
		for _, k := range p.look().Attrs["_output_hostmem"].GetList().GetI() {
			if k >= 0 && int(k) < len(outHost) {
				outHost[k] = true
			}
		}
	}
	return
}

// deviceMemoryOnly tells, before memTypes builds its lists, that none of
// node i's ports is in host memory on device d (not the CPU, not a feed):
// no host-memory arg in its kernel, no host or int32 type, no hostmem
// attr. Most nodes of a large model are such.
func (s *sim) deviceMemoryOnly(i, d int) bool {
	// The nodes of a lookup class have one op, OpDef and attr map, and on
	// a device whose matcher answers by those (classSafe) one match: the
	// answer is the class's (unless a what-if or auto mixed precision
	// changed the node's match or lookup node).
	slot := -1
	if s.whatIf == nil && s.flat != nil && s.flat.classOf[i] >= 0 && (!s.ownNodes || s.nodes[i].look() == s.flat.nodes[i].look()) && d < len(s.classSafe) && s.classSafe[d] {
		if s.devMemOnly == nil {
			s.devMemOnly = make([]int8, s.flat.classes*len(s.devs))
		}
		slot = int(s.flat.classOf[i])*len(s.devs) + d
		if v := s.devMemOnly[slot]; v != 0 {
			return v > 0
		}
	}
	v := s.deviceMemoryOnlyOf(i, d)
	if slot >= 0 {
		s.devMemOnly[slot] = -1
		if v {
			s.devMemOnly[slot] = 1
		}
	}
	return v
}

func (s *sim) deviceMemoryOnlyOf(i, d int) bool {
	p := s.nodes[i]
	if m := s.matchFor(i, d); m != nil && len(m.HostMemory) > 0 {
		return false
	}
	for _, ts := range [][]tpb.DataType{p.inTypes(), p.outTypes()} {
		for _, t := range ts {
			if hostType(t) || t == tpb.DataType_DT_INT32 {
				return false
			}
		}
	}
	if p.look() != nil {
		if _, ok := p.look().Attrs["_input_hostmem"]; ok {
			return false
		}
		if _, ok := p.look().Attrs["_output_hostmem"]; ok {
			return false
		}
	}
	return true
}

// noHostPorts is a shared list of false (no port in host memory); read
// it, never write it.
var noHostPorts = make([]bool, 64)

// noHost is n ports none of which is in host memory: shared up to 64.
func noHost(n int) []bool {
	if n <= len(noHostPorts) {
		return noHostPorts[:n:n]
	}
	return make([]bool, n)
}

func (s *sim) matchFor(i, d int) *coverage.Match {
	if s.whatIf != nil {
		if ms, ok := s.whatIf[i]; ok {
			if d < len(ms) {
				return &ms[d]
			}
			return nil
		}
	}
	return s.match(i, d)
}

// markArg expands a host_memory_arg name to port ranges through the OpDef
// (number_attr and type_list_attr, memory_types.cc:115-135).
func (s *sim) markArg(p *pnode, name string, inHost, outHost []bool) {
	if p.look() == nil || p.look().OpDef == nil {
		return
	}
	off := 0
	for _, a := range p.look().OpDef.GetInputArg() {
		n := argSize(p.look().Attrs, a.GetNumberAttr(), a.GetTypeListAttr())
		if a.GetName() == name {
			for k := off; k < off+n && k < len(inHost); k++ {
				inHost[k] = true
			}
			return
		}
		off += n
	}
	off = 0
	for _, a := range p.look().OpDef.GetOutputArg() {
		n := argSize(p.look().Attrs, a.GetNumberAttr(), a.GetTypeListAttr())
		if a.GetName() == name {
			for k := off; k < off+n && k < len(outHost); k++ {
				outHost[k] = true
			}
			return
		}
		off += n
	}
}

// xferKey deduplicates transfers like DupRecvKey (graph_partition.cc:59-78).
type xferKey struct {
	src, port, dst int
	dstHost, ctrl  bool
	io             bool
}

type xfer struct {
	key xferKey
	Transfer
	from, to int
	unit     int
	// counted: the producer and some consumer count (sim.counted).
	counted bool
}

// transfersTouching computes the transfers produced by every consumer of the
// given source ports, every input of the given nodes, and the control edges
// of the given nodes. With nil sets it computes all transfers.
func (s *sim) transfers(srcs map[int]bool) map[xferKey]*xfer {
	outs := s.outEdges()
	out := map[xferKey]*xfer{}
	// Memory types by node, read only: every port of a node on CPU (or
	// fed by the client) is in host memory, and those share one slice.
	var allHost []bool
	// The ports of a node on a device whose kernel keeps none in host
	// memory are nil (a port past the end is in device memory), told
	// without reading the node's types; the others are worked out at most
	// once a node: by index in pairs (plus one; 0 before, -1 for none in
	// host memory) when all transfers are computed, in a map when a few
	// are.
	var memo map[int][2][]bool
	var slot []int32
	var pairs [][2][]bool
	if srcs == nil {
		slot = s.opts.Scratch.lentInt32(lentSlots, len(s.nodes))
	} else {
		memo = map[int][2][]bool{}
	}
	// The nodes' flags are read where most nodes need nothing else: a
	// node is read when a transfer is made or its memory types are.
	fl := s.flat.opFlags()
	mem := func(i int) ([]bool, []bool) {
		d := int(s.dev[i])
		if d == s.cpu || fl[i]&flagIO != 0 {
			p := s.nodes[i]
			if n := max(len(p.inTypes()), len(p.outTypes())); len(allHost) < n {
				allHost = make([]bool, max(n, 64))
				for j := range allHost {
					allHost[j] = true
				}
			}
			return allHost[:len(p.inTypes()):len(p.inTypes())], allHost[:len(p.outTypes()):len(p.outTypes())]
		}
		if slot != nil {
			if k := slot[i]; k > 0 {
				m := &pairs[k-1]
				return m[0], m[1]
			} else if k < 0 {
				return nil, nil
			}
		} else if m, ok := memo[i]; ok {
			return m[0], m[1]
		}
		if s.deviceMemoryOnly(i, d) {
			if slot != nil {
				slot[i] = -1
			}
			return nil, nil
		}
		a, b := s.memTypes(i, d)
		if slot != nil {
			pairs = append(pairs, [2][]bool{a, b})
			slot[i] = int32(len(pairs))
		} else {
			memo[i] = [2][]bool{a, b}
		}
		return a, b
	}
	visit := func(si int) {
		if fl[si]&flagGhost != 0 || s.dev[si] < 0 {
			return
		}
		sd := int(s.dev[si])
		io := fl[si]&(flagIO|flagFed) != 0
		if io {
			sd = s.cpu
		}
		src := s.nodes[si]
		var srcOutHost []bool
		srcMem := false
		for _, e := range outs.Of(si) {
			dd := int(s.dev[e.dst])
			if dd < 0 || !e.isCtrl() && sd == dd && dd == s.cpu || fl[e.dst]&flagGhost != 0 {
				continue // unplaced, a ghost, or from the CPU to itself: no transfer
			}
			if e.isCtrl() {
				if sd == dd {
					continue
				}
				dst := s.nodes[e.dst]
				k := xferKey{src: si, port: -1, dst: dd, ctrl: true, io: io}
				if x, ok := out[k]; !ok {
					out[k] = &xfer{key: k, from: sd, to: dd, unit: dst.unit(), Transfer: Transfer{From: s.devs[sd], To: s.devs[dd],
						Src: s.label(src), Dst: s.label(dst), Kind: "control", BytesKnown: true, IO: io,
						PerIteration: src.frame != 0 && src.frame == dst.frame}, counted: s.counted(si) && s.counted(int(e.dst))}
				} else if !x.counted {
					x.counted = s.counted(si) && s.counted(int(e.dst))
				}
				continue
			}
			if !srcMem {
				srcMem = true
				if io {
					srcOutHost = make([]bool, len(src.outTypes()))
					for j := range srcOutHost {
						srcOutHost[j] = true
					}
				} else {
					_, srcOutHost = mem(si)
				}
			}
			sh := int(e.port) < len(srcOutHost) && srcOutHost[e.port]
			dh := true // every port of a node on the CPU
			if dd != s.cpu {
				dinHost, _ := mem(int(e.dst))
				dh = int(e.dstIn) < len(dinHost) && dinHost[e.dstIn]
			}
			kind := ""
			switch {
			case sd == dd:
				if dd == s.cpu || sh == dh {
					continue
				}
				kind = "same_device_h2d"
				if !sh {
					kind = "same_device_d2h"
				}
			case sd == s.cpu:
				kind = "h2d"
				if dh {
					kind = "host"
				}
			case dd == s.cpu:
				kind = "d2h"
				if sh {
					kind = "host"
				}
			default:
				kind = "d2d"
			}
			k := xferKey{src: si, port: int(e.port), dst: dd, dstHost: dh, io: io}
			if x, ok := out[k]; ok {
				if !x.counted {
					x.counted = s.counted(si) && s.counted(int(e.dst))
				}
				continue
			}
			dst := s.nodes[e.dst]
			x := &xfer{key: k, from: sd, to: dd, unit: dst.unit(), Transfer: Transfer{From: s.devs[sd], To: s.devs[dd],
				Src: fmt.Sprintf("%s:%d", s.label(src), e.port), Dst: s.label(dst), Kind: kind, IO: io,
				PerIteration: !io && src.frame != 0 && src.frame == dst.frame}, counted: s.counted(si) && s.counted(int(e.dst))}
			if kind == "host" {
				x.BytesKnown = true
			} else {
				x.Bytes, x.BytesKnown = s.bytesOf(pin{int32(si), e.port})
			}
			out[k] = x
		}
	}
	// quiet tells, of node si on a device other than the CPU and not a
	// feed, that it sends nothing: each consumer is on its device (a
	// control edge there is no transfer) and neither side keeps a port in
	// host memory. Most nodes of a model placed whole are such; quiet
	// tells so in one pass over their edges, before visit's bookkeeping.
	quiet := func(si int) bool {
		sd := int(s.dev[si])
		if sd == s.cpu || fl[si]&(flagIO|flagFed|flagGhost) != 0 || sd < 0 {
			return false
		}
		srcMem := false
		for _, e := range outs.Of(si) {
			dd := int(s.dev[e.dst])
			switch {
			case dd < 0 || fl[e.dst]&flagGhost != 0:
				continue // visit's too
			case dd != sd:
				return false
			case e.isCtrl():
				continue
			case fl[e.dst]&flagIO != 0:
				return false // every port in host memory (mem)
			}
			if !srcMem {
				if _, out := mem(si); out != nil {
					return false
				}
				srcMem = true
			}
			if in, _ := mem(int(e.dst)); in != nil {
				return false
			}
		}
		return true
	}
	if srcs == nil {
		for i := range s.nodes {
			if !quiet(i) {
				visit(i)
			}
		}
	} else {
		for i := range srcs {
			visit(i)
		}
	}
	// Fetches: results leave through the client CPU:0; a tensor an op on
	// CPU:0 already receives is not sent again (docs/placement.md#feeds-and-fetches).
	fetch := func(q pin, unitIdx int, name string) {
		if q.n < 0 || (srcs != nil && !srcs[int(q.n)]) {
			return
		}
		src := s.nodes[q.n]
		sd := int(s.dev[q.n])
		if src.is(pIO|pFed) || sd < 0 || sd == s.cpu {
			return
		}
		if _, ok := out[xferKey{src: int(q.n), port: int(q.port), dst: s.cpu, dstHost: true}]; ok {
			return
		}
		_, oh := mem(int(q.n))
		kind := "d2h"
		if int(q.port) < len(oh) && oh[q.port] {
			kind = "host"
		}
		k := xferKey{src: int(q.n), port: int(q.port), dst: s.cpu, dstHost: true, io: true}
		if _, ok := out[k]; ok {
			return
		}
		x := &xfer{key: k, from: sd, to: s.cpu, unit: unitIdx, Transfer: Transfer{From: s.devs[sd], To: s.devs[s.cpu],
			Src: fmt.Sprintf("%s:%d", s.label(src), q.port), Dst: "fetch " + name, Kind: kind, IO: true}, counted: s.counted(int(q.n))}
		if kind == "host" {
			x.BytesKnown = true
		} else {
			x.Bytes, x.BytesKnown = s.bytesOf(q)
		}
		out[k] = x
	}
	for _, f := range s.topFetches {
		fetch(s.resolve(f.ref), 0, f.name)
	}
	for _, i := range s.special().fetch {
		fetch(pin{i, 0}, s.nodes[i].unit(), s.nodes[i].name())
	}
	return out
}

// label names a placement node in results: its graph node's path, else
// its own.
func (s *sim) label(p *pnode) string {
	if p.src != nil {
		return s.path(p.src)
	}
	if p.x != nil && p.x.path != "" {
		return p.x.path
	}
	return p.name()
}

// countedUnit tells whether a unit's transfers count in the totals: the
// top-level graph when there is one, otherwise every function placed on
// its own.
func (s *sim) countedUnit(u int) bool {
	if len(s.units) > 0 && s.units[0].kind == unitTopLevel {
		return u == 0
	}
	return s.units[u].kind == unitFunction
}

// counted tells whether node i counts in the totals: its unit counts and
// Options.Count selects both its graph node and the top-level node it
// stands under.
func (s *sim) counted(i int) bool {
	p := s.nodes[i]
	if !s.countedUnit(p.unit()) {
		return false
	}
	if s.opts.Count == nil {
		return true
	}
	return (p.src == nil || s.opts.Count(p.src)) && (p.root() == nil || s.opts.Count(p.root()))
}

// countedXfer tells whether a transfer counts in the totals: a counted
// producer sends to at least one counted consumer.
func (s *sim) countedXfer(x *xfer) bool {
	return s.countedUnit(x.unit) && x.counted
}

// bytesOf is the size of the tensor at a port, when it can be told.
func (s *sim) bytesOf(q pin) (int64, bool) {
	for depth := 0; depth < 1000 && q.n >= 0; depth++ {
		p := s.nodes[q.n]
		if int(q.port) < len(p.outTypes()) {
			switch dtype.Base(p.outTypes()[q.port]) {
			case tpb.DataType_DT_RESOURCE:
				return 0, true
			case tpb.DataType_DT_STRING, tpb.DataType_DT_VARIANT:
				return 0, false
			}
		}
		if p.src != nil {
			t, ok := s.shapes.Output(p.src, int(q.port))
			if !ok {
				return 0, false
			}
			if int(q.port) < len(p.outTypes()) {
				t.DType = p.outTypes()[q.port] // AMP may have changed it
			}
			return t.Bytes()
		}
		if p.op() == "_Arg" && p.unit() < len(s.units) && s.units[p.unit()].fn != nil {
			fn := s.units[p.unit()].fn
			for k, a := range fn.Def.GetSignature().GetInputArg() {
				if a.GetName() == p.name() {
					return s.shapes.ArgBytes(fn, k)
				}
			}
			return 0, false
		}
		if p.op() == "LoopCond" {
			return 1, true
		}
		if !p.is(pPassthrough) || p.in.n == 0 {
			return 0, false
		}
		q = s.inputs(p)[0]
	}
	return 0, false
}

func sortTransfers(xs []*xfer) {
	sort.Slice(xs, func(a, b int) bool {
		ka, kb := xs[a].key, xs[b].key
		if ka.src != kb.src {
			return ka.src < kb.src
		}
		if ka.port != kb.port {
			return ka.port < kb.port
		}
		if ka.dst != kb.dst {
			return ka.dst < kb.dst
		}
		if ka.dstHost != kb.dstHost {
			return !ka.dstHost
		}
		if ka.io != kb.io {
			return !ka.io
		}
		return !ka.ctrl && kb.ctrl
	})
}

// path is gn.Path(), from Options.PathOf when the caller renders it.
func (s *sim) path(gn *graph.Node) string {
	if s.opts.PathOf != nil && gn.ID >= 0 && gn.ID < len(s.g.Nodes) && s.g.Nodes[gn.ID] == gn {
		if p := s.opts.PathOf(gn.ID); p != "" {
			return p
		}
	}
	return gn.Path()
}
