// Package reports holds tfscan's result model: the scan report (JSON schema
// version 2, schema/report.schema.json), the inspect and explain reports,
// the codes and counts every reader shares, and reading a report back. It
// imports only the standard library, so that any producer or consumer can use
// it; the writers (reports/table, jsonout, html, markdown, sarif, junit) render
// it and reports/gate judges it.
package reports

// SchemaVersion is the version of the JSON report. Within a version, changes
// are additive only. Version 2 lists per node only the nodes that need
// attention (Target.NeedsAttention) unless the scan asked for all
// (Options.Nodes), and counts every op in Target.Ops.
const SchemaVersion = 2

// SchemaVersion1 is the version before: every node listed. Baselines of
// version 1 are read (the gate finds in them what it needs); merge and
// check --results refuse them.
const SchemaVersion1 = 1

// InspectSchemaVersion and ExplainSchemaVersion are the versions of
// `tfscan inspect` and `tfscan explain` JSON, which version 2 of the report
// left unchanged.
const (
	InspectSchemaVersion = 1
	ExplainSchemaVersion = 1
)

// Report is the result of one tfscan scan, check or parity run.
type Report struct {
	SchemaVersion int  `json:"schema_version"`
	Tool          Tool `json:"tool"`
	// Options are the scan options that change results; absent in reports
	// of tools that did not record them.
	Options *Options `json:"options,omitempty"`
	Models  []*Model `json:"models"`
	// Gate is set by `tfscan check`. It is evaluated on Models only: a
	// model in Errors is not in it (the exit code says so instead).
	Gate *Gate `json:"gate,omitempty"`
	// Errors are the models that could not be scanned, one entry each, in
	// path order; the models that could are in Models. A report with errors
	// never ends a run with success (README, Exit codes).
	Errors []ScanError `json:"errors,omitempty"`
}

// ScanError is one model that could not be scanned.
type ScanError struct {
	// Path is the model as found from the paths given.
	Path string `json:"path"`
	// File is the file the problem is in (e.g. the SavedModel's
	// saved_model.pb), when it is known and differs from Path.
	File string `json:"file,omitempty"`
	// Message is the one line tfscan prints for it; it names the file.
	Message string `json:"message"`
	// Class says what failed and so which exit code it leads to; see the
	// ErrorClass constants.
	Class string `json:"class"`
}

// Error classes of ScanError. The list may grow; consumers treat an
// unknown class as a failure.
const (
	// ErrorClassModel is a model that could not be read or analysed (exit 3).
	ErrorClassModel = "model"
)

// Tool names the program that wrote a report.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Model is one scanned model.
type Model struct {
	Path      string `json:"path"`
	File      string `json:"file"`
	Format    string `json:"format"`
	Signature string `json:"signature,omitempty"`
	// AssumedOutputs are the node names taken for the outputs of a model
	// without signatures (and without --fetch), by TensorFlow's
	// summarize_graph rule; the placement fetches output 0 of each that has
	// outputs, and its io_transfers/io_bytes include those copies.
	AssumedOutputs []string `json:"assumed_outputs,omitempty"`
	// Findings are security findings (unsafe_op), independent of targets.
	Findings []Finding `json:"findings"`
	Targets  []*Target `json:"targets"`
}

// Finding is one security finding (Model.Findings, kind unsafe_op) or one
// finding about a target's stack (Target.Findings: covered_lower_precision
// warnings, precision_mode_error errors).
type Finding struct {
	Kind    string `json:"kind"`
	Op      string `json:"op"`
	Path    string `json:"path"`
	Message string `json:"message"`
	// Severity is "error" or "warning" for a target's findings.
	Severity string `json:"severity,omitempty"`
}

