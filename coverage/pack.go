// Package coverage answers "does this node have a kernel on that device, for
// these dtypes?" the way TensorFlow's own kernel lookup does, against kernel
// registry packs whose provenance is recorded with them.
package coverage

import kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"

// Mechanism is how a vendor stack runs TensorFlow ops.
type Mechanism string

const (
	MechanismKernel       Mechanism = "kernel"        // per-op kernels (PluggableDevice, C++ device)
	MechanismGraphOffload Mechanism = "graph_offload" // whole supported subgraphs compiled into one op (Ascend GeOp)
	MechanismXLACluster   Mechanism = "xla_cluster"   // XLA devices
)

// Method is how a pack's kernel list was obtained.
type Method string

const (
	MethodSourceExtraction Method = "source_extraction"
	MethodLiveDump         Method = "live_dump"
	MethodDocumentation    Method = "documentation"
)

// Pack is one kernel registry: TensorFlow KernelDefs plus where they came
// from and how far to trust them.
type Pack struct {
	Name       string    `json:"name"`
	Vendor     string    `json:"vendor"`
	DeviceType string    `json:"device_type"`
	Mechanism  Mechanism `json:"mechanism"`
	TFVersion  string    `json:"tf_version"`
	// Source is a repository and commit, a document address and version, or
	// "live dump from <host/stack>".
	Source     string `json:"source"`
	Method     Method `json:"method"`
	Date       string `json:"date"`
	Confidence string `json:"confidence"`
	// UnresolvedOps are ops with at least one registration whose dtype
	// constraint the extractor could not resolve (a C++ template parameter,
	// a computed list). That constraint is left out of the KernelDef, so
	// such a kernel matches more dtypes than it may really accept; reports
	// should call coverage of these ops "dtype unverified".
	UnresolvedOps []string `json:"unresolved_ops,omitempty"`
	// Precision is the numeric profile the vendor stack uses by default
	// (a kernels/precision profile name, e.g. "tf32"); "" lets tfscan
	// parity assume one (precision.DefaultFor).
	Precision string `json:"precision,omitempty"`
	// Complete is, for a learned pack (MethodLearnedFromLog), the ops whose
	// full kernel list it holds per device type (see MergeLearned).
	Complete []CompleteOp `json:"complete_ops,omitempty"`
	// LearnedFrom names the learned packs merged into this one (their
	// sources); it is not written to pack files.
	LearnedFrom []string `json:"-"`
	// Stack is what the vendor stack does around the kernel lookup
	// (precision modes, partitioning options, graph optimizer), when the
	// extractor could read it; nil otherwise.
	Stack *Stack `json:"stack,omitempty"`
	// Kernels are the KernelDefs, DEFAULT device kernels included where the
	// source has them.
	Kernels []*kdpb.KernelDef `json:"-"`
}

// Reason is the one reason code each node gets against a target.
type Reason string

const (
	ReasonCovered          Reason = "covered"
	ReasonCoveredDefault   Reason = "covered_default"
	ReasonNoKernel         Reason = "no_kernel"
	ReasonNoKernelForDType Reason = "no_kernel_for_dtype"
	ReasonLabelMismatch    Reason = "label_mismatch"
	ReasonUnknownOp        Reason = "unknown_op"
	ReasonFunctionCall     Reason = "function_call"
)

// Reasons a stack's precision mode gives a float32 node (Pack.Stack).
const (
	// ReasonCoveredLowerPrecision: the node runs on the target, but the
	// stack's compiler computes it in a narrower float type (Match.Lowered).
	ReasonCoveredLowerPrecision Reason = "covered_lower_precision"
	// ReasonPrecisionModeError: the stack's compiler rejects the node under
	// the precision mode (Match.StackError says why).
	ReasonPrecisionModeError Reason = "precision_mode_error"
)

// Covered reports whether a node with this reason runs on the target (its
// own kernels, its DEFAULT kernels, lowered precision, or a function call
// whose body nodes carry their own reasons).
func (r Reason) Covered() bool {
	switch r {
	case ReasonCovered, ReasonCoveredDefault, ReasonCoveredLowerPrecision, ReasonFunctionCall:
		return true
	}
	return false
}
