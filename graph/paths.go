package graph

import (
	"hash/maphash"
	"sort"
	"strconv"
	"strings"

	"github.com/tfscan/tfscan/savedmodel"
)

// Path is the node's stable, unique name: signature → call chain → node,
// e.g. "serving_default/StatefulPartitionedCall/__inference_call_123/conv2d/Conv2D".
//
// Paths are not stored: a function's nodes share their caller's prefix
// through Function.caller, so that a chain of 10,000 nested calls costs
// 10,000 pointers rather than 10,000 strings of growing length. Each call
// renders the string; render it once per node where it is used more than
// once (sorting, map keys). A node that Build did not make has its name as
// path, prefixed by its function's name when it has one.
//
// A node more than maxPathCalls calls deep gets a shortened path: the first
// pathHeadCalls calls, one segment "…(N calls)…" for the N calls left out,
// then the last pathTailCalls calls, e.g.
// "serving_default/StatefulPartitionedCall/__inference_call_0/…/…(9992 calls)…/__inference_call_9999/mul".
// The reports list every node by path, and the full paths of a chain of N
// nested calls add up to O(N²) bytes (2 GiB for 10,000); shortened, every
// path is bounded by the length of the names in it, the report stays
// linear in the model, and the path stays unique, since it ends with the
// node's own function and name. No model of TensorFlow's own nests calls
// that deep (Keras models nest a handful), so real paths are never
// shortened; "…" and spaces cannot occur in a TensorFlow node name.
func (n *Node) Path() string {
	if n.Func == nil && n.dup <= 1 {
		return n.Name // a top-level node's path is its name
	}
	return string(n.AppendPath(nil))
}

// Path shortening (see Node.Path).
const (
	maxPathCalls  = 16
	pathHeadCalls = 4
	pathTailCalls = 4
)

// omitted is the segment that stands for n calls left out of a path.
func omitted(n int32) string { return "…(" + strconv.Itoa(int(n)) + " calls)…" }

// AppendPath appends n.Path() to dst.
func (n *Node) AppendPath(dst []byte) []byte {
	return appendDup(appendBarePath(dst, n), n)
}

// appendDup appends n's "#k" suffix, if it has one (a renamed duplicate).
func appendDup(dst []byte, n *Node) []byte {
	if n.dup > 1 {
		dst = append(dst, '#')
		dst = strconv.AppendInt(dst, int64(n.dup), 10)
	}
	return dst
}

// A PathAppender appends nodes' paths as Node.AppendPath does, rendering
// what a function's nodes share before their names (their caller's path
// and the function's name) once for a run of nodes of one function, as a
// body's nodes come in the graph's order. The zero value is ready.
type PathAppender struct {
	fn     *Function
	prefix []byte // fn's nodes' paths before their names, "/" included
}

// AppendPath appends n.Path() to dst.
func (a *PathAppender) AppendPath(dst []byte, n *Node) []byte {
	if n.Func == nil {
		return n.AppendPath(dst)
	}
	if n.Func != a.fn || a.prefix == nil {
		// A node's path ends with its name (pathSegments emits it
		// first); what is before it depends on its function alone.
		bare := appendBarePath(a.prefix[:0], n)
		a.fn, a.prefix = n.Func, bare[:len(bare)-len(n.Name)]
	}
	dst = append(dst, a.prefix...)
	return appendDup(append(dst, n.Name...), n)
}

// pathSegments calls emit with the segments of n's path before any "#k"
// suffix, last segment first. A caller's "#k" suffix is not part of its
// callees' prefix.
func pathSegments(n *Node, emit func(string)) {
	m := n
	if f := n.Func; f != nil && f.depth > maxPathCalls {
		for i := 0; i < pathTailCalls; i++ {
			emit(m.Name)
			emit(m.Func.Name)
			m = m.Func.caller
		}
		emit(omitted(f.depth - pathHeadCalls - pathTailCalls))
		m = f.head.caller
	}
	for {
		emit(m.Name)
		f := m.Func
		if f == nil {
			return
		}
		emit(f.Name)
		c := f.caller
		if c == nil {
			return
		}
		if f.viaSig {
			emit(c.Name)
			emit(f.sig)
			return
		}
		m = c
	}
}

// setCaller makes c the node whose path prefixes f's nodes (nil: f's name
// starts them) and sets f's call depth and, below pathHeadCalls calls, its
// ancestor one call below the part of the path that is kept.
func setCaller(f *Function, c *Node) {
	f.caller, f.depth = c, 1
	if c != nil && c.Func != nil {
		f.depth = c.Func.depth + 1
	}
	switch {
	case f.depth == pathHeadCalls+1:
		f.head = f
	case f.depth > pathHeadCalls+1:
		f.head = c.Func.head
	}
}