// Target is one model against one target registry.
type Target struct {
	Target   string       `json:"target"`
	Registry RegistryInfo `json:"registry"`
	// Stack is what the target's stack was assumed to do (precision mode,
	// partitioning), when its pack declares it.
	Stack     *StackInfo  `json:"stack,omitempty"`
	Coverage  Coverage    `json:"coverage"`
	Uncovered []Uncovered `json:"uncovered"`
	Placement *Placement  `json:"placement,omitempty"`
	Islands   []Island    `json:"islands"`
	Wishlist  []Wish      `json:"wishlist"`
	Fusions   []Fusion    `json:"fusions,omitempty"`
	// LowerPrecision groups the covered_lower_precision nodes: covered,
	// but computed by the stack in a narrower type.
	LowerPrecision []LowerPrecision `json:"lower_precision,omitempty"`
	// Findings are the target's warnings and errors about its stack.
	Findings []Finding `json:"findings,omitempty"`
	Parity   *Parity   `json:"parity,omitempty"`
	// Delta is what changes against the GPU the model runs on today
	// (--from, cuda by default); absent with --from none.
	Delta *Delta `json:"delta,omitempty"`
	// Rewrite is what `tfscan rewrite` did for this target.
	Rewrite *Rewrite `json:"rewrite,omitempty"`
	// RewriteRemovesFallback is, in `tfscan check`, how many fallback
	// nodes `tfscan rewrite` would remove on this target (nil when not
	// asked).
	RewriteRemovesFallback *int `json:"rewrite_removes_fallback_nodes,omitempty"`
	// Training breaks the figures down by part of the training step, for
	// a training graph only.
	Training *Training `json:"training,omitempty"`
	// XLA checks the functions marked for XLA compilation, for a graph
	// with some.
	XLA *XLA `json:"xla,omitempty"`
	// Ops counts the nodes the figures count (Counts) per op and reason:
	// the op × target matrix, exact whatever Nodes lists. Sorted by op.
	Ops []OpCoverage `json:"ops"`
	// Nodes are the nodes that need attention (NeedsAttention), or every
	// node when the scan asked for all (Options.Nodes), by path. It must
	// stay the last field: the JSON writer streams it.
	Nodes []NodeResult `json:"nodes"`
}

// OpCoverage is how the counted nodes of one op fare on a target.
type OpCoverage struct {
	Op       string         `json:"op"`
	Nodes    int            `json:"nodes"`
	ByReason map[string]int `json:"by_reason"`
}

// Delta compares a target with the source the model runs on today, over
// the nodes the target's figures count (Coverage.Phases). A node "falls
// back" where it leaves the accelerator (Target.LeavesDevice): placed on
// CPU, or without a placement, uncovered.
type Delta struct {
	// Source is the --from pack, e.g. "cuda".
	Source string `json:"source"`
	// NewFallbackNodes fall back on the target but ran on the source's
	// accelerator: what the migration makes worse.
	NewFallbackNodes int `json:"new_fallback_nodes"`
	// AlreadyOnCPUNodes fall back on both: not a migration problem.
	AlreadyOnCPUNodes int `json:"already_on_cpu_nodes"`
	// BetterOnTargetNodes fall back on the source only.
	BetterOnTargetNodes int `json:"better_on_target_nodes"`
	// TransferBytesDelta is the target's transfer bytes per step less the
	// source's (0 when either has no placement).
	TransferBytesDelta int64 `json:"transfer_bytes_delta"`
	// TransferBytesPartial is set when the target's or the source's
	// transfer_bytes leaves out transfers of unknown size: the delta is
	// then between the sizes known on each side, not a bound.
	TransferBytesPartial bool `json:"transfer_bytes_partial,omitempty"`
	// NewFallbackOps groups the new fallbacks by op, dtypes and reason,
	// most nodes first.
	NewFallbackOps []DeltaOp `json:"new_fallback_ops"`
}

// DeltaOp is one group of new fallbacks.
type DeltaOp struct {
	Op     string   `json:"op"`
	DTypes []string `json:"dtypes"`
	// Reason is the target's reason code for the node, or placed_on_cpu
	// for a node with a kernel that the placement puts on CPU.
	Reason string `json:"reason"`
	Count  int    `json:"count"`
	// Nodes are the paths of every node of the group.
	Nodes []string `json:"nodes"`
}

