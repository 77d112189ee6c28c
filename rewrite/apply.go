package rewrite

import (
	"fmt"
	"strings"

	"google.golang.org/protobuf/proto"

	fpb "github.com/wamuir/graft/tensorflow/core/framework/function_go_proto"
	gpb "github.com/wamuir/graft/tensorflow/core/framework/graph_go_proto"
	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"
	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/savedmodel"
)

// expansion is the NodeDefs that replace one node; the last has its name.
type expansion struct {
	nodes []*nodepb.NodeDef
	// outArg is the name of the last node's output arg 0, which function
	// bodies name in their references ("node:arg:0").
	outArg string
}

// outArgOf is op's output arg 0 name.
func outArgOf(ops *graph.OpRegistry, op string) string {
	arg, _ := outputArg(ops, op, 0)
	return arg
}

// applyAll writes g's graph with apps applied into def (a MetaGraphDef of
// the rewritten model): a fresh copy of the original GraphDef each time,
// each replaced node's NodeDef swapped for its replacement where it stood,
// and in function bodies every reference to the node's output 0 renamed
// to the replacement's output arg. It builds the result as TensorFlow
// imports it and returns that graph; a graph TensorFlow would refuse is an
// internal error (a rule wrote something wrong).
func applyAll(g *graph.Graph, def *mgpb.MetaGraphDef, apps []*Application, _ bool) (*graph.Graph, error) {
	gd := proto.Clone(g.MetaGraph.Def.GetGraphDef()).(*gpb.GraphDef)
	if gd == nil {
		gd = &gpb.GraphDef{}
	}
	top := map[string]*Application{}
	byFn := map[string]map[string]*Application{}
	for _, a := range apps {
		if a.Function == "" {
			top[a.Name] = a
			continue
		}
		if byFn[a.Function] == nil {
			byFn[a.Function] = map[string]*Application{}
		}
		byFn[a.Function][a.Name] = a
	}
	gd.Node = replaceNodes(gd.GetNode(), top)
	for _, f := range gd.GetLibrary().GetFunction() {
		reps := byFn[f.GetSignature().GetName()]
		if len(reps) == 0 {
			continue
		}
		f.NodeDef = replaceNodes(f.GetNodeDef(), reps)
		renameRefs(g, f, reps)
	}
	def.GraphDef = gd
	mg := &savedmodel.MetaGraph{Tags: g.MetaGraph.Tags, Def: def, Signatures: g.MetaGraph.Signatures}
	m := *g.Model
	m.MetaGraphs = []*savedmodel.MetaGraph{mg}
	ng, err := graph.Build(&m, mg)
	if err != nil {
		return nil, fmt.Errorf("internal error: the rewritten graph would be refused by TensorFlow: %w", err)
	}
	return ng, nil
}

// replaceNodes returns nodes with each replaced node swapped for its
// replacement (deep copies, so that several attempts share nothing).
func replaceNodes(nodes []*nodepb.NodeDef, reps map[string]*Application) []*nodepb.NodeDef {
	if len(reps) == 0 {
		return nodes
	}
	out := make([]*nodepb.NodeDef, 0, len(nodes))
	for _, n := range nodes {
		a := reps[n.GetName()]
		if a == nil {
			out = append(out, n)
			continue
		}
		for _, nd := range a.exp.nodes {
			out = append(out, proto.Clone(nd).(*nodepb.NodeDef))
		}
	}
	return out
}

// renameRefs renames, in function f, the references "node:arg:0" to a
// replaced node's output 0 when its replacement names that output
// differently, in node inputs and in the function's results.
func renameRefs(g *graph.Graph, f *fpb.FunctionDef, reps map[string]*Application) {
	from := map[string]string{}
	for name, a := range reps {
		old := outArgOf(g.Ops, a.Op)
		if old != a.exp.outArg {
			from[name+":"+old+":0"] = name + ":" + a.exp.outArg + ":0"
		}
	}
	if len(from) == 0 {
		return
	}
	for _, n := range f.GetNodeDef() {
		for i, in := range n.GetInput() {
			if to, ok := from[in]; ok {
				n.Input[i] = to
			}
		}
	}
	for k, v := range f.GetRet() {
		if to, ok := from[v]; ok {
			f.Ret[k] = to
		}
	}
}

// validateNodeDef checks a node a rule wrote as TensorFlow's
// ValidateNodeDef does (framework/node_def_util.cc): the op is registered,
// every attr without a default is set, every attr set is the op's (or
// starts with "_"), type attrs hold allowed types, and the data inputs
// number what the OpDef's args say.
func validateNodeDef(ops *graph.OpRegistry, nd *nodepb.NodeDef) error {
	def := ops.Lookup(nd.GetOp())
	if def == nil {
		return fmt.Errorf("%s: op %s is not registered", nd.GetName(), nd.GetOp())
	}
	known := map[string]bool{}
	for _, a := range def.GetAttr() {
		known[a.GetName()] = true
		v, ok := nd.GetAttr()[a.GetName()]
		if !ok {
			if a.GetDefaultValue() == nil {
				return fmt.Errorf("%s (%s): attr %s is missing", nd.GetName(), nd.GetOp(), a.GetName())
			}
			continue
		}
		if a.GetType() == "type" && a.GetAllowedValues() != nil {
			allowed := false
			for _, t := range a.GetAllowedValues().GetList().GetType() {
				if t == v.GetType() {
					allowed = true
				}
			}
			if !allowed {
				return fmt.Errorf("%s (%s): attr %s=%s is not allowed", nd.GetName(), nd.GetOp(), a.GetName(), dtName(v.GetType()))
			}
		}
	}
	for k := range nd.GetAttr() {
		if !known[k] && !strings.HasPrefix(k, "_") {
			return fmt.Errorf("%s (%s): attr %s is not the op's", nd.GetName(), nd.GetOp(), k)
		}
	}
	n := ops.Standalone(nd, nil)
	data := 0
	for _, in := range nd.GetInput() {
		if !strings.HasPrefix(in, "^") {
			data++
		}
	}
	if def := n.OpDef; def != nil && len(n.InputTypes()) != data {
		return fmt.Errorf("%s (%s): %d data inputs, the op takes %d", nd.GetName(), nd.GetOp(), data, len(n.InputTypes()))
	}
	return nil
}
