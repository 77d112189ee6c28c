package placement

import (
	"fmt"
	"slices"
	"strings"
)

// Device pins: a NodeDef's device field is a request the placer honours
// (colocation_graph.cc:1522-1538). Models exported on a CPU machine often
// keep "/job:localhost/replica:0/task:0/device:CPU:0" on their nodes, which
// holds them on CPU on any accelerator; TensorFlow's answer is an import
// with clear_devices=True (Options.ClearDevices).

// pinOf is the device field node p requests in this simulation: its own,
// parsed and not cleared; "" when it has none.
func (s *sim) pinOf(p *pnode) string {
	if !p.is(pDevField) || p.src == nil || p.is(pBadDevice) || p.src.Device == "" || s.cleared(p) {
		return ""
	}
	return p.src.Device
}

// pinAt is pinOf node i, told from the node's flags where it has no
// device field (most nodes), without reading the node.
func (s *sim) pinAt(i int) string {
	if s.flat.opFlags()[i]&flagDevField == 0 {
		return ""
	}
	return s.pinOf(s.nodes[i])
}

// cleared reports whether Options.ClearDevices dropped p's device field.
func (s *sim) cleared(p *pnode) bool {
	return s.opts.ClearDevices && p.src != nil && p.src.Func == nil && p.src.Device != ""
}

// pinDescription words why node i's group requests CPU: the node's own
// device field, or one it shares with its colocation group or inherits
// from an inlined caller.
func (s *sim) pinDescription(i int, g *group) string {
	p := s.nodes[i]
	if pin := s.pinOf(p); pin != "" {
		hint := ""
		if p.src.Func == nil {
			hint = " (an import with clear_devices=True drops it: --clear-devices)"
		}
		return fmt.Sprintf("pinned by its device field %q%s", pin, hint)
	}
	return "requested device " + s.req(g).String() + " (a device field in its colocation group or on its caller)"
}

// pinnedOnCPU reports whether node j sits on CPU because of a device
// request although the target has its kernel.
func (s *sim) pinnedOnCPU(j int) bool {
	if s.sup(j) == nil || s.sup(j)[s.tgt] < 0 || s.pinAt(j) == "" {
		return false
	}
	g := s.group(s.find(j))
	return g != nil && s.req(g).hasType() && s.req(g).typ == s.types[s.cpu] && s.prio(g)[s.tgt] >= 0
}

// pinCause sums the pins that hold an island's nodes on CPU, e.g. "97
// node(s) pinned to CPU by their device field
// "/job:localhost/replica:0/task:0/device:CPU:0"", and how many nodes that is.
func (s *sim) pinCause(nodes []int) (string, int) {
	byDev := map[string]int{}
	n, top := 0, true
	for _, j := range nodes {
		if s.pinnedOnCPU(j) {
			byDev[s.pinAt(j)]++
			n++
			top = top && s.nodes[j].src.Func == nil
		}
	}
	if n == 0 {
		return "", 0
	}
	devs := make([]string, 0, len(byDev))
	for d := range byDev {
		devs = append(devs, d)
	}
	slices.Sort(devs)
	parts := make([]string, len(devs))
	for i, d := range devs {
		parts[i] = fmt.Sprintf("%d node(s) pinned to CPU by their device field %q", byDev[d], d)
	}
	cause := strings.Join(parts, "; ")
	if top {
		cause += " (an import with clear_devices=True drops these pins: --clear-devices)"
	}
	return cause, n
}

// countPins fills the cleared device fields of a result and, with pins,
// its pin counts: the counted nodes (see Options.Count) whose node result
// names a requested device.
func (s *sim) countPins(r *Result, pins bool) {
	r.PinnedDevices = map[string]int{}
	// Over the placed nodes, as their NodeResult.RequestedDevice says
	// (Result.Nodes may be lazy).
	for id := range s.g.Nodes {
		if !pins {
			break
		}
		if i, ok := s.placedAt(id); ok {
			if req := s.pinAt(i); req != "" && s.counted(i) {
				r.PinnedNodes++
				r.PinnedDevices[req]++
			}
		}
	}
	if s.opts.ClearDevices {
		for _, n := range s.g.Nodes[:min(s.g.TopLevel, len(s.g.Nodes))] {
			if n.Device != "" {
				r.ClearedDevices++
			}
		}
	}
}
