package rewrite

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/savedmodel"
)

// ruleUnpin drops the device field of every top-level node, as importing
// with clear_devices=True does (python/framework/meta_graph.py:776-780,
// which leaves function bodies alone), so that a graph exported on a CPU
// machine (or by the TF.js converter, which pins the nodes Grappler fused)
// is placed by soft placement instead of its pins. Only with
// --clear-devices, and only when the placement is no worse for it.
var ruleUnpin = &Rule{
	Name: "unpin", Kind: KindUnpin,
	Exactness: Exactness{Exact: true, Claim: "values unchanged: only where nodes run changes"},
	Semantics: "tensorflow/python/framework/meta_graph.py:776-780 (clear_devices=True)",
}

// unpinned is g without the device fields of its top-level nodes, and
// how many there were.
func unpinned(g *graph.Graph) (*graph.Graph, int, error) {
	pins := 0
	for _, n := range g.MetaGraph.Def.GetGraphDef().GetNode() {
		if n.GetDevice() != "" {
			pins++
		}
	}
	if pins == 0 {
		return g, 0, nil
	}
	def := proto.Clone(g.MetaGraph.Def).(*mgpb.MetaGraphDef)
	for _, n := range def.GetGraphDef().GetNode() {
		n.Device = ""
	}
	mg := &savedmodel.MetaGraph{Tags: g.MetaGraph.Tags, Def: def, Signatures: g.MetaGraph.Signatures}
	m := *g.Model
	m.MetaGraphs = []*savedmodel.MetaGraph{mg}
	ng, err := graph.Build(&m, mg)
	if err != nil {
		return nil, 0, fmt.Errorf("internal error: the unpinned graph would be refused by TensorFlow: %w", err)
	}
	return ng, pins, nil
}