// RegistryInfo is the provenance of the pack a target was checked against.
type RegistryInfo struct {
	Name       string `json:"name"`
	Vendor     string `json:"vendor,omitempty"`
	DeviceType string `json:"device_type,omitempty"`
	Mechanism  string `json:"mechanism,omitempty"`
	Source     string `json:"source"`
	Method     string `json:"method"`
	Confidence string `json:"confidence,omitempty"`
	// LearnedFrom are the sources of the packs learned from logs that
	// correct this one (tfscan explain --learn-registry, scan --registry).
	LearnedFrom []string `json:"learned_from,omitempty"`
	// ConfidenceLevel is high, medium or low: how far the figures of this
	// target can be trusted; writers show it next to the coverage figure
	// unless it is high.
	ConfidenceLevel string `json:"confidence_level,omitempty"`
	// Base is the pack a derived pack was built from.
	Base string `json:"base,omitempty"`
	// TFVersion is the TensorFlow version of the stack the pack describes.
	TFVersion string `json:"tf_version,omitempty"`
}

// CoverageLevel is the confidence to print next to the target's coverage
// figure: the pack's level when it is below high, "" for a high-confidence
// pack or a report written before levels existed.
func (t *Target) CoverageLevel() string {
	if t.Registry.ConfidenceLevel == "high" {
		return ""
	}
	return t.Registry.ConfidenceLevel
}

// Coverage counts nodes and distinct ops, all nodes and reachable ones.
type Coverage struct {
	NodesTotal            int `json:"nodes_total"`
	NodesCovered          int `json:"nodes_covered"`
	OpsTotal              int `json:"ops_total"`
	OpsCovered            int `json:"ops_covered"`
	ReachableNodesTotal   int `json:"reachable_nodes_total"`
	ReachableNodesCovered int `json:"reachable_nodes_covered"`
	// DTypeUnverifiedNodes are covered nodes whose kernel's dtype
	// constraint the registry extractor could not resolve (the pack's
	// unresolved_ops): covered by op, not proven for these dtypes.
	DTypeUnverifiedNodes int `json:"dtype_unverified_nodes,omitempty"`
	// LowerPrecisionNodes are covered nodes the stack's precision mode
	// computes in a narrower type (covered_lower_precision).
	LowerPrecisionNodes int            `json:"lower_precision_nodes,omitempty"`
	ByReason            map[string]int `json:"by_reason"`
	// Phases are the phases the coverage percentage, the fallback count,
	// islands, wishlist, partitions and transfer bytes count: ["step"] by
	// default (the work done on every call), every phase with --phase all.
	// Absent in reports written before phases existed.
	Phases []string `json:"phases,omitempty"`
	// CountedNodesTotal and CountedNodesCovered are the nodes of those
	// phases: the one denominator of the coverage percentage.
	CountedNodesTotal   int `json:"counted_nodes_total,omitempty"`
	CountedNodesCovered int `json:"counted_nodes_covered,omitempty"`
	// ByPhase counts nodes, and covered nodes, per phase.
	ByPhase map[string]PhaseCount `json:"by_phase,omitempty"`
}

// PhaseCount is the nodes of one phase and how many of them are covered.
type PhaseCount struct {
	Nodes   int `json:"nodes"`
	Covered int `json:"covered"`
}

// Uncovered groups uncovered nodes by (op, dtypes, reason).
type Uncovered struct {
	Op     string   `json:"op"`
	DTypes []string `json:"dtypes"`
	Reason string   `json:"reason"`
	Count  int      `json:"count"`
	// Nodes are example node paths (at most a few).
	Nodes []string `json:"nodes"`
	// Supported names the dtypes that do have kernels (no_kernel_for_dtype).
	Supported []string `json:"supported,omitempty"`
	// Hint is e.g. the library a custom op probably needs.
	Hint string `json:"hint,omitempty"`
	// Phase is when these nodes run: step, load, save or unreachable.
	Phase string `json:"phase,omitempty"`
}

