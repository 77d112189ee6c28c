package placement

import (
	"sort"
	"strings"

	"github.com/tfscan/tfscan/tflog"
)

// Agreement compares a prediction with a log.
type Agreement struct {
	// Matched counts logged nodes found in the prediction; Agreed those on
	// the same kind of device (host vs accelerator).
	Matched, Agreed int
	// Unmatched are logged names tfscan did not place (sorted).
	Unmatched []string
	// Nodes are the matched nodes, disagreements first, then by name.
	Nodes []NodeAgreement
}

// NodeAgreement is one node's predicted and logged device.
type NodeAgreement struct {
	Name, Op, Predicted, Actual string
	Agree                       bool
}

// Compare matches the log's nodes to the prediction by node name (the
// graph name, or the name with the inlining prefix TF gives) and eager ops by
// op type. A log taken on the source GPU compares by device kind: CPU
// against any accelerator; the accelerator's type may differ from the
// target's.
func Compare(res *Result, log *tflog.Log) *Agreement {
	res.Materialize() // it reads every node's result
	a := &Agreement{}
	// A top-level node's log name is its path. A function body that
	// TensorFlow instantiates at run time logs its nodes by their own names,
	// without the caller, so such a name stands for every body node that
	// bears it: it is matched only when they all predict the same kind of
	// device, otherwise it is unmatched, not attributed to one of them.
	byPath := map[string]NodeResult{}
	type named struct {
		n     NodeResult
		mixed bool
	}
	byName := map[string]*named{}
	byOp := map[string][]NodeResult{}
	for _, n := range res.Nodes {
		path := n.Path
		if path == "" {
			path = n.Name
		}
		if _, ok := byPath[path]; !ok {
			byPath[path] = n
		}
		if path != n.Name {
			if c := byName[n.Name]; c == nil {
				byName[n.Name] = &named{n: n}
			} else if isCPUDev(c.n.Device) != isCPUDev(n.Device) {
				c.mixed = true
			}
		}
		byOp[n.Op] = append(byOp[n.Op], n)
	}
	lookup := func(name string) (NodeResult, bool) {
		if n, ok := byPath[name]; ok {
			return n, true
		}
		if c := byName[name]; c != nil && !c.mixed {
			return c.n, true
		}
		return NodeResult{}, false
	}
	last := map[string]tflog.Placement{}
	for _, e := range log.Placements {
		last[e.Name] = e
	}
	unmatched := map[string]bool{}
	for name, e := range last {
		n, ok := lookup(name)
		if !ok {
			// inlined nodes: "call/inner/name" → try the suffixes
			parts := strings.Split(name, "/")
			for k := 1; k < len(parts) && !ok; k++ {
				n, ok = lookup(strings.Join(parts[k:], "/"))
				if ok && n.Op != e.Op {
					ok = false
				}
			}
		}
		if !ok {
			unmatched[name] = true
			continue
		}
		na := NodeAgreement{Name: name, Op: e.Op, Predicted: n.Device, Actual: e.Device,
			Agree: isCPUDev(n.Device) == isCPUDev(e.Device)}
		a.Nodes = append(a.Nodes, na)
	}
	eager := map[string]tflog.Placement{}
	for _, e := range log.Eager {
		eager[e.Op] = e
	}
	for op, e := range eager {
		ns := byOp[op]
		if len(ns) == 0 {
			unmatched["eager "+op] = true
			continue
		}
		pred := ns[0].Device
		agree := true
		for _, n := range ns {
			if isCPUDev(n.Device) != isCPUDev(e.Device) {
				agree, pred = false, n.Device
			}
		}
		a.Nodes = append(a.Nodes, NodeAgreement{Name: "eager " + op, Op: op, Predicted: pred, Actual: e.Device, Agree: agree})
	}
	for _, n := range a.Nodes {
		a.Matched++
		if n.Agree {
			a.Agreed++
		}
	}
	for k := range unmatched {
		a.Unmatched = append(a.Unmatched, k)
	}
	sort.Strings(a.Unmatched)
	sort.Slice(a.Nodes, func(i, j int) bool {
		if a.Nodes[i].Agree != a.Nodes[j].Agree {
			return !a.Nodes[i].Agree
		}
		return a.Nodes[i].Name < a.Nodes[j].Name
	})
	return a
}

func isCPUDev(d string) bool { return strings.HasPrefix(strings.ToUpper(d), "CPU:") }
