package reportstest

import (
	"fmt"

	"github.com/tfscan/tfscan/reports"
)

// Inspect is a fixed report covering every field: two models, one
// with several meta graphs, unknown ops, diagnostics and a long histogram.
func Inspect() *reports.InspectReport {
	big := &reports.InspectModel{
		Path: "models/resnet", File: "models/resnet/saved_model.pb", Format: "saved_model",
		GraphNodes: 12, Functions: 2, FunctionNodes: 60, ReachableNodes: 50,
		OpTypes:    []string{},
		UnknownOps: []string{"MyCustomOp"},
		OpDefs:     "TensorFlow 2.15.0",
		MetaGraphs: []reports.InspectMetaGraph{
			{Tags: []string{"serve"}, Signatures: []string{"serving_default"}, Selected: true},
			{Tags: []string{"serve", "gpu"}, Signatures: []string{}},
		},
		Signatures: []reports.InspectSignature{{
			Key: "serving_default", Method: "tensorflow/serving/predict",
			Inputs:  []reports.InspectTensor{{Key: "image", Name: "serving_default_image:0", DType: "float32", Shape: []int64{-1, 224, 224, 3}}},
			Outputs: []reports.InspectTensor{{Key: "logits", Name: "StatefulPartitionedCall:0", DType: "float16", Shape: nil}},
		}},
		Diagnostics: []reports.InspectDiagnostic{{Kind: "unknown_op", Path: "serving_default/StatefulPartitionedCall/f/custom", Message: `op "MyCustomOp" of node "custom" is in no op registry (a custom op?)`}},
	}
	for i := 0; i < 44; i++ {
		op := fmt.Sprintf("Op%02d", i)
		big.OpTypes = append(big.OpTypes, op)
		big.OpHistogram = append(big.OpHistogram, reports.OpCount{Op: op, Count: 50 - i, Reachable: (50 - i) / 2})
	}
	small := &reports.InspectModel{
		Path: "frozen.pbtxt", File: "frozen.pbtxt", Format: "graph_def_pbtxt",
		GraphNodes: 3, ReachableNodes: 3,
		OpTypes: []string{"Add", "Placeholder"}, UnknownOps: []string{}, Signatures: []reports.InspectSignature{},
		MetaGraphs:  []reports.InspectMetaGraph{{Tags: []string{}, Signatures: []string{}, Selected: true}},
		OpHistogram: []reports.OpCount{{Op: "Placeholder", Count: 2, Reachable: 2}, {Op: "Add", Count: 1, Reachable: 1}},
		OpDefs:      "TensorFlow 2.15.0",
		Diagnostics: []reports.InspectDiagnostic{},
	}
	return &reports.InspectReport{SchemaVersion: reports.InspectSchemaVersion, Models: []*reports.InspectModel{big, small}}
}
