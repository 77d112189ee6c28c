// Package coverage answers "does this node have a kernel on that device, for
// these dtypes?" the way TensorFlow's own kernel lookup does, against kernel
// registry packs whose provenance is recorded with them.
package coverage

import (
	kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"
	opdefpb "github.com/wamuir/graft/tensorflow/core/framework/op_def_go_proto"
)

// Mechanism is how a vendor stack runs TensorFlow ops.
type Mechanism string

const (
	MechanismKernel       Mechanism = "kernel"        // per-op kernels (PluggableDevice, C++ device)
	MechanismGraphOffload Mechanism = "graph_offload" // whole supported subgraphs compiled into one op (Ascend GeOp)
	MechanismXLACluster   Mechanism = "xla_cluster"   // XLA devices
	// MechanismDerived: no registry of the vendor's own, but public
	// evidence that the stack runs another pack's kernels (Iluvatar
	// CoreX runs TensorFlow's CUDA kernels); Pack.Derived says how.
	MechanismDerived Mechanism = "derived"
)

// Level is how far a pack can be trusted, in three steps that reports show
// next to every coverage figure and that `check --min-confidence` gates on.
type Level string

const (
	LevelHigh   Level = "high"   // the vendor's own registry, read from source or a live dump
	LevelMedium Level = "medium" // a registry known to be partial, or derived with strong evidence
	LevelLow    Level = "low"    // an upper bound, or derived with weak evidence
)

// Rank orders levels: high 3, medium 2, low 1, anything else 0.
func (l Level) Rank() int {
	switch l {
	case LevelHigh:
		return 3
	case LevelMedium:
		return 2
	case LevelLow:
		return 1
	}
	return 0
}

// Derivation records how a derived pack follows from its base pack.
type Derivation struct {
	// Base is the built-in pack whose kernels the stack runs.
	Base string `json:"base"`
	// BaseMechanism is how the stack runs ops (kernel, xla_cluster): the
	// base pack's mechanism, which placement and matching follow.
	BaseMechanism Mechanism `json:"base_mechanism"`
	// BaseTFVersion is the TensorFlow version the base pack was read
	// from; Pack.TFVersion is the one the vendor ships.
	BaseTFVersion string `json:"base_tf_version"`
	// Rule says which of the base's kernels the stack has, in words.
	Rule string `json:"rule"`
	// Evidence are the public sources, "owner/repo path: what it shows".
	Evidence []string `json:"evidence"`
	// VersionCheck says how ops newer than the vendor's TensorFlow were
	// found, and what that check cannot know.
	VersionCheck string `json:"version_check,omitempty"`
}

// Method is how a pack's kernel list was obtained.
type Method string

const (
	MethodSourceExtraction Method = "source_extraction"
	MethodLiveDump         Method = "live_dump"
	MethodDocumentation    Method = "documentation"
	// MethodDerived: another pack's kernels, kept by a rule that public
	// evidence supports (see Derivation).
	MethodDerived Method = "derived"
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
	Source string `json:"source"`
	Method Method `json:"method"`
	Date   string `json:"date"`
	// Confidence states the pack's limits in words; ConfidenceLevel sums
	// them up in one Level.
	Confidence      string `json:"confidence"`
	ConfidenceLevel Level  `json:"confidence_level"`
	// BuildFlags are the preprocessor defines the extraction assumed:
	// the build configuration of the stack the pack describes.
	BuildFlags []string `json:"build_flags,omitempty"`
	// Derived is set for mechanism "derived".
	Derived *Derivation `json:"derived,omitempty"`
	// NewerThanStack are ops the base pack has but whose OpDef did not yet
	// exist in the TensorFlow the vendor ships: nodes of them get reason
	// op_newer_than_stack.
	NewerThanStack []string `json:"ops_newer_than_stack,omitempty"`
	// OpDefs are the OpDefs a live dump carried for ops tfscan's embedded
	// TensorFlow OpDefs lack (vendor custom ops).
	OpDefs []*opdefpb.OpDef `json:"-"`
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
	// source has them. In a pack read from a file, kernels share the
	// constraint messages that are written the same (packfast.go): clone a
	// kernel (proto.Clone) before changing one of its constraints.
	Kernels []*kdpb.KernelDef `json:"-"`

	// lazy holds the kernels of a built-in pack read lazily
	// (BuiltinPackLazy), whose Kernels are nil.
	lazy *lazyKernels
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
	// ReasonOpNewerThanStack: the op's OpDef did not exist in the
	// TensorFlow the (derived) stack ships, so no kernel can run it there.
	ReasonOpNewerThanStack Reason = "op_newer_than_stack"
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

// RunsAs is how the stack runs ops: the mechanism, or for a derived pack its
// base's.
func (p *Pack) RunsAs() Mechanism {
	if p.Mechanism == MechanismDerived && p.Derived != nil {
		return p.Derived.BaseMechanism
	}
	return p.Mechanism
}
