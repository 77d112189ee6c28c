package rewrite

import (
	"context"

	"google.golang.org/protobuf/proto"

	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/savedmodel"
)

// ModelResult is a rewritten model: every meta graph rewritten, as
// TensorFlow serves whichever the loader's tags pick.
type ModelResult struct {
	// Model is the rewritten copy; savedmodel.Write writes it.
	Model *savedmodel.Model
	// MetaGraphs[i] is the rewrite of meta graph i, Graphs[i] its
	// original graph.
	MetaGraphs []*Result
	Graphs     []*graph.Graph
}

// Applied counts the nodes rewritten and the pins dropped over every meta
// graph.
func (r *ModelResult) Applied() int {
	n := 0
	for _, mg := range r.MetaGraphs {
		n += len(mg.Applications) + mg.Unpinned
	}
	return n
}

// RewriteModel plans every meta graph of m (Plan) into a copy of m; m is
// not changed. opts.Placement.Signature names a signature of the meta
// graph the caller reports on; the others are simulated with their own
// default signature.
func RewriteModel(ctx context.Context, m *savedmodel.Model, primary int, opts Options) (*ModelResult, error) {
	out := *m
	out.MetaGraphs = nil
	res := &ModelResult{Model: &out}
	for i, mg := range m.MetaGraphs {
		g, err := graph.Build(m, mg)
		if err != nil {
			return nil, err
		}
		def := withoutGraph(mg.Def)
		o := opts
		if i != primary {
			o.Placement.Signature = ""
			o.Placement.Fetches = nil
		}
		r, err := Plan(ctx, g, def, o)
		if err != nil {
			return nil, err
		}
		out.MetaGraphs = append(out.MetaGraphs, &savedmodel.MetaGraph{Tags: mg.Tags, Def: r.Def, Signatures: mg.Signatures})
		res.MetaGraphs = append(res.MetaGraphs, r)
		res.Graphs = append(res.Graphs, g)
	}
	return res, nil
}

// withoutGraph copies def but its GraphDef (Plan writes a new one), so
// that a model's constants are copied once, not twice.
func withoutGraph(def *mgpb.MetaGraphDef) *mgpb.MetaGraphDef {
	gd := def.GraphDef
	def.GraphDef = nil
	c := proto.Clone(def).(*mgpb.MetaGraphDef)
	def.GraphDef = gd
	return c
}
