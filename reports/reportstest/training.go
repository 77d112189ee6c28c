package reportstest

import "github.com/tfscan/tfscan/reports"

// Training is the fixture's ResNet model read as a training step: its
// nodes carry parts and its ascend-910b and musa targets a breakdown by
// part, musa with a backward and an optimizer fallback. The values are made
// up for rendering tests; they are not claims about any vendor.
func Training() *reports.Report {
	r := Fixture()
	var m *reports.Model
	for _, x := range r.Models {
		if x.Path == "models/resnet" {
			m = x
		}
	}
	r.Models, r.Gate = []*reports.Model{m}, nil
	backward := map[string]bool{"model/block_1/erf": true, "model/pool/MaxPool": true}
	for _, t := range m.Targets {
		for i := range t.Nodes {
			n := &t.Nodes[i]
			switch {
			case backward[n.Path]:
				n.Part = "backward"
			case n.Op == "MyCustomOp":
				n.Part = "optimizer"
			default:
				n.Part = "forward"
			}
		}
		switch t.Target {
		case "ascend-910b":
			t.Training = &reports.Training{Parts: []reports.TrainingPart{
				{Part: "forward", Nodes: 6, Covered: 5, FallbackNodes: 1, NewFallbackNodes: 1,
					Fallback: []reports.TrainingOp{{Op: "RealDiv", DTypes: []string{"DT_DOUBLE"}, Count: 1, New: 1}}},
				{Part: "backward", Nodes: 60, Covered: 60},
				{Part: "optimizer", Nodes: 1, Covered: 1},
			}}
		case "musa":
			t.Training = &reports.Training{Parts: []reports.TrainingPart{
				{Part: "forward", Nodes: 6, Covered: 6},
				{Part: "backward", Nodes: 60, Covered: 7, FallbackNodes: 53, NewFallbackNodes: 53, IslandBytes: 5 << 30,
					Fallback: []reports.TrainingOp{{Op: "FusedBatchNormGradV3", DTypes: []string{"float16"}, Count: 53, New: 53}}},
				{Part: "optimizer", Nodes: 1, Covered: 0, FallbackNodes: 1, NewFallbackNodes: 1,
					Fallback: []reports.TrainingOp{{Op: "MyCustomOp", DTypes: []string{"DT_FLOAT"}, Count: 1, New: 1}}},
				{Part: "loss_scale", Nodes: 3, Covered: 3},
			}}
		}
	}
	return r
}
