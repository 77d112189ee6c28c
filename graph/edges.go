package graph

import (
	"slices"
	"sort"
	"strings"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/dtype"
	"github.com/tfscan/tfscan/internal/csr"
)

// index builds every node's consumers (data and control, each consumer
// once, in Node.ID order), grouped by producer.
func (b *builder) index() {
	g := b.g
	// Consumers are listed once per (consumer, producer) pair. A node's
	// few producers are checked against each other; last, the last
	// consumer each producer was given, is made only for a node with many.
	var last []int32
	g.edges = csr.Build(len(g.Nodes), func(add func(int, *Node)) {
		for i := range last {
			last[i] = -1
		}
		for _, n := range g.Nodes {
			if len(n.Inputs)+len(n.ControlInputs()) > fewProducers {
				if last == nil {
					last = make([]int32, len(g.Nodes))
					for i := range last {
						last[i] = -1
					}
				}
				visit := func(src *Node) {
					if last[src.ID] != int32(n.ID) {
						last[src.ID] = int32(n.ID)
						add(src.ID, n)
					}
				}
				for _, in := range n.Inputs {
					if in.Node != nil {
						visit(in.Node)
					}
				}
				for _, c := range n.ControlInputs() {
					visit(c)
				}
				continue
			}
			for i, in := range n.Inputs {
				if in.Node != nil && !slices.ContainsFunc(n.Inputs[:i], func(e Input) bool { return e.Node == in.Node }) {
					add(in.Node.ID, n)
				}
			}
			for i, c := range n.ControlInputs() {
				if !slices.ContainsFunc(n.Inputs, func(e Input) bool { return e.Node == c }) && !slices.Contains(n.ControlInputs()[:i], c) {
					add(c.ID, n)
				}
			}
		}
	})
}

// fewProducers is the most inputs a node's producers are deduplicated
// for by comparing them with each other.
const fewProducers = 16

// Consumers returns the nodes that take n's outputs or have n as a control
// input, each once, in Node.ID order. A function's argument consumers are
// not n's consumers; the slice is shared, do not modify it.
func (g *Graph) Consumers(n *Node) []*Node {
	if n == nil || n.ID < 0 || n.ID >= g.edges.Keys() || g.Nodes[n.ID] != n {
		return nil
	}
	return g.edges.Of(n.ID)
}

// DTypes lists the node's dtype attrs in the OpDef's attr order (type and
// list(type) attrs, e.g. T, or SrcT then DstT for Cast), each dtype once, as
// dtype.Name names. These are what a KernelDef's type constraints are checked
// against. For a node without an OpDef it is the type-valued attrs in name
// order, skipping attrs that start with "_".
func (n *Node) DTypes() []string {
	return DTypeNames(n.AppendDTypeValues(nil))
}

// AppendDTypeValues appends to dst the type values DTypes names, in its
// order, before names that repeat are dropped: a caller that keeps each
// distinct list of names once finds it by these without making strings.
func (n *Node) AppendDTypeValues(dst []tpb.DataType) []tpb.DataType {
	if n.OpDef != nil {
		for _, a := range n.OpDef.GetAttr() {
			if a.GetType() == "type" || a.GetType() == "list(type)" {
				dst = appendTypeAttr(dst, n.Attrs[a.GetName()])
			}
		}
		return dst
	}
	var names []string
	for k, v := range n.Attrs {
		if strings.HasPrefix(k, "_") {
			continue
		}
		if v.GetType() != tpb.DataType_DT_INVALID || len(v.GetList().GetType()) > 0 {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, k := range names {
		dst = appendTypeAttr(dst, n.Attrs[k])
	}
	return dst
}

func appendTypeAttr(dst []tpb.DataType, v *attrpb.AttrValue) []tpb.DataType {
	if v == nil {
		return dst
	}
	if _, isType := v.GetValue().(*attrpb.AttrValue_Type); isType {
		return append(dst, v.GetType())
	}
	return append(dst, v.GetList().GetType()...)
}

// DTypeNames names types as DTypes does: by dtype.Name, each name once, in
// order (nil for none).
func DTypeNames(types []tpb.DataType) []string {
	var out []string
next:
	for _, t := range types {
		s := dtype.Name(t)
		for _, x := range out {
			if x == s {
				continue next
			}
		}
		out = append(out, s)
	}
	return out
}
