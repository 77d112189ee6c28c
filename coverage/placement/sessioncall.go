package placement

import (
	"fmt"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// crossing is a resource or ref input of body node dst (input in) whose
// producer is outside the session-graph call (placement node call) that
// runs the body: a session's placer sees the call as one node, exempt from
// resource colocation (colocation_graph.cc:100-108, :772-781), and the body
// meets the resource only when the call runs, with its argument pinned to
// the resource's device (docs/placement.md#calls-in-a-session-graph).
type crossing struct{ dst, in, call int32 }

// noteCrossing records input i of p when it reached its producer through
// a session-graph call's argument (via > 0) and carries a resource or ref.
func (s *sim) noteCrossing(p *pnode, i int, via int32) {
	if via == 0 || i >= len(p.inTypes()) {
		return
	}
	if t := p.inTypes()[i]; t != tpb.DataType_DT_RESOURCE && !isRefType(t) {
		return
	}
	c := crossing{dst: p.idx, in: int32(i), call: via - 1}
	s.crossings = append(s.crossings, c)
	if s.crossAt == nil {
		s.crossAt = map[[2]int32]int32{}
	}
	s.crossAt[[2]int32{c.dst, c.in}] = c.call
}

// crossedCall is the session-graph call through which input in of node dst
// reads its resource, if it does.
func (s *sim) crossedCall(dst, in int32) (int, bool) {
	if s.crossAt == nil {
		return 0, false
	}
	call, ok := s.crossAt[[2]int32{dst, in}]
	return int(call), ok
}

// consumerDevice is the device of e's consumer as the placer sees it: a
// body node reading a resource through a session-graph call stands behind
// the call node, which the placer places on its own.
func (s *sim) consumerDevice(e outEdge) int {
	if !e.isCtrl() {
		if call, ok := s.crossedCall(e.dst, e.dstIn); ok {
			return s.callDevice(call)
		}
	}
	return int(s.dev[e.dst])
}

// callDevice is where the placer puts call node i by itself: its requested
// device type, else the default device, else the highest-priority device,
// since a call op has a kernel on every device.
func (s *sim) callDevice(i int) int {
	p := s.nodes[i]
	if p.req().typ != "" {
		for d, t := range s.types {
			if t == p.req().typ {
				return d
			}
		}
	}
	if p.dflt >= 0 {
		return s.device(int(p.dflt))
	}
	return s.tgt
}

// pinCallResourceUsers gives the body nodes that read a resource through a
// session-graph call the resource's device: the call pins the argument
// there (PinArgsAndRets, optimize_function_graph_utils.cc:294-457) and the
// body's placer colocates the readers with it (colocation_graph.cc:707-785).
// A reader with no kernel on that device fails when the call runs.
func (s *sim) pinCallResourceUsers() {
	move := map[int]int{} // group root → device
	why := map[int]string{}
	for _, c := range s.crossings {
		p := s.nodes[c.dst]
		if p.is(pGhost|pHost) || p.ghostOf >= 0 || c.in >= p.in.n {
			continue
		}
		src := int(s.inputs(p)[c.in].n)
		if src < 0 {
			continue
		}
		dp, dc := s.dev[src], s.dev[c.dst]
		if dp < 0 || dc < 0 || dp == dc {
			continue
		}
		root := s.find(int(c.dst))
		g := s.group(root)
		if g != nil && s.prio(g)[dp] >= 0 {
			if _, ok := move[root]; !ok {
				move[root] = int(dp)
				why[root] = fmt.Sprintf("%s: reads resource %s %s through call %s, whose argument is pinned to the resource's device (docs/placement.md#calls-in-a-session-graph)",
					s.devs[dp], s.nodes[src].op(), s.nodes[src].name(), s.nodes[c.call].name())
			}
			continue
		}
		msg := fmt.Sprintf("%s %s reads resource %s %s on %s through call %s and has no kernel there", p.op(), p.name(), s.nodes[src].op(), s.nodes[src].name(), s.devs[dp], s.nodes[c.call].name())
		s.warnings = append(s.warnings, "will fail at run time (a call's resource argument is pinned to the resource's device): "+msg)
		s.addReason(int(c.dst), "will fail at run time: "+msg+" (docs/placement.md#calls-in-a-session-graph)")
	}
	if len(move) == 0 {
		return
	}
	for i, p := range s.nodes {
		if p.is(pGhost|pHost) || p.ghostOf >= 0 || s.dev[i] < 0 {
			continue
		}
		root := s.find(i)
		if d, ok := move[root]; ok && int(s.dev[i]) != d {
			s.dev[i] = int8(d)
			s.prependReason(i, why[root])
		}
	}
}
