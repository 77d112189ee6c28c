// Package reportstest holds the reports the writers', the gate's and the
// model's tests render and judge: made-up values for rendering, not claims
// about any vendor.
package reportstest

import (
	"fmt"
	"strings"

	"github.com/tfscan/tfscan/reports"
)

// Fixture is a rich in-memory report used by every writer's golden test:
// two models, three targets, uncovered groups of every reason, placement
// with partitions and islands, a wishlist, fusions, parity with statistics
// and a histogram, security findings and a failed gate. The values are made
// up for rendering tests; they are not claims about any vendor.
func Fixture() *reports.Report {
	div := "model/block_1/div"
	cpu := "/device:CPU:0"
	npu := "/device:NPU:0"
	nodesA := func(target string, cover map[string]string) []reports.NodeResult {
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
		var out []reports.NodeResult
		for _, p := range paths {
			r := cover[p.op]
			if r == "" {
				r = reports.ReasonCovered
			}
			dev := npu
			if !reports.IsCovered(r) {
				dev = cpu
			}
			if target == "cpu" {
				dev = cpu
			}
			phase := reports.PhaseStep
			if p.path == "Const" {
				phase = reports.PhaseLoad
			}
			out = append(out, reports.NodeResult{Path: p.path, Op: p.op, DTypes: []string{p.dt}, Reason: r,
				Reachable: p.path != "Const", Phase: phase, Device: dev})
		}
		return out
	}
	count := func(ns []reports.NodeResult) reports.Coverage {
		c := reports.Coverage{ByReason: map[string]int{}, Phases: []string{reports.PhaseStep}, ByPhase: map[string]reports.PhaseCount{}}
		ops, opsCov := map[string]bool{}, map[string]bool{}
		for _, n := range ns {
			pc := c.ByPhase[n.Phase]
			pc.Nodes++
			if reports.IsCovered(n.Reason) {
				pc.Covered++
			}
			c.ByPhase[n.Phase] = pc
			if n.Phase == reports.PhaseStep {
				c.CountedNodesTotal++
				if reports.IsCovered(n.Reason) {
					c.CountedNodesCovered++
				}
			}
			c.NodesTotal++
			c.ByReason[n.Reason]++
			ops[n.Op] = true
			if reports.IsCovered(n.Reason) {
				c.NodesCovered++
				opsCov[n.Op] = true
			} else {
				opsCov[n.Op] = opsCov[n.Op] && false
			}
			if n.Reachable {
				c.ReachableNodesTotal++
				if reports.IsCovered(n.Reason) {
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
	ascendNodes := nodesA("ascend", map[string]string{"Erf": reports.ReasonNoKernel, "RealDiv": reports.ReasonNoKernelForDType,
		"MyCustomOp": reports.ReasonUnknownOp, "Shape": reports.ReasonCoveredDefault})
	musaNodes := nodesA("musa", map[string]string{"Erf": reports.ReasonNoKernel, "MyCustomOp": reports.ReasonUnknownOp,
		"MaxPool": reports.ReasonLabelMismatch})
	cpuNodes := nodesA("cpu", map[string]string{"MyCustomOp": reports.ReasonUnknownOp})
	hist := []reports.HistBin{{Lo: 0, Hi: 1e-6, Count: 90}, {Lo: 1e-6, Hi: 1e-5, Count: 7}, {Lo: 1e-5, Hi: 1e-4, Count: 2}, {Lo: 1e-4, Hi: 1e-3, Count: 1}}
	first := "model/block_1/erf"
	modelA := &reports.Model{
		Path: "models/resnet", File: "models/resnet/saved_model.pb", Format: "saved_model", Signature: "serving_default",
		Findings: []reports.Finding{{Kind: reports.KindUnsafeOp, Op: "WriteFile", Path: "model/debug/write <script>", Message: "writes files on the serving host"}},
		Targets: []*reports.Target{
			{
				Target:   "ascend-910b",
				Registry: reports.RegistryInfo{Name: "ascend-910b", Vendor: "Huawei", DeviceType: "NPU", Mechanism: "graph_offload", Source: "example/source@abc123", Method: "source_extraction", Confidence: "medium", ConfidenceLevel: "medium"},
				Coverage: count(ascendNodes),
				Uncovered: []reports.Uncovered{
					{Op: "Erf", DTypes: []string{"DT_FLOAT"}, Reason: reports.ReasonNoKernel, Count: 1, Phase: reports.PhaseStep, Nodes: []string{"model/block_1/erf"}},
					{Op: "RealDiv", DTypes: []string{"DT_DOUBLE"}, Reason: reports.ReasonNoKernelForDType, Count: 1, Phase: reports.PhaseStep, Nodes: []string{div}, Supported: []string{"DT_FLOAT", "DT_HALF"}},
					{Op: "MyCustomOp", DTypes: []string{"DT_FLOAT"}, Reason: reports.ReasonUnknownOp, Count: 1, Phase: reports.PhaseStep, Nodes: []string{"model/head/custom"}, Hint: "custom op from _my_ops.so"},
				},
				Placement: &reports.Placement{SoftPlacement: false, Partitions: 3, Transfers: 4, TransferBytes: 3 << 20, TransfersPerIteration: 4, IOTransfers: 2, IOBytes: 602112,
					AssumedDims: []string{"batch=1"},
					Error:       "Cannot assign a device for operation model/block_1/erf: Could not satisfy explicit device specification '/device:NPU:0' because no supported kernel for NPU devices is available.",
					PartitionEdges: []reports.PartitionEdge{
						{From: npu, To: cpu, Transfers: 2, Bytes: 2 << 20},
						{From: cpu, To: npu, Transfers: 2, Bytes: 1 << 20},
					},
					DeviceNodes:          map[string]int{npu: 6, cpu: 4},
					UnknownSizeTransfers: 1,
					PinnedNodes:          1,
					PinnedDevices:        map[string]int{"/job:localhost/replica:0/task:0/device:CPU:0": 1},
					Warnings:             []string{"resource model/var moved to CPU with its colocation group"},
					AMP:                  []reports.AMPNode{{Path: "model/conv1/Conv2D", Op: "Conv2D", DType: "DT_HALF", Covered: true}, {Path: "model/block_1/erf", Op: "Erf", DType: "DT_HALF", Covered: false}},
					Comparison: &reports.PlacementComparison{Matched: 9, Agreed: 8, Unmatched: []string{"model/extra"},
						Nodes: []reports.ComparedNode{{Name: "model/pool/MaxPool", Op: "MaxPool", Predicted: npu, Actual: cpu, Agree: false}, {Name: "model/conv1/Conv2D", Op: "Conv2D", Predicted: npu, Actual: npu, Agree: true}}}},
				Islands: []reports.Island{
					{Nodes: []string{"model/block_1/erf", div}, Bytes: 2 << 20, Cause: "Erf: no_kernel", Transfers: 2},
					{Nodes: []string{"model/head/custom"}, Bytes: 1 << 20, Cause: "MyCustomOp: unknown_op"},
					{Nodes: []string{"model/head/pinned"}, Bytes: 4096, Cause: `1 node(s) pinned to CPU by their device field "/job:localhost/replica:0/task:0/device:CPU:0"`, Transfers: 1, PinnedNodes: 1},
				},
				Wishlist: []reports.Wish{{Op: "Erf", DType: "DT_FLOAT", TransfersRemoved: 2, BytesRemoved: 2 << 20}, {Op: "RealDiv", DType: "DT_DOUBLE", TransfersRemoved: 0, BytesRemoved: 0}},
				Fusions:  []reports.Fusion{{Fused: "_FusedConv2D", Nodes: []string{"model/conv1/Conv2D", "model/conv1/BiasAdd", "model/conv1/Relu"}, Reason: "the remapper fuses Conv2D+BiasAdd+Relu only on GPU and CPU"}},
				Parity: &reports.Parity{Profile: "fp16", ATol: 1e-3, RTol: 1e-3, FirstDivergence: &first,
					Outputs: []reports.ParityOutput{{Name: "logits:0", MaxAbsError: 4.2e-4, MaxRelError: 1.5e-3, MaxULP: 12, Mismatches: 1, Pass: false,
						Stats: &reports.ErrStats{Max: 4.2e-4, Mean: 2.1e-6, Median: 1e-7, P99: 9e-5, Histogram: hist}}},
					Nodes: []reports.ParityNode{{Path: "model/block_1/erf", Op: "Erf", MaxAbsError: 4.2e-4, MaxRelError: 1.5e-3, MaxULP: 12, Mismatches: 1, Underflow: 3}}},
				Nodes: ascendNodes,
			},
			{
				Target:   "musa",
				Registry: reports.RegistryInfo{Name: "musa", Vendor: "Moore Threads", DeviceType: "MUSA", Mechanism: "kernel", Source: "example/musa@def456", Method: "documentation", Confidence: "low", ConfidenceLevel: "low"},
				Coverage: count(musaNodes),
				Uncovered: []reports.Uncovered{
					{Op: "Erf", DTypes: []string{"DT_FLOAT"}, Reason: reports.ReasonNoKernel, Count: 1, Phase: reports.PhaseStep, Nodes: []string{"model/block_1/erf"}},
					{Op: "MaxPool", DTypes: []string{"DT_FLOAT"}, Reason: reports.ReasonLabelMismatch, Count: 1, Phase: reports.PhaseStep, Nodes: []string{"model/pool/MaxPool"}},
					{Op: "MyCustomOp", DTypes: []string{"DT_FLOAT"}, Reason: reports.ReasonUnknownOp, Count: 1, Phase: reports.PhaseStep, Nodes: []string{"model/head/custom"}},
				},
				Nodes: musaNodes,
			},
			{
				Target:    "cpu",
				Registry:  reports.RegistryInfo{Name: "cpu", DeviceType: "CPU", Mechanism: "kernel", Source: "tensorflow/tensorflow@v2.15.0", Method: "source_extraction", Confidence: "high", ConfidenceLevel: "high"},
				Coverage:  count(cpuNodes),
				Uncovered: []reports.Uncovered{{Op: "MyCustomOp", DTypes: []string{"DT_FLOAT"}, Reason: reports.ReasonUnknownOp, Count: 1, Phase: reports.PhaseStep, Nodes: []string{"model/head/custom"}}},
				Nodes:     cpuNodes,
			},
		},
	}
	bNodes := []reports.NodeResult{
		{Path: "x", Op: "Placeholder", DTypes: []string{"DT_FLOAT"}, Reason: reports.ReasonCovered, Reachable: true, Phase: reports.PhaseStep},
		{Path: "y", Op: "Tanh", DTypes: []string{"DT_FLOAT"}, Reason: reports.ReasonCovered, Reachable: true, Phase: reports.PhaseStep},
	}
	modelB := &reports.Model{Path: "models/tiny.pbtxt", File: "models/tiny.pbtxt", Format: "graph_def_pbtxt", AssumedOutputs: []string{"y"}}
	for _, name := range []string{"ascend-910b", "musa", "cpu"} {
		modelB.Targets = append(modelB.Targets, &reports.Target{Target: name, Registry: reports.RegistryInfo{Name: name, Source: "builtin", Method: "documentation"},
			Coverage: count(bNodes), Nodes: append([]reports.NodeResult(nil), bNodes...)})
	}
	// Model A is compared with a cuda source on which everything but the
	// custom op ran on the GPU.
	for _, t := range modelA.Targets {
		fixtureDelta(t, "cuda", 1<<20)
	}
	r := &reports.Report{
		SchemaVersion: reports.SchemaVersion,
		Tool:          reports.Tool{Name: "tfscan", Version: "0.1.0-test"},
		Options: &reports.Options{Targets: []string{"ascend-910b", "musa", "cpu"}, From: "cuda", Phases: []string{reports.PhaseStep},
			Registries: []string{"sha256:" + strings.Repeat("ab", 32)}, Dims: map[string]int64{"batch": 8}, Precision: "mixed_float16",
			Nodes: reports.NodesAll},
		Models: []*reports.Model{modelB, modelA},
		Gate: &reports.Gate{Pass: false,
			Failures: []reports.GateFailure{
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
func fixtureDelta(t *reports.Target, source string, sourceBytes int64) {
	d := &reports.Delta{Source: source}
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
			n.Change = reports.ChangeAlreadyOnCPU
			d.AlreadyOnCPUNodes++
		case here:
			n.Change = reports.ChangeNewFallback
			d.NewFallbackNodes++
			d.NewFallbackOps = append(d.NewFallbackOps, reports.DeltaOp{Op: n.Op, DTypes: n.DTypes, Reason: n.Reason, Count: 1, Nodes: []string{n.Path}})
		}
	}
	t.Delta = d
}

// Attention is Fixture() as a scan with the default --nodes writes
// it: the same figures, only the nodes that need attention listed.
func Attention() *reports.Report {
	r := Fixture()
	r.Options.Nodes = reports.NodesAttention
	for _, m := range r.Models {
		for _, t := range m.Targets {
			t.KeepAttention(m.Findings)
		}
	}
	return r
}

// Rewritten is what `tfscan rewrite` reports: model B of the fixture
// scanned for musa, with a rewrite section that has an exact rule with a
// chained rule, a tolerance rule, a rule not applied, two proof runs and a
// node no run executed. The values are made up for rendering tests.
func Rewritten() *reports.Report {
	r := Fixture()
	m := r.Models[1]
	m.Targets = m.Targets[1:2]
	r.Models, r.Gate, r.Options = []*reports.Model{m}, nil, nil
	m.Targets[0].Rewrite = &reports.Rewrite{
		Output: "out/resnet",
		Rules: []reports.RewriteRule{
			{Rule: "unfuse-conv2d", Chained: []string{"decompose-relu6"}, Kind: "unfuse", Ops: []string{"_FusedConv2D"}, Nodes: 2,
				Paths: []string{"model/conv1", "model/conv2"}, Exactness: "exact", Claim: "bit-identical in float32",
				Semantics: "tensorflow/core/kernels/conv_ops_fused_impl.h:143", Checks: 2},
			{Rule: "cast-float16", Kind: "cast", Ops: []string{"MaxPool"}, Nodes: 1, Paths: []string{"model/pool/MaxPool"},
				Exactness: "tolerance", Claim: "within float16 rounding of the input", Semantics: "tensorflow/core/kernels/cast_op.cc:113",
				Checks: 1, MaxAbsError: 1.5e-4, MaxRelError: 4.8e-4},
		},
		Before: reports.RewriteFigures{Nodes: 10, Covered: 7, CoveragePercent: 70, FallbackNodes: 3, CPUNodes: 4, PinnedCPUNodes: 1,
			Partitions: 3, Transfers: 4, TransferBytes: 3 << 20},
		After: reports.RewriteFigures{Nodes: 14, Covered: 13, CoveragePercent: 92.86, FallbackNodes: 1, CPUNodes: 2, PinnedCPUNodes: 1,
			Partitions: 2, Transfers: 2, TransferBytes: 1 << 20},
		Proof: reports.RewriteProof{
			Runs: []reports.RewriteRun{
				{Name: "serving_default, seeded inputs (seed 1)", Outputs: 1, Identical: false, MaxAbsError: 2e-4, MaxRelError: 6e-4},
				{Name: "serving_default, the inputs of in.npz", Outputs: 1, Identical: false, MaxAbsError: 1e-4, MaxRelError: 3e-4},
			},
			NotExercised: []string{"model/conv2"},
		},
		Skipped: []reports.RewriteSkip{{Rule: "decompose-einsum", Op: "Einsum", Reason: "the replacement is not covered on the target either", Nodes: 1,
			Example: "model/head/einsum"}},
	}
	return r
}

// Errors is a repository scan in which two models could not be read:
// one good model, the two errors (out of order, as workers may leave them)
// and a gate that passed on the model that was read.
func Errors() *reports.Report {
	r := Fixture()
	r.Models = r.Models[:1] // models/tiny.pbtxt
	r.Gate = &reports.Gate{Pass: true}
	r.Errors = []reports.ScanError{
		{Path: "models/zz_garbage", File: "models/zz_garbage/saved_model.pb", Message: "models/zz_garbage/saved_model.pb: not a protobuf file (truncated or not a model): bad value of field 67583 at byte 3: cannot parse reserved wire type", Class: reports.ErrorClassModel},
		{Path: "models/broken <b>", Message: "models/broken <b>/saved_model.pb: not a protobuf file (truncated or not a model): unexpected EOF | & more", Class: reports.ErrorClassModel},
	}
	return r
}

// Big has one model with n nodes, most of them uncovered, each in its
// own uncovered group: the worst case for every writer's size.
func Big(n int) *reports.Report {
	t := &reports.Target{Target: "npu", Registry: reports.RegistryInfo{Name: "npu", Source: "test", Method: "documentation"}}
	for i := range n {
		op := fmt.Sprintf("Op%06d", i)
		reason := reports.ReasonNoKernel
		if i%10 == 0 {
			reason = reports.ReasonCovered
		}
		path := fmt.Sprintf("model/layer_%d/%s", i/100, op)
		t.Nodes = append(t.Nodes, reports.NodeResult{Path: path, Op: op, DTypes: []string{"DT_FLOAT"}, Reason: reason, Reachable: true, Device: "/device:NPU:0"})
		if !reports.IsCovered(reason) {
			t.Uncovered = append(t.Uncovered, reports.Uncovered{Op: op, DTypes: []string{"DT_FLOAT"}, Reason: reason, Count: 1, Nodes: []string{path}})
		}
		t.Coverage.NodesTotal++
	}
	return &reports.Report{SchemaVersion: reports.SchemaVersion, Tool: reports.Tool{Name: "tfscan", Version: "test"},
		Models: []*reports.Model{{Path: "big", File: "big/saved_model.pb", Format: "saved_model", Targets: []*reports.Target{t}}}}
}