// Placement summarises the predicted device partitioning.
type Placement struct {
	SoftPlacement         bool     `json:"soft_placement"`
	Partitions            int      `json:"partitions"`
	Transfers             int      `json:"transfers"`
	TransferBytes         int64    `json:"transfer_bytes"`
	TransfersPerIteration int      `json:"transfers_per_iteration"`
	IOTransfers           int      `json:"io_transfers"`
	IOBytes               int64    `json:"io_bytes"`
	AssumedDims           []string `json:"assumed_dims"`
	// Error is the first error TensorFlow would raise placing the model on
	// this target, in its words: with soft placement off (see
	// SoftPlacement) any unsatisfiable request, and with it on what soft
	// placement cannot help (a malformed device field, an op without a
	// kernel on any device, a pinned resource). `check` fails on it.
	Error string `json:"error,omitempty"`
	// PartitionEdges are the transfers between device partitions, for the
	// partition picture.
	PartitionEdges []PartitionEdge `json:"partition_edges,omitempty"`
	// DeviceNodes counts nodes per predicted device.
	DeviceNodes map[string]int `json:"device_nodes,omitempty"`
	// UnknownSizeTransfers counts transfers whose size could not be told
	// (unknown shapes, strings, variants); their bytes are not in the sums.
	UnknownSizeTransfers int `json:"unknown_size_transfers,omitempty"`
	// UnknownSizeIOTransfers are the io transfers among them. io_bytes is
	// a lower bound when it is above 0, transfer_bytes when
	// UnknownSizeTransfers is above it (TransferBytesPartial).
	UnknownSizeIOTransfers int `json:"unknown_size_io_transfers,omitempty"`
	// Warnings are messages TensorFlow would log (resources moved, bodies
	// that will fail at run time).
	Warnings []string `json:"warnings,omitempty"`
	// AMP lists the nodes auto mixed precision would convert (with
	// --precision) and whether the target has the half kernel.
	AMP []AMPNode `json:"amp,omitempty"`
	// Comparison is the agreement with a real placement log (--compare-log).
	Comparison *PlacementComparison `json:"comparison,omitempty"`
	// PinnedNodes counts the counted nodes (Target.Counts) whose device
	// field requests a device the simulation honoured; PinnedDevices counts
	// them per device field as written. ClearedDevices counts the top-level device fields
	// --clear-devices dropped (TensorFlow's clear_devices=True import).
	PinnedNodes    int            `json:"pinned_nodes,omitempty"`
	PinnedDevices  map[string]int `json:"pinned_devices,omitempty"`
	ClearedDevices int            `json:"cleared_devices,omitempty"`
}

// AMPNode is one node auto mixed precision would run in half precision.
type AMPNode struct {
	Path    string `json:"path"`
	Op      string `json:"op"`
	DType   string `json:"dtype"`
	Covered bool   `json:"covered"`
}

// PlacementComparison compares the prediction with a placement log.
type PlacementComparison struct {
	Matched   int      `json:"matched"`
	Agreed    int      `json:"agreed"`
	Unmatched []string `json:"unmatched,omitempty"`
	// Nodes are the matched nodes, disagreements first.
	Nodes []ComparedNode `json:"nodes,omitempty"`
}

// ComparedNode is one node's predicted and logged device.
type ComparedNode struct {
	Name      string `json:"name"`
	Op        string `json:"op"`
	Predicted string `json:"predicted"`
	Actual    string `json:"actual"`
	Agree     bool   `json:"agree"`
}

// PartitionEdge is the traffic from one device partition to another.
type PartitionEdge struct {
	From      string `json:"from"`
	To        string `json:"to"`
	Transfers int    `json:"transfers"`
	Bytes     int64  `json:"bytes"`
}