// appendBarePath appends n's path without the "#k" suffix, filling the
// segments from the end so that the walk allocates nothing.
func appendBarePath(dst []byte, n *Node) []byte {
	size := -1
	pathSegments(n, func(s string) { size += 1 + len(s) })
	start := len(dst)
	dst = append(dst, make([]byte, size)...)
	end := len(dst)
	pathSegments(n, func(s string) {
		end -= len(s)
		copy(dst[end:], s)
		if end > start {
			end--
			dst[end] = '/'
		}
	})
	return dst
}

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
	based := make(map[*Function]bool, len(g.Functions))
	// visit gives the functions that root calls, and those their nodes
	// call, their caller, depth-first. sig prefixes a top-level root's
	// name when viaSig.
	var stack []*Node
	visit := func(root *Node, sig string, viaSig bool) {
		stack = append(stack[:0], root)
		for len(stack) > 0 {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			// Push callees' nodes in reverse so that they pop in order.
			for ci := len(n.Calls()) - 1; ci >= 0; ci-- {
				f := n.Calls()[ci]
				if based[f] {
					continue
				}
				based[f] = true
				setCaller(f, n)
				if n == root && viaSig {
					f.sig, f.viaSig = sig, true
				}
				for i := len(f.Nodes) - 1; i >= 0; i-- {
					if len(f.Nodes[i].Calls()) > 0 {
						stack = append(stack, f.Nodes[i])
					}
				}
			}
		}
	}
	if len(g.Functions) > 0 {
		for _, sig := range g.Signatures {
			need := b.topClosure(b.signatureRoots(sig, false))
			for _, n := range g.Nodes[:g.TopLevel] {
				if need[n.ID] && len(n.Calls()) > 0 {
					visit(n, sig.Key, true)
				}
			}
		}
		for _, n := range g.Nodes[:g.TopLevel] {
			if len(n.Calls()) > 0 {
				visit(n, "", false)
			}
		}
		for _, f := range g.Functions {
			if based[f] {
				continue
			}
			based[f] = true
			setCaller(f, nil)
			for _, fn := range f.Nodes {
				if len(fn.Calls()) > 0 {
					visit(fn, "", false)
				}
			}
		}
	}
	b.dedupePaths()
}

// dedupePaths makes paths unique where names collide (duplicate node names,
// or a top-level name that spells out a function path): the later node, in
// Node.ID order, gets the first free "#k" suffix, k ≥ 2. Paths are hashed,
// not kept: only on equal hashes are the two paths rendered and compared.
func (b *builder) dedupePaths() {
	if !b.plain && b.pathsUnique() {
		return
	}
	g := b.g
	seed := maphash.MakeSeed()
	// owner maps a path's hash to the node holding that path; more holds
	// the rare further nodes whose different paths have the same hash.
	owner := make(map[uint64]*Node, len(g.Nodes))
	var more map[uint64][]*Node
	var buf, other []byte
	taken := func(h uint64, p []byte) bool {
		o, ok := owner[h]
		if !ok {
			return false
		}
		for _, o := range append([]*Node{o}, more[h]...) {
			other = o.AppendPath(other[:0])
			if string(other) == string(p) {
				return true
			}
		}
		return false
	}
	claim := func(h uint64, n *Node) {
		if _, ok := owner[h]; !ok {
			owner[h] = n
			return
		}
		if more == nil {
			more = map[uint64][]*Node{}
		}
		more[h] = append(more[h], n)
	}
	for _, n := range g.Nodes {
		buf = appendBarePath(buf[:0], n)
		h := maphash.Bytes(seed, buf)
		if !taken(h, buf) {
			claim(h, n)
			continue
		}
		bare := len(buf)
		for k := 2; ; k++ {
			buf = strconv.AppendInt(append(buf[:bare], '#'), int64(k), 10)
			h = maphash.Bytes(seed, buf)
			if !taken(h, buf) {
				n.dup = int32(k)
				claim(h, n)
				break
			}
		}
	}
}

// pathsUnique reports whether no two nodes can have the same path, so that
// dedupePaths has nothing to do, without rendering every path. A top-level
// node's path is its name, a function node's its function's prefix (the
// caller's path, the function's name and "/") and its name. With no name
// twice in the top-level graph or in one body (build found those), two
// equal paths need the prefix of one function to begin the prefix of
// another (or to equal it), or to begin a top-level name; after sorting,
// a prefix that begins another begins the one right after it.
func (b *builder) pathsUnique() bool {
	if b.dupNames {
		return false
	}
	g := b.g
	prefixes := make([]string, 0, len(g.Functions))
	var buf []byte
	for _, f := range g.Functions {
		if len(f.Nodes) == 0 {
			continue
		}
		n := f.Nodes[0]
		buf = appendBarePath(buf[:0], n)
		prefixes = append(prefixes, string(buf[:len(buf)-len(n.Name)]))
	}
	if len(prefixes) == 0 {
		return true
	}
	sort.Strings(prefixes)
	set := make(map[string]bool, len(prefixes))
	for i, p := range prefixes {
		if i > 0 && strings.HasPrefix(p, prefixes[i-1]) {
			return false
		}
		set[p] = true
	}
	for _, n := range g.Nodes[:g.TopLevel] {
		for i := strings.IndexByte(n.Name, '/'); i >= 0; {
			if set[n.Name[:i+1]] {
				return false
			}
			j := strings.IndexByte(n.Name[i+1:], '/')
			if j < 0 {
				break
			}
			i += 1 + j
		}
	}
	return true
}

// signatureRoots returns the top-level nodes a signature's outputs name.
func (b *builder) signatureRoots(s *savedmodel.Signature, report bool) []*Node {
	var roots []*Node
	for _, ti := range s.Outputs {
		name := tensorNode(ti.Name)
		if name == "" {
			continue
		}
		if n := b.topByName.get(name); n != nil {
			roots = append(roots, n)
		} else if report {
			b.diag("dangling_signature", s.Key, "signature %q output %q names tensor %q, which is not in the graph", s.Key, ti.Key, ti.Name)
		}
	}
	return roots
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
		stack = append(stack, n.ControlInputs()...)
	}
	return need
}
