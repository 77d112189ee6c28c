package reports

import (
	"fmt"
	"slices"
	"strings"
)

// Reason codes as they appear in reports. They mirror coverage.Reason (the
// reports package must not import the domain packages' internals to stay a
// leaf of the data flow, so the strings are repeated here) plus the security
// finding kind unsafe_op.
const (
	ReasonCovered          = "covered"
	ReasonCoveredDefault   = "covered_default"
	ReasonNoKernel         = "no_kernel"
	ReasonNoKernelForDType = "no_kernel_for_dtype"
	ReasonLabelMismatch    = "label_mismatch"
	ReasonUnknownOp        = "unknown_op"
	ReasonFunctionCall     = "function_call"
	// ReasonCoveredLowerPrecision: runs on the target, but its stack
	// computes the float32 node in a narrower type (precision mode).
	ReasonCoveredLowerPrecision = "covered_lower_precision"
	// ReasonPrecisionModeError: the stack's compiler rejects the node under
	// its precision mode.
	ReasonPrecisionModeError = "precision_mode_error"
	ReasonOpNewerThanStack   = "op_newer_than_stack"
	KindUnsafeOp             = "unsafe_op"
	// KindModelError is a model that could not be scanned (Report.Errors).
	KindModelError = "model_error"
)

// Changes of a node against the source (NodeResult.Change), and the
// reason a delta gives a new fallback that has a kernel on the target.
const (
	ChangeNewFallback    = "new_fallback"
	ChangeAlreadyOnCPU   = "already_on_cpu"
	ChangeBetterOnTarget = "better_on_target"
	// ReasonPlacedOnCPU: the target has a kernel, but the placement puts
	// the node on CPU (colocation with a CPU-only node, a device pin, a
	// generator following its consumer); the node's reasons say which.
	ReasonPlacedOnCPU = "placed_on_cpu"
)

// Phases as reports name them (graph.Phase), in the order they are shown.
const (
	PhaseStep        = "step"
	PhaseLoad        = "load"
	PhaseSave        = "save"
	PhaseUnreachable = "unreachable"
)

// Phases lists the phase names in display order.
var Phases = []string{PhaseStep, PhaseLoad, PhaseSave, PhaseUnreachable}

// PhaseRank orders phase names as Phases does; "" (no phase) comes first.
func PhaseRank(phase string) int { return slices.Index(Phases, phase) + 1 }

// Rule is a SARIF rule: one per reason code, with a stable id. The ids are
// part of tfscan's interface (code-scanning alerts are keyed by them); never
// renumber, only append. docs/ci.md lists the map.
type Rule struct {
	ID          string
	Code        string
	Name        string
	Description string
	Help        string
	Level       string // SARIF level: error, warning, note
}

// Rules is the stable reason-code → SARIF rule map.
var Rules = []Rule{
	{"TFS001", ReasonNoKernel, "NoKernel", "The op has no kernel on the target device.",
		"No KernelDef is registered for this op on the target device type; TensorFlow falls back to CPU (soft placement) or fails. Ask the vendor for the kernel, rewrite the op, or accept the fallback with an ignore entry.", "error"},
	{"TFS002", ReasonNoKernelForDType, "NoKernelForDType", "The op has target kernels, but not for these dtypes.",
		"Kernels exist on the target but their type constraints exclude the node's dtypes. Cast to a supported dtype (see 'supported') or ask the vendor.", "error"},
	{"TFS003", ReasonLabelMismatch, "LabelMismatch", "Target kernels exist only under a different kernel label.",
		"The node's _kernel label selects a kernel that the target does not register.", "error"},
	{"TFS004", ReasonUnknownOp, "UnknownOp", "The op is not a TensorFlow 2.15 op and is not in the model's op list.",
		"Probably a custom op: it needs its library loaded and its own kernel built for the target.", "warning"},
	{"TFS005", ReasonFunctionCall, "FunctionCall", "A function call node; the nodes of the called function are checked one by one.",
		"Not a gap by itself: look at the results for the nodes inside the called function.", "note"},
	{"TFS006", ReasonCoveredDefault, "CoveredDefault", "Covered only by a DEFAULT-device kernel.",
		"The op runs through a device-agnostic DEFAULT kernel (usually host memory); it does not fall back but does not use the accelerator either.", "note"},
	{"TFS100", KindUnsafeOp, "UnsafeOp", "The model contains an op that touches files, the network or runs code.",
		"Review why a serving model needs this op (saved_model_cli scan reports the same ops); remove it before deploying.", "error"},
	{"TFS200", KindModelError, "ModelError", "The model could not be read or analysed, so nothing in it was checked.",
		"The message names the file and the problem (a truncated or corrupt file, a graph TensorFlow would refuse). Fix or remove the model; until then tfscan exits 3.", "error"},
	{"TFS007", ReasonCoveredLowerPrecision, "CoveredLowerPrecision", "The node runs on the target, but its stack computes it in a narrower float type.",
		"The stack's precision mode (e.g. CANN's allow_fp32_to_fp16) runs this float32 node in float16 or bfloat16 on the device. It does not fall back; measure the numeric effect with 'tfscan parity', or choose another precision mode.", "warning"},
	{"TFS008", ReasonPrecisionModeError, "PrecisionModeError", "The stack's compiler rejects the node under its precision mode.",
		"Under a mode that keeps float32 (e.g. must_keep_origin_dtype) a node whose device kernel supports only float16 cannot be compiled: the graph fails to build. Choose a precision mode that allows float16, or cast the node.", "error"},
	{"TFS009", ReasonOpNewerThanStack, "OpNewerThanStack", "The op did not exist yet in the TensorFlow release the target stack ships.",
		"The target (a derived pack) ships an older TensorFlow than the one the model was written with; no device there can run this op. Re-export the model for that TensorFlow version or replace the op.", "error"},
}