// Island is a maximal connected group of nodes placed on CPU between device nodes.
type Island struct {
	Nodes []string `json:"nodes"`
	Bytes int64    `json:"bytes"`
	Cause string   `json:"cause"`
	// Transfers counts the copies crossing the island's border per run.
	Transfers int `json:"transfers,omitempty"`
	// PinnedNodes counts the island's nodes a device field holds on CPU
	// although the target has their kernel (the cause then says so).
	PinnedNodes int `json:"pinned_nodes,omitempty"`
}

// Wish is a missing kernel and what adding it would remove.
type Wish struct {
	Op               string `json:"op"`
	DType            string `json:"dtype"`
	TransfersRemoved int    `json:"transfers_removed"`
	BytesRemoved     int64  `json:"bytes_removed"`
}

// StackInfo is what a target's stack was assumed to do.
type StackInfo struct {
	// PrecisionMode is the stack's precision mode applied to float32
	// nodes, with where the stack lists it and where it is documented.
	PrecisionMode       string `json:"precision_mode,omitempty"`
	PrecisionModeSource string `json:"precision_mode_source,omitempty"`
	PrecisionModeDoc    string `json:"precision_mode_doc,omitempty"`
	// Options are every stack option's value.
	Options map[string]string `json:"options,omitempty"`
	// Assumed says in words which settings were assumed and why.
	Assumed string `json:"assumed"`
	// HostPartitions is how unsupported ops run: "mixed" (host partitions
	// next to any number of compiled clusters) or "one_cluster" (one
	// compiled cluster; everything else on the host), with its source.
	HostPartitions       string `json:"host_partitions,omitempty"`
	HostPartitionsSource string `json:"host_partitions_source,omitempty"`
}

// LowerPrecision groups nodes the stack computes in a narrower type.
type LowerPrecision struct {
	Op     string   `json:"op"`
	DTypes []string `json:"dtypes"`
	// LoweredTo is the type the stack computes them in; InputsOnly is set
	// when only the inputs are rounded and the output stays float32.
	LoweredTo  string `json:"lowered_to"`
	InputsOnly bool   `json:"inputs_only,omitempty"`
	How        string `json:"how"`
	Count      int    `json:"count"`
	// Nodes are example node paths (at most a few).
	Nodes []string `json:"nodes"`
}

// Fusion is a Grappler remapper fusion that applies on the source GPU but
// not on the target.
type Fusion struct {
	Fused  string   `json:"fused"`
	Nodes  []string `json:"nodes"`
	Reason string   `json:"reason"`
	// Count is how many chains the entry stands for, when the report
	// lists one chain (Nodes) for all the chains of a fused op lost for
	// one reason (--nodes attention); 0 when the entry is its one chain.
	Count int `json:"count,omitempty"`
}

// Chains is how many chains the entry stands for (Count, or 1).
func (f Fusion) Chains() int { return max(f.Count, 1) }

// NodeResult is one node against one target.
type NodeResult struct {
	Path      string   `json:"path"`
	Op        string   `json:"op"`
	DTypes    []string `json:"dtypes,omitempty"`
	Reason    string   `json:"reason"`
	Reachable bool     `json:"reachable"`
	// Phase is when the node runs: step (every call of the scanned
	// signatures), load (once, when the model is loaded), save (when a
	// checkpoint is written) or unreachable.
	Phase string `json:"phase,omitempty"`
	// LoweredTo is, for covered_lower_precision, the type the stack
	// computes the node in.
	LoweredTo string   `json:"lowered_to,omitempty"`
	Device    string   `json:"device,omitempty"`
	Reasons   []string `json:"reasons,omitempty"`
	// SourceDevice is where the node runs on the source (--from), when
	// both were placed.
	SourceDevice string `json:"source_device,omitempty"`
	// Change says what the target changes for this node against the
	// source: new_fallback, already_on_cpu or better_on_target; empty when
	// nothing changes (it runs on the accelerator on both) or there is no
	// source.
	Change string `json:"change,omitempty"`
	// RequestedDevice is the node's own device field when the placement
	// honoured it (a device pin).
	RequestedDevice string `json:"requested_device,omitempty"`
	// Part is the part of the training step the node belongs to (forward,
	// backward, optimizer, loss_scale, collective, input), in a training
	// graph only.
	Part string `json:"part,omitempty"`
}

