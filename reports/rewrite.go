package reports

// Rewrite is what `tfscan rewrite` did to a model for one target: the
// rules it applied, the figures before and after, and the proof.
type Rewrite struct {
	// Output is the path the rewritten model was written to.
	Output string `json:"output"`
	// Rules are the rules applied (one entry per rule, or per rule with
	// the rules chained onto its replacement), in rule order.
	Rules []RewriteRule `json:"rules"`
	// UnpinnedNodes counts the device fields dropped (--clear-devices).
	UnpinnedNodes int            `json:"unpinned_nodes"`
	Before        RewriteFigures `json:"before"`
	After         RewriteFigures `json:"after"`
	Proof         RewriteProof   `json:"proof"`
	// Skipped groups the nodes a rule could have rewritten but did not,
	// by rule, op and reason.
	Skipped []RewriteSkip `json:"skipped"`
	// MetaGraphs counts the meta graphs rewritten besides the one the
	// figures are about (a SavedModel with several tag sets).
	OtherMetaGraphs int `json:"other_meta_graphs,omitempty"`
}

// RewriteRule is one rule applied.
type RewriteRule struct {
	Rule string `json:"rule"`
	// Chained are rules applied to nodes of this rule's replacement that
	// the target did not cover either.
	Chained []string `json:"chained,omitempty"`
	Kind    string   `json:"kind"`
	// Ops are the ops rewritten; Nodes how many nodes; Paths their paths.
	Ops   []string `json:"ops"`
	Nodes int      `json:"nodes"`
	Paths []string `json:"paths"`
	// Exactness is "exact" (bit-identical in the op's dtype) or
	// "tolerance"; Claim says what is proven and Semantics cites
	// TensorFlow's source.
	Exactness string `json:"exactness"`
	Claim     string `json:"claim"`
	Semantics string `json:"semantics"`
	// Checks counts the node executions the proof compared; MaxAbsError
	// and MaxRelError are the largest differences seen (0 for exact).
	Checks      int     `json:"checks"`
	MaxAbsError float64 `json:"max_abs_error"`
	MaxRelError float64 `json:"max_rel_error"`
}

// RewriteFigures are one side of before → after on the target, over the
// counted nodes (the step by default).
type RewriteFigures struct {
	Nodes int `json:"nodes"`
	// Covered nodes have a kernel on the target; CoveragePercent is
	// Covered over Nodes.
	Covered         int     `json:"covered"`
	CoveragePercent float64 `json:"coverage_percent"`
	// FallbackNodes are placed on CPU for want of a target kernel;
	// CPUNodes are every node placed on CPU, PinnedCPUNodes those of them
	// a device field pins there.
	FallbackNodes int `json:"fallback_nodes"`
	// UnplaceableNodes have a kernel neither on the target nor on the
	// CPU: TensorFlow refuses to place the graph while there are any.
	UnplaceableNodes int   `json:"unplaceable_nodes"`
	CPUNodes         int   `json:"cpu_nodes"`
	PinnedCPUNodes   int   `json:"pinned_cpu_nodes"`
	Partitions       int   `json:"partitions"`
	Transfers        int   `json:"transfers"`
	TransferBytes    int64 `json:"transfer_bytes"`
}

// RewriteProof is what the runs of the original and the rewritten model
// showed.
type RewriteProof struct {
	Runs []RewriteRun `json:"runs"`
	// NotExercised are rewritten nodes no run executed.
	NotExercised []string `json:"not_exercised,omitempty"`
}

// RewriteRun is one run of both models on one set of inputs.
type RewriteRun struct {
	Name      string `json:"name"`
	Outputs   int    `json:"outputs"`
	Identical bool   `json:"identical"`
	// MaxAbsError and MaxRelError are the largest output differences.
	MaxAbsError float64 `json:"max_abs_error"`
	MaxRelError float64 `json:"max_rel_error"`
}

// RewriteSkip is a group of nodes a rule left alone.
type RewriteSkip struct {
	Rule   string `json:"rule"`
	Op     string `json:"op,omitempty"`
	Reason string `json:"reason"`
	Nodes  int    `json:"nodes"`
	// Example is one node's path.
	Example string `json:"example,omitempty"`
}
