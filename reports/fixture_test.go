package reports

import "strings"

// fixture is a rich in-memory report used by every writer's golden test:
// two models, three targets, uncovered groups of every reason, placement
// with partitions and islands, a wishlist, fusions, parity with statistics
// and a histogram, security findings and a failed gate. The values are made
// up for rendering tests; they are not claims about any vendor.
func fixture() *Report {
	div := "model/block_1/div"
	cpu := "/device:CPU:0"
	npu := "/device:NPU:0"
	nodesA := func(target string, cover map[string]string) []NodeResult {
		paths := []struct{ path, op, dt string }{
			{"model/conv1/Conv2D", "Conv2D", "DT_FLOAT"},
			{"model/conv1/BiasAdd", "BiasAdd", "DT_FLOAT"},
			{"model/conv1/Relu", "Relu", "DT_FLOAT"},
			{"model/block_1/erf", "Erf", "DT_FLOAT"},
			{div, "RealDiv", "DT_DOUBLE"},
			{"model/pool/MaxPool", "MaxPool", "DT_FLOAT"},
			{"model/head/MatMul", "MatMul", "DT_FLOAT"},
			{"model/head/custom", "MyCustomOp", "DT_FLOAT"},
			{"model/shape", "Shape", "DT_INT32"},
			{"Const", "Const", "DT_FLOAT"},
		}
		var out []NodeResult
		for _, p := range paths {
			r := cover[p.op]
			if r == "" {
				r = ReasonCovered
			}
			dev := npu
			if !IsCovered(r) {
				dev = cpu
			}
			if target == "cpu" {
				dev = cpu
			}
			phase := PhaseStep
			if p.path == "Const" {
				phase = PhaseLoad
			}
			out = append(out, NodeResult{Path: p.path, Op: p.op, DTypes: []string{p.dt}, Reason: r,
				Reachable: p.path != "Const", Phase: phase, Device: dev})
		}
		return out
	}
	count := func(ns []NodeResult) Coverage {
		c := Coverage{ByReason: map[string]int{}, Phases: []string{PhaseStep}, ByPhase: map[string]PhaseCount{}}
		ops, opsCov := map[string]bool{}, map[string]bool{}
		for _, n := range ns {
			pc := c.ByPhase[n.Phase]
			pc.Nodes++
			if IsCovered(n.Reason) {
				pc.Covered++
			}
			c.ByPhase[n.Phase] = pc
			if n.Phase == PhaseStep {
				c.CountedNodesTotal++
				if IsCovered(n.Reason) {
					c.CountedNodesCovered++
				}
			}
			c.NodesTotal++
			c.ByReason[n.Reason]++
			ops[n.Op] = true
			if IsCovered(n.Reason) {
				c.NodesCovered++
				opsCov[n.Op] = true
			} else {
				opsCov[n.Op] = opsCov[n.Op] && false
			}
			if n.Reachable {
				c.ReachableNodesTotal++
				if IsCovered(n.Reason) {
					c.ReachableNodesCovered++
				}
			}
		}
		c.OpsTotal = len(ops)
		for _, v := range opsCov {
			if v {
				c.OpsCovered++
			}
		}
		return c
	}
	ascendNodes := nodesA("ascend", map[string]string{"Erf": ReasonNoKernel, "RealDiv": ReasonNoKernelForDType,
		"MyCustomOp": ReasonUnknownOp, "Shape": ReasonCoveredDefault})
	musaNodes := nodesA("musa", map[string]string{"Erf": ReasonNoKernel, "MyCustomOp": ReasonUnknownOp,
		"MaxPool": ReasonLabelMismatch})
	cpuNodes := nodesA("cpu", map[string]string{"MyCustomOp": ReasonUnknownOp})
	hist := []HistBin{{0, 1e-6, 90}, {1e-6, 1e-5, 7}, {1e-5, 1e-4, 2}, {1e-4, 1e-3, 1}}
	first := "model/block_1/erf"
	modelA := &Model{
		Path: "models/resnet", File: "models/resnet/saved_model.pb", Format: "saved_model", Signature: "serving_default",
		Findings: []Finding{{Kind: KindUnsafeOp, Op: "WriteFile", Path: "model/debug/write <script>", Message: "writes files on the serving host"}},
		Targets: []*Target{
			{
				Target:   "ascend-910b",
				Registry: RegistryInfo{Name: "ascend-910b", Vendor: "Huawei", DeviceType: "NPU", Mechanism: "graph_offload", Source: "example/source@abc123", Method: "source_extraction", Confidence: "medium", ConfidenceLevel: "medium"},
				Coverage: count(ascendNodes),
				Uncovered: []Uncovered{
					{Op: "Erf", DTypes: []string{"DT_FLOAT"}, Reason: ReasonNoKernel, Count: 1, Phase: PhaseStep, Nodes: []string{"model/block_1/erf"}},
					{Op: "RealDiv", DTypes: []string{"DT_DOUBLE"}, Reason: ReasonNoKernelForDType, Count: 1, Phase: PhaseStep, Nodes: []string{div}, Supported: []string{"DT_FLOAT", "DT_HALF"}},
					{Op: "MyCustomOp", DTypes: []string{"DT_FLOAT"}, Reason: ReasonUnknownOp, Count: 1, Phase: PhaseStep, Nodes: []string{"model/head/custom"}, Hint: "custom op from _my_ops.so"},
				},
				Placement: &Placement{SoftPlacement: false, Partitions: 3, Transfers: 4, TransferBytes: 3 << 20, TransfersPerIteration: 4, IOTransfers: 2, IOBytes: 602112,
					AssumedDims: []string{"batch=1"},
					Error:       "Cannot assign a device for operation model/block_1/erf: Could not satisfy explicit device specification '/device:NPU:0' because no supported kernel for NPU devices is available.",
					PartitionEdges: []PartitionEdge{
						{From: npu, To: cpu, Transfers: 2, Bytes: 2 << 20},
						{From: cpu, To: npu, Transfers: 2, Bytes: 1 << 20},
					},
					DeviceNodes:          map[string]int{npu: 6, cpu: 4},
					UnknownSizeTransfers: 1,
					PinnedNodes:          1,
					PinnedDevices:        map[string]int{"/job:localhost/replica:0/task:0/device:CPU:0": 1},
					Warnings:             []string{"resource model/var moved to CPU with its colocation group"},
					AMP:                  []AMPNode{{Path: "model/conv1/Conv2D", Op: "Conv2D", DType: "DT_HALF", Covered: true}, {Path: "model/block_1/erf", Op: "Erf", DType: "DT_HALF", Covered: false}},
					Comparison: &PlacementComparison{Matched: 9, Agreed: 8, Unmatched: []string{"model/extra"},
						Nodes: []ComparedNode{{Name: "model/pool/MaxPool", Op: "MaxPool", Predicted: npu, Actual: cpu, Agree: false}, {Name: "model/conv1/Conv2D", Op: "Conv2D", Predicted: npu, Actual: npu, Agree: true}}}},
				Islands: []Island{
					{Nodes: []string{"model/block_1/erf", div}, Bytes: 2 << 20, Cause: "Erf: no_kernel", Transfers: 2},
					{Nodes: []string{"model/head/custom"}, Bytes: 1 << 20, Cause: "MyCustomOp: unknown_op"},
					{Nodes: []string{"model/head/pinned"}, Bytes: 4096, Cause: `1 node(s) pinned to CPU by their device field "/job:localhost/replica:0/task:0/device:CPU:0"`, Transfers: 1, PinnedNodes: 1},
				},
				Wishlist: []Wish{{Op: "Erf", DType: "DT_FLOAT", TransfersRemoved: 2, BytesRemoved: 2 << 20}, {Op: "RealDiv", DType: "DT_DOUBLE", TransfersRemoved: 0, BytesRemoved: 0}},
				Fusions:  []Fusion{{Fused: "_FusedConv2D", Nodes: []string{"model/conv1/Conv2D", "model/conv1/BiasAdd", "model/conv1/Relu"}, Reason: "the remapper fuses Conv2D+BiasAdd+Relu only on GPU and CPU"}},
				Parity: &Parity{Profile: "fp16", ATol: 1e-3, RTol: 1e-3, FirstDivergence: &first,
					Outputs: []ParityOutput{{Name: "logits:0", MaxAbsError: 4.2e-4, MaxRelError: 1.5e-3, MaxULP: 12, Mismatches: 1, Pass: false,
						Stats: &ErrStats{Max: 4.2e-4, Mean: 2.1e-6, Median: 1e-7, P99: 9e-5, Histogram: hist}}},
					Nodes: []ParityNode{{Path: "model/block_1/erf", Op: "Erf", MaxAbsError: 4.2e-4, MaxRelError: 1.5e-3, MaxULP: 12, Mismatches: 1, Underflow: 3}}},
				Nodes: ascendNodes,
			},
			{
				Target:   "musa",
				Registry: RegistryInfo{Name: "musa", Vendor: "Moore Threads", DeviceType: "MUSA", Mechanism: "kernel", Source: "example/musa@def456", Method: "documentation", Confidence: "low", ConfidenceLevel: "low"},
				Coverage: count(musaNodes),
				Uncovered: []Uncovered{
					{Op: "Erf", DTypes: []string{"DT_FLOAT"}, Reason: ReasonNoKernel, Count: 1, Phase: PhaseStep, Nodes: []string{"model/block_1/erf"}},
					{Op: "MaxPool", DTypes: []string{"DT_FLOAT"}, Reason: ReasonLabelMismatch, Count: 1, Phase: PhaseStep, Nodes: []string{"model/pool/MaxPool"}},
					{Op: "MyCustomOp", DTypes: []string{"DT_FLOAT"}, Reason: ReasonUnknownOp, Count: 1, Phase: PhaseStep, Nodes: []string{"model/head/custom"}},
				},
				Nodes: musaNodes,
			},
			{
				Target:    "cpu",
				Registry:  RegistryInfo{Name: "cpu", DeviceType: "CPU", Mechanism: "kernel", Source: "tensorflow/tensorflow@v2.15.0", Method: "source_extraction", Confidence: "high", ConfidenceLevel: "high"},
				Coverage:  count(cpuNodes),
				Uncovered: []Uncovered{{Op: "MyCustomOp", DTypes: []string{"DT_FLOAT"}, Reason: ReasonUnknownOp, Count: 1, Phase: PhaseStep, Nodes: []string{"model/head/custom"}}},
				Nodes:     cpuNodes,
			},
		},
	}
	bNodes := []NodeResult{
		{Path: "x", Op: "Placeholder", DTypes: []string{"DT_FLOAT"}, Reason: ReasonCovered, Reachable: true, Phase: PhaseStep},
		{Path: "y", Op: "Tanh", DTypes: []string{"DT_FLOAT"}, Reason: ReasonCovered, Reachable: true, Phase: PhaseStep},
	}
	modelB := &Model{Path: "models/tiny.pbtxt", File: "models/tiny.pbtxt", Format: "graph_def_pbtxt", AssumedOutputs: []string{"y"}}
	for _, name := range []string{"ascend-910b", "musa", "cpu"} {
		modelB.Targets = append(modelB.Targets, &Target{Target: name, Registry: RegistryInfo{Name: name, Source: "builtin", Method: "documentation"},
			Coverage: count(bNodes), Nodes: append([]NodeResult(nil), bNodes...)})
	}
	// Model A is compared with a cuda source on which everything but the
	// custom op ran on the GPU.
	for _, t := range modelA.Targets {
		fixtureDelta(t, "cuda", 1<<20)
	}
	r := &Report{
		SchemaVersion: SchemaVersion,
		Tool:          Tool{Name: "tfscan", Version: "0.1.0-test"},
		Options: &Options{Targets: []string{"ascend-910b", "musa", "cpu"}, From: "cuda", Phases: []string{PhaseStep},
			Registries: []string{"sha256:" + strings.Repeat("ab", 32)}, Dims: map[string]int64{"batch": 8}, Precision: "mixed_float16",
			Nodes: NodesAll},
		Models: []*Model{modelB, modelA},
		Gate: &Gate{Pass: false,
			Failures: []GateFailure{
				{Model: "models/resnet", Target: "ascend-910b", Rule: "min_coverage", Message: "coverage 66.7% is below the minimum 90.0%"},
				{Model: "models/resnet", Target: "musa", Rule: "fail_on", Message: "1 node(s) with reason label_mismatch: model/pool/MaxPool"},
			},
			Warnings: []string{"ignore entry 1 (op Erf) expired on 2026-01-01 and no longer applies"}},
	}
	// a producer counts the ops of the counted nodes (scan.Coverage)
	for _, m := range r.Models {
		for _, t := range m.Targets {
			t.Ops = t.CountOps()
		}
	}
	return r
}