// RuleFor returns the rule for a reason code. Codes tfscan does not know
// (a newer producer) map to TFS999 so that SARIF stays valid.
func RuleFor(code string) Rule {
	for _, r := range Rules {
		if r.Code == code {
			return r
		}
	}
	return Rule{ID: "TFS999", Code: code, Name: "Other", Description: fmt.Sprintf("Reason code %q.", code),
		Help: "A reason code this version of tfscan has no description for.", Level: "warning"}
}

// IsCovered reports whether a node with this reason runs on the target device
// (or on its DEFAULT kernels) without falling back. A function_call node is
// the call itself (PartitionedCall, While, If ...), which every device runs;
// the nodes of its body carry their own reasons.
func IsCovered(reason string) bool {
	return reason == ReasonCovered || reason == ReasonCoveredDefault || reason == ReasonFunctionCall ||
		reason == ReasonCoveredLowerPrecision
}

// Category buckets a reason code for the HTML chart: "covered" (covered and
// function_call), "default" (covered_default), "unknown" (unknown_op) or
// "fallback" (everything else, i.e. the node leaves the target device).
func Category(reason string) string {
	switch reason {
	case ReasonCovered, ReasonFunctionCall, ReasonCoveredLowerPrecision:
		return "covered"
	case ReasonCoveredDefault:
		return "default"
	case ReasonUnknownOp:
		return "unknown"
	}
	return "fallback"
}

// CoveragePercent is the share of nodes covered on a target, in percent,
// over the counted nodes (CountedNodes); an empty graph is 100 % covered.
func (t *Target) CoveragePercent() float64 {
	total, covered := t.CountedNodes()
	if total == 0 {
		return 100
	}
	return 100 * float64(covered) / float64(total)
}

// CountedNodes are the denominator and numerator of the coverage
// percentage: the nodes of the counted phases (Coverage.Phases); in a
// report without phases, the reachable nodes when the scan computed
// reachability, else all nodes.
func (t *Target) CountedNodes() (total, covered int) {
	c := &t.Coverage
	switch {
	case len(c.Phases) > 0:
		return c.CountedNodesTotal, c.CountedNodesCovered
	case c.ReachableNodesTotal > 0:
		return c.ReachableNodesTotal, c.ReachableNodesCovered
	}
	return c.NodesTotal, c.NodesCovered
}

// CountsPhase tells whether the target's figures count nodes of a phase
// (every phase in a report without phases).
func (t *Target) CountsPhase(phase string) bool {
	return len(t.Coverage.Phases) == 0 || slices.Contains(t.Coverage.Phases, phase)
}

// Counts tells whether the target's figures count a node: its phase is
// counted or, in a report without phases, it is reachable when the scan
// computed reachability.
func (t *Target) Counts(n *NodeResult) bool {
	if len(t.Coverage.Phases) > 0 {
		return slices.Contains(t.Coverage.Phases, n.Phase)
	}
	return n.Reachable || t.Coverage.ReachableNodesTotal == 0
}

// FallbackNodes is the number of counted nodes (see Counts) predicted to
// leave the target device. With a placement it is the nodes placed on CPU
// (when the target itself is not a CPU); without one it is the uncovered
// nodes.
func (t *Target) FallbackNodes() int {
	if p := t.Placement; p != nil && len(p.DeviceNodes) > 0 && t.Registry.DeviceType != "CPU" {
		n := 0
		for dev, c := range p.DeviceNodes {
			if IsCPUDevice(dev) {
				n += c
			}
		}
		return n
	}
	n := 0
	for i := range t.Nodes {
		if t.Counts(&t.Nodes[i]) && !IsCovered(t.Nodes[i].Reason) {
			n++
		}
	}
	return n
}

// LeavesDevice tells whether a node leaves the target's accelerator: the
// placement puts it on CPU (when the target is not itself a CPU), or,
// without a placement, it is uncovered. FallbackNodes counts these.
func (t *Target) LeavesDevice(n *NodeResult) bool {
	if t.Placement != nil && n.Device != "" && t.Registry.DeviceType != "CPU" {
		return IsCPUDevice(n.Device)
	}
	return !IsCovered(n.Reason)
}

// IsCPUDevice says whether a device name, full or short, names a CPU.
func IsCPUDevice(dev string) bool {
	// "CPU", "CPU:0", "/device:CPU:0", "/job:localhost/replica:0/task:0/device:CPU:0"
	return strings.EqualFold(deviceType(dev), "cpu")
}