// Parity is the numeric comparison of a model under a precision profile.
type Parity struct {
	Profile         string         `json:"profile"`
	ATol            float64        `json:"atol"`
	RTol            float64        `json:"rtol"`
	FirstDivergence *string        `json:"first_divergence"`
	Outputs         []ParityOutput `json:"outputs"`
	Nodes           []ParityNode   `json:"nodes"`
	Golden          []ParityOutput `json:"golden,omitempty"`
	// LoweredNodes counts the nodes the target's precision mode runs in a
	// narrower type (each is in Nodes with LoweredTo set).
	LoweredNodes int `json:"lowered_nodes,omitempty"`
	// Training is set for a mixed_float16 training step with a loss scale.
	Training *ParityTraining `json:"training,omitempty"`
}

// ParityOutput is one model output compared under the tolerance.
type ParityOutput struct {
	Name        string    `json:"name"`
	MaxAbsError float64   `json:"max_abs_error"`
	MaxRelError float64   `json:"max_rel_error"`
	MaxULP      uint64    `json:"max_ulp"`
	Mismatches  int       `json:"mismatches"`
	Pass        bool      `json:"pass"`
	Stats       *ErrStats `json:"stats,omitempty"`
}

// ErrStats are absolute-error statistics with a histogram, Polygraphy-style.
type ErrStats struct {
	Max       float64   `json:"max"`
	Mean      float64   `json:"mean"`
	Median    float64   `json:"median"`
	P99       float64   `json:"p99"`
	Histogram []HistBin `json:"histogram"`
}

// HistBin is one histogram bucket of absolute errors.
type HistBin struct {
	Lo    float64 `json:"lo"`
	Hi    float64 `json:"hi"`
	Count int     `json:"count"`
}

// ParityNode is one node's error under the profile.
type ParityNode struct {
	Path             string  `json:"path"`
	Op               string  `json:"op"`
	MaxAbsError      float64 `json:"max_abs_error"`
	MaxRelError      float64 `json:"max_rel_error"`
	MaxULP           uint64  `json:"max_ulp"`
	Mismatches       int     `json:"mismatches"`
	NaNInfIntroduced bool    `json:"nan_inf_introduced"`
	Overflow         int     `json:"overflow"`
	Underflow        int     `json:"underflow"`
	// LoweredTo is set on the nodes the target's precision mode runs in a
	// narrower type ("float16", "bfloat16", "float16 operands").
	LoweredTo string `json:"lowered_to,omitempty"`
}

// Gate is the outcome of `tfscan check`.
type Gate struct {
	Pass     bool          `json:"pass"`
	Failures []GateFailure `json:"failures"`
	Warnings []string      `json:"warnings"`
}

// GateFailure is one reason the gate failed, for one model and target.
type GateFailure struct {
	Model   string `json:"model"`
	Target  string `json:"target"`
	Rule    string `json:"rule"`
	Message string `json:"message"`
	// TransferBytesPartial is set on more_transfer_bytes when the current
	// or the baseline's transfer bytes leave out transfers of unknown size:
	// the sums compared are lower bounds ("sizes partly unknown"). The
	// increase of the known sizes still fails the gate (docs/ci.md).
	TransferBytesPartial bool `json:"transfer_bytes_partial,omitempty"`
}

// TransferBytesPartial reports whether TransferBytes leaves out transfers
// of unknown size (it is then a lower bound).
func (p *Placement) TransferBytesPartial() bool {
	return p != nil && p.UnknownSizeTransfers > p.UnknownSizeIOTransfers
}

// IOBytesPartial reports whether IOBytes leaves out copies of unknown size.
func (p *Placement) IOBytesPartial() bool { return p != nil && p.UnknownSizeIOTransfers > 0 }