// fixtureDelta fills t.Delta and each node's SourceDevice and Change as if
// the source had run every node but MyCustomOp on its GPU and moved
// sourceBytes per step (the rules of scan.applyDelta, made up values).
func fixtureDelta(t *Target, source string, sourceBytes int64) {
	d := &Delta{Source: source}
	if t.Placement != nil {
		d.TransferBytesDelta = t.Placement.TransferBytes - sourceBytes
		d.TransferBytesPartial = t.Placement.TransferBytesPartial()
	}
	for i := range t.Nodes {
		n := &t.Nodes[i]
		n.SourceDevice = "/device:GPU:0"
		if n.Op == "MyCustomOp" {
			n.SourceDevice = "/device:CPU:0"
		}
		if !t.Counts(n) {
			continue
		}
		here, there := t.LeavesDevice(n), n.Op == "MyCustomOp"
		switch {
		case here && there:
			n.Change = ChangeAlreadyOnCPU
			d.AlreadyOnCPUNodes++
		case here:
			n.Change = ChangeNewFallback
			d.NewFallbackNodes++
			d.NewFallbackOps = append(d.NewFallbackOps, DeltaOp{Op: n.Op, DTypes: n.DTypes, Reason: n.Reason, Count: 1, Nodes: []string{n.Path}})
		}
	}
	t.Delta = d
}
