package explain

import (
	"strings"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/tflog"
)

// nodes finds the model nodes a logged node name means. TensorFlow logs a
// node by its name in the graph it placed: the model's own name, or, for a
// function inlined into its caller, that name behind the call's prefix
// ("StatefulPartitionedCall/model/dense/MatMul", common_runtime's inlining
// names nodes caller/name). So the whole name is tried, then its suffixes
// after each "/". When the message gives the op, a node of another op is not
// the one meant; without the op, a suffix match counts only when it is
// unique.
func (x *explainer) nodes(name, op string) []*graph.Node {
	if name == "" {
		return nil
	}
	keep := func(ns []*graph.Node) []*graph.Node {
		if op == "" {
			return ns
		}
		var out []*graph.Node
		for _, n := range ns {
			if n.Op == op {
				out = append(out, n)
			}
		}
		return out
	}
	if ns := keep(x.byName[name]); len(ns) > 0 {
		return ns
	}
	for rest := name; ; {
		i := strings.IndexByte(rest, '/')
		if i < 0 {
			break
		}
		rest = rest[i+1:]
		if ns := keep(x.byName[rest]); len(ns) > 0 && (op != "" || len(ns) == 1) {
			return ns
		}
	}
	return nil
}

// opNodes are the nodes of op, those of the message's dtypes first when it
// names any (a GE reason's "data type DT_FLOAT of input"): only those when
// some match.
func (x *explainer) opNodes(op string, dtypes []string) []*graph.Node {
	ns := x.byOp[op]
	if len(dtypes) == 0 {
		return ns
	}
	want := map[string]bool{}
	for _, d := range dtypes {
		want[dtName(d)] = true
	}
	var out []*graph.Node
	for _, n := range ns {
		for _, d := range n.DTypes() {
			if want[d] {
				out = append(out, n)
				break
			}
		}
	}
	if len(out) == 0 {
		return ns
	}
	return out
}

// messageNodes are the nodes a message is about: its node, else its
// colocation members, else every node of its op.
func (x *explainer) messageNodes(m *tflog.Message) (ns []*graph.Node, nodeLevel bool) {
	if m.Node != "" {
		return x.nodes(m.Node, m.Op), true
	}
	if len(m.Nodes) > 0 {
		for _, r := range m.Nodes {
			ns = append(ns, x.nodes(r.Name, r.Op)...)
		}
		return ns, true
	}
	if m.Op != "" {
		return x.opNodes(m.Op, m.DTypes), false
	}
	return nil, false
}
