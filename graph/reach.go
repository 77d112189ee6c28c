package graph

import (
	"slices"
	"strings"
)

// reachability sets Node.Reachable.
//
// With signatures, the roots are the nodes their outputs name. Without any
// (a frozen GraphDef, a TF.js model), the roots are the top-level sinks —
// nodes nothing consumes — because such a file does not say what is fetched
// and TensorFlow's own tools (freeze_graph, the TF.js converter) keep only
// what some output needs. From the roots the walk follows data and control
// inputs and, at every node that calls functions, the nodes each function's
// returns and control returns need. Function arguments lead back to the
// caller, whose inputs are already followed. Training and saver nodes that
// no signature output needs are counted but stay unreachable.
func (b *builder) reachability() {
	g := b.g
	var roots []*Node
	if len(g.Signatures) > 0 {
		for _, sig := range g.Signatures {
			roots = append(roots, b.signatureRoots(sig, true)...)
		}
	} else {
		for i, n := range g.Nodes[:g.TopLevel] {
			if len(g.edges.Of(i)) == 0 {
				roots = append(roots, n)
			}
		}
	}
	g.reachRoots, g.reached = roots, true
	entered := make(map[*Function]bool)
	stack := slices.Clone(roots)
	reached := 0
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.Reachable {
			continue
		}
		n.Reachable = true
		reached++
		for _, in := range n.Inputs {
			if in.Node != nil && !in.Node.Reachable {
				stack = append(stack, in.Node)
			}
		}
		for _, c := range n.ControlInputs() {
			if !c.Reachable {
				stack = append(stack, c)
			}
		}
		for _, f := range n.Calls() {
			if entered[f] {
				continue // also what stops recursion
			}
			entered[f] = true
			stack = append(stack, f.returns...)
		}
	}
	g.reachable = reached
}

// returnNodes are the body nodes a function's ret and control_ret name,
// byName indexing its body.
func returnNodes(f *Function, byName map[string]*Node) []*Node {
	var out []*Node
	sig := f.Def.GetSignature()
	for _, a := range sig.GetOutputArg() {
		ref, ok := f.Def.GetRet()[a.GetName()]
		if !ok {
			continue
		}
		name, _, _ := strings.Cut(ref, ":")
		if n := byName[name]; n != nil && strings.Contains(ref, ":") {
			out = append(out, n)
		}
	}
	for _, name := range sig.GetControlOutput() {
		if n := byName[f.Def.GetControlRet()[name]]; n != nil {
			out = append(out, n)
		}
	}
	return out
}

// unknownOps reports nodes whose op no registry knows and no function names.
func (b *builder) unknownOps() {
	for _, n := range b.unknown {
		p := n.Path()
		b.diag("unknown_op", p, "op %q of node %q is in no op registry (a custom op?)", n.Op, p)
	}
}
