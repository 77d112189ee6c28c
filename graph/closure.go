package graph

// Closure returns the nodes that roots need through data and control
// inputs, taking every node of each called function's body (a coarser walk
// than Reachable, which follows a function's returns; use it where "could
// this run" is the question, e.g. the saver's nodes).
func Closure(roots []*Node) map[*Node]bool {
	seen := map[*Node]bool{}
	seenFn := map[*Function]bool{}
	stack := append([]*Node(nil), roots...)
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[n] {
			continue
		}
		seen[n] = true
		for _, in := range n.Inputs {
			if in.Node != nil {
				stack = append(stack, in.Node)
			}
		}
		stack = append(stack, n.ControlInputs()...)
		for _, f := range n.Calls() {
			if !seenFn[f] {
				seenFn[f] = true
				stack = append(stack, f.Nodes...)
			}
		}
	}
	return seen
}
