package graph

import (
	"strconv"
	"strings"

	"github.com/tfscan/tfscan/savedmodel"
)

// paths gives every node its stable, unique Path.
//
// A top-level node's path is its name. A function's nodes get the path of
// the function's first caller in a deterministic walk, then "/" + function
// name + "/" + node name. The walk visits, for each signature in key order,
// the top-level nodes that signature needs (in GraphDef order), with the
// signature key as a prefix; then the remaining top-level nodes in order;
// calls made inside a function are followed depth-first in body order. A
// function nobody calls gets "<function>/<node>".
func (b *builder) paths() {
	g := b.g
	for _, n := range g.Nodes[:g.TopLevel] {
		n.Path = n.Name
	}
	based := make(map[*Function]bool, len(g.Functions))
	// visit assigns paths to the functions callers call, depth-first.
	// prefix(n) is the caller path to use for a top-level caller.
	var stack []*Node
	visit := func(caller *Node, callerPath string) {
		stack = append(stack[:0], caller)
		paths := []string{callerPath}
		for len(stack) > 0 {
			n, p := stack[len(stack)-1], paths[len(paths)-1]
			stack, paths = stack[:len(stack)-1], paths[:len(paths)-1]
			// Push callees' nodes in reverse so that they pop in order.
			for ci := len(n.Calls) - 1; ci >= 0; ci-- {
				f := n.Calls[ci]
				if based[f] {
					continue
				}
				based[f] = true
				base := p + "/" + f.Name
				for _, fn := range f.Nodes {
					fn.Path = base + "/" + fn.Name
				}
				for i := len(f.Nodes) - 1; i >= 0; i-- {
					if len(f.Nodes[i].Calls) > 0 {
						stack = append(stack, f.Nodes[i])
						paths = append(paths, f.Nodes[i].Path)
					}
				}
			}
		}
	}
	if len(g.Functions) > 0 {
		for _, sig := range g.Signatures {
			need := b.topClosure(b.signatureRoots(sig, false))
			for _, n := range g.Nodes[:g.TopLevel] {
				if need[n.ID] && len(n.Calls) > 0 {
					visit(n, sig.Key+"/"+n.Name)
				}
			}
		}
		for _, n := range g.Nodes[:g.TopLevel] {
			if len(n.Calls) > 0 {
				visit(n, n.Name)
			}
		}
		for _, f := range g.Functions {
			if based[f] {
				continue
			}
			based[f] = true
			for _, fn := range f.Nodes {
				fn.Path = f.Name + "/" + fn.Name
			}
			for _, fn := range f.Nodes {
				if len(fn.Calls) > 0 {
					visit(fn, fn.Path)
				}
			}
		}
	}
	// Paths are unique by construction unless names collide (duplicate node
	// names, or a top-level name that spells out a function path); suffix
	// the later ones so that the promise holds.
	seen := make(map[string]bool, len(g.Nodes))
	for _, n := range g.Nodes {
		if !seen[n.Path] {
			seen[n.Path] = true
			continue
		}
		for k := 2; ; k++ {
			p := n.Path + "#" + strconv.Itoa(k)
			if !seen[p] {
				n.Path = p
				seen[p] = true
				break
			}
		}
	}
}

// signatureRoots returns the top-level nodes a signature's outputs name.
func (b *builder) signatureRoots(s *savedmodel.Signature, report bool) []*Node {
	var roots []*Node
	for _, ti := range s.Outputs {
		name := tensorNode(ti.Name)
		if name == "" {
			continue
		}
		if n := b.topByName[name]; n != nil {
			roots = append(roots, n)
		} else if report {
			b.diag("dangling_signature", s.Key, "signature %q output %q names tensor %q, which is not in the graph", s.Key, ti.Key, ti.Name)
		}
	}
	return roots
}

// tensorNode is the node part of a tensor name ("x:0" → "x", "^x" → "x").
func tensorNode(name string) string {
	name = strings.TrimPrefix(name, "^")
	if i := strings.LastIndexByte(name, ':'); i >= 0 {
		if _, err := strconv.Atoi(name[i+1:]); err == nil {
			name = name[:i]
		}
	}
	return name
}

// topClosure marks the top-level nodes roots need through data and control
// edges (indexed by Node.ID).
func (b *builder) topClosure(roots []*Node) []bool {
	need := make([]bool, b.g.TopLevel)
	stack := append([]*Node(nil), roots...)
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.Func != nil || need[n.ID] {
			continue
		}
		need[n.ID] = true
		for _, in := range n.Inputs {
			if in.Node != nil {
				stack = append(stack, in.Node)
			}
		}
		stack = append(stack, n.ControlInputs...)
	}
	return need
}
