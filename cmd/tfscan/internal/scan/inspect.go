package scan

import (
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/savedmodel"
)

// NewInspectModel summarises a built graph: what `tfscan inspect` reports
// of a model before any target is considered.
func NewInspectModel(g *graph.Graph) *reports.InspectModel {
	m := &reports.InspectModel{
		Path:        g.Model.Path,
		File:        g.Model.File,
		Format:      string(g.Model.Format),
		GraphNodes:  g.TopLevel,
		Functions:   len(g.Functions),
		OpTypes:     []string{},
		UnknownOps:  []string{},
		Signatures:  []reports.InspectSignature{},
		MetaGraphs:  []reports.InspectMetaGraph{},
		OpHistogram: []reports.OpCount{},
		Diagnostics: []reports.InspectDiagnostic{},
	}
	if g.Ops != nil {
		m.OpDefs = "TensorFlow " + g.Ops.TFVersion
	}
	m.FunctionNodes = len(g.Nodes) - g.TopLevel
	counts := map[string]*reports.OpCount{}
	unknown := map[string]bool{}
	for _, n := range g.Nodes {
		c := counts[n.Op]
		if c == nil {
			c = &reports.OpCount{Op: n.Op}
			counts[n.Op] = c
		}
		c.Count++
		if n.Reachable {
			c.Reachable++
			m.ReachableNodes++
		}
		if n.Unknown {
			unknown[n.Op] = true
		}
	}
	for op, c := range counts {
		m.OpTypes = append(m.OpTypes, op)
		m.OpHistogram = append(m.OpHistogram, *c)
	}
	for op := range unknown {
		m.UnknownOps = append(m.UnknownOps, op)
	}
	for _, mg := range g.Model.MetaGraphs {
		tags := mg.Tags
		if tags == nil {
			tags = []string{}
		}
		im := reports.InspectMetaGraph{Tags: tags, Signatures: []string{}, Selected: mg == g.MetaGraph}
		for _, s := range mg.Signatures {
			im.Signatures = append(im.Signatures, s.Key)
		}
		m.MetaGraphs = append(m.MetaGraphs, im)
	}
	for _, s := range g.Signatures {
		m.Signatures = append(m.Signatures, reports.InspectSignature{
			Key: s.Key, Method: s.Method, Inputs: inspectTensors(s.Inputs), Outputs: inspectTensors(s.Outputs),
		})
	}
	for _, d := range g.Diagnostics {
		m.Diagnostics = append(m.Diagnostics, reports.InspectDiagnostic{Kind: d.Kind, Path: d.Path, Message: d.Message, Fatal: d.Fatal})
	}
	m.Normalize()
	return m
}

func inspectTensors(ts []*savedmodel.TensorInfo) []reports.InspectTensor {
	out := []reports.InspectTensor{}
	for _, t := range ts {
		it := reports.InspectTensor{Key: t.Key, Name: t.Name, DType: graph.DTypeName(t.DType)}
		if !t.UnknownRank {
			it.Shape = append([]int64{}, t.Shape...)
		}
		out = append(out, it)
	}
	return out
}
