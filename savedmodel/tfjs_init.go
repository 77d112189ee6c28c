package savedmodel

import (
	"bytes"
	"fmt"

	"google.golang.org/protobuf/encoding/protojson"

	gpb "github.com/wamuir/graft/tensorflow/core/framework/graph_go_proto"
	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"
	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"
)

// TFJSInitOp is the NoOp the loader adds to a TF.js graph model with a
// modelInitializer graph: it depends on every node of that graph, and the
// meta graph's saved_model_main_op collection names it, so that the
// executor runs the initializer once before the first inference as TF.js
// does (tfjs-converter graph_model.ts: executeInitializerGraph), and scans
// count those nodes in the load phase.
const TFJSInitOp = "tfjs_model_initializer"

// mergeTFJSInit merges model.json's modelInitializer GraphDef into def's
// graph. The converter gives the initializer's table the name and
// shared_name of the one the main graph looks up (a table is shared by its
// shared_name), so a node of the same name and op as a main-graph node is
// that node; the initializer's Consts are weights of the same manifest,
// keyed by name. A node of the same name and another op is an error: the
// two graphs could not share the manifest.
func mergeTFJSInit(m *Model, def *mgpb.MetaGraphDef, raw []byte) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	init := &gpb.GraphDef{}
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(raw, init); err != nil {
		return fmt.Errorf("modelInitializer is not a GraphDef: %v", textErr(err))
	}
	if len(init.GetNode()) == 0 {
		return nil
	}
	gd := def.GetGraphDef()
	ops := map[string]string{}
	for _, n := range gd.GetNode() {
		ops[n.GetName()] = n.GetOp()
	}
	if _, ok := ops[TFJSInitOp]; ok {
		return fmt.Errorf("modelTopology has a node named %s, the name the loader gives the modelInitializer's op", TFJSInitOp)
	}
	m.TFJSInit = map[string]bool{TFJSInitOp: true}
	sink := &nodepb.NodeDef{Name: TFJSInitOp, Op: "NoOp"}
	for _, n := range init.GetNode() {
		if op, ok := ops[n.GetName()]; ok {
			if op != n.GetOp() {
				return fmt.Errorf("modelInitializer's node %s is a %s, modelTopology's a %s", n.GetName(), n.GetOp(), op)
			}
		} else {
			gd.Node = append(gd.Node, n)
			m.TFJSInit[n.GetName()] = true
		}
		sink.Input = append(sink.Input, "^"+n.GetName())
	}
	gd.Node = append(gd.Node, sink)
	if def.CollectionDef == nil {
		def.CollectionDef = map[string]*mgpb.CollectionDef{}
	}
	def.CollectionDef["saved_model_main_op"] = &mgpb.CollectionDef{Kind: &mgpb.CollectionDef_NodeList_{
		NodeList: &mgpb.CollectionDef_NodeList{Value: []string{TFJSInitOp}}}}
	return nil
}

// withoutTFJSInit drops the nodes mergeTFJSInit added (model.json keeps its
// modelInitializer as it was).
func withoutTFJSInit(m *Model, gd *gpb.GraphDef) {
	if len(m.TFJSInit) == 0 {
		return
	}
	kept := gd.Node[:0]
	for _, n := range gd.Node {
		if !m.TFJSInit[n.GetName()] {
			kept = append(kept, n)
		}
	}
	gd.Node = kept
}
