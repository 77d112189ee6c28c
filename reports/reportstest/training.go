package reportstest

import "github.com/tfscan/tfscan/reports"

// Training is the fixture's ResNet model read as a training step: its
// nodes carry parts and its ascend-910b and musa targets a breakdown by
// part, musa with a backward and an optimizer fallback, collectives on two
// replicas and an XLA function run op by op, ascend-910b an XLA function its
// XLA device has no kernel for. The values are made up for rendering tests;
// they are not claims about any vendor.
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
			t.XLA = &reports.XLA{Device: "xla", Source: "xla.cc:2", Functions: []reports.XLAFunction{
				{Function: "__inference_step_1", Caller: "StatefulPartitionedCall", Nodes: 60,
					Missing: []reports.TrainingOp{{Op: "MyCustomOp", DTypes: []string{"DT_FLOAT"}, Count: 1}}}}}
		case "musa":
			t.Training = &reports.Training{Parts: []reports.TrainingPart{
				{Part: "forward", Nodes: 6, Covered: 6},
				{Part: "backward", Nodes: 60, Covered: 7, FallbackNodes: 53, NewFallbackNodes: 53, IslandBytes: 5 << 30,
					Fallback: []reports.TrainingOp{{Op: "FusedBatchNormGradV3", DTypes: []string{"float16"}, Count: 53, New: 53}}},
				{Part: "optimizer", Nodes: 1, Covered: 0, FallbackNodes: 1, NewFallbackNodes: 1,
					Fallback: []reports.TrainingOp{{Op: "MyCustomOp", DTypes: []string{"DT_FLOAT"}, Count: 1, New: 1}}},
				{Part: "loss_scale", Nodes: 3, Covered: 3},
				{Part: "collective", Nodes: 2, Covered: 2},
			}, Collectives: &reports.Collectives{
				Replicas: 2, Ops: []reports.CollectiveOp{{Op: "CollectiveReduceV2", Hint: "auto", Count: 2}},
				ReduceBytes: 1 << 20, ReduceBytesKnown: true,
				Runs: "RingReduce over device-to-device copies", RunsSource: "ring.cc:1", Copies: 4, CopyBytes: 2 << 20,
				OneDevice: &reports.CollectiveCost{Copies: 8, Bytes: 2 << 20, Source: "one.py:1"},
			}}
			t.XLA = &reports.XLA{Source: "xla.cc:1", Functions: []reports.XLAFunction{{Function: "__inference_step_1", Caller: "StatefulPartitionedCall", Nodes: 60}}}
		}
	}
	return r
}
