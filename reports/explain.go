package reports

// ExplainReport is the output of `tfscan explain`: the messages of a real
// run's log, each mapped to the model and to what tfscan knows about it
// (ExplainSchemaVersion); reports/schema/explain.schema.json describes it.
type ExplainReport struct {
	SchemaVersion int           `json:"schema_version"`
	Tool          Tool          `json:"tool"`
	Log           ExplainLog    `json:"log"`
	Model         string        `json:"model"`
	Target        string        `json:"target"`
	Registry      RegistryInfo  `json:"registry"`
	Explanations  []Explanation `json:"explanations"`
	// UnparsedLines counts lines that look like a TensorFlow, tf_adapter or
	// GE message about a node, op, kernel or device but match no known
	// template (tflog's rule, docs/explain.md).
	UnparsedLines int            `json:"unparsed_lines"`
	Summary       ExplainSummary `json:"summary"`
}

// ExplainLog identifies the log that was read.
type ExplainLog struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Lines  int    `json:"lines"`
	// CutLines were longer than tfscan reads (1 MiB); UnparsedAt are the
	// first unparsed line numbers; Dropped counts messages past the limit.
	CutLines   int   `json:"cut_lines,omitempty"`
	UnparsedAt []int `json:"unparsed_at,omitempty"`
	Dropped    int   `json:"dropped,omitempty"`
}

// ExplainSummary counts the explanations by outcome.
type ExplainSummary struct {
	Messages int `json:"messages"`
	// NotFound counts messages whose node (or op) is not in the model: a
	// log of another model, or of another signature.
	NotFound   int `json:"not_found"`
	Agree      int `json:"agree"`
	Disagree   int `json:"disagree"`
	Unassessed int `json:"unassessed"`
	// PlacementLines and PlacementAgree count log_device_placement and
	// eager placement lines and those whose device kind tfscan predicted;
	// only lines on the host or disagreeing become explanations.
	PlacementLines    int `json:"placement_lines"`
	PlacementAgree    int `json:"placement_agree"`
	PlacementNotFound int `json:"placement_not_found"`
}

// Explanation is one message of the log, explained.
type Explanation struct {
	// Node is the node's path in the model ("" when the message names none,
	// or when the node is not in the model); LoggedNode the name as the
	// log wrote it.
	Node       string `json:"node"`
	LoggedNode string `json:"logged_node,omitempty"`
	// Found says whether the node, or for an op-level message a node of the
	// op, is in the model; absent for messages about a device only.
	Found *bool `json:"found,omitempty"`
	// OtherNodes are further nodes the message applies to (an op-level
	// message, a colocation group, a name several functions share), at most
	// a few; NodesMatched counts all of them with Node.
	OtherNodes   []string `json:"other_nodes,omitempty"`
	NodesMatched int      `json:"nodes_matched,omitempty"`
	Op           string   `json:"op"`
	DTypes       []string `json:"dtypes"`
	MessageKind  string   `json:"message_kind"`
	// Message is the message's first line; MessageSource the file and line
	// of its template in the source that prints it.
	Message       string `json:"message"`
	MessageSource string `json:"message_source,omitempty"`
	Line          int    `json:"line"`
	Count         int    `json:"count"`
	// Prediction is what tfscan's scan says about the node on the target;
	// nil when the node is not in the model.
	Prediction *ExplainPrediction `json:"prediction"`
	// Agrees says whether the log confirms the prediction; null when the
	// message says nothing tfscan predicts (a log of another device type,
	// a colocation warning).
	Agrees *bool  `json:"agrees"`
	Cause  string `json:"cause"`
	Fixes  []Fix  `json:"fixes"`
}

// ExplainPrediction is tfscan's prediction for a node on the target.
type ExplainPrediction struct {
	// Reason is the coverage reason (covered, no_kernel_for_dtype, ...).
	Reason string `json:"reason"`
	// Device is the predicted device ("" without placement).
	Device string `json:"device,omitempty"`
	// Phase is when the node runs (step, load, save, unreachable).
	Phase string `json:"phase,omitempty"`
	// Supported lists what the target's kernels accept, for a dtype gap.
	Supported []string `json:"supported,omitempty"`
	// Detail is the first reason the placement simulation gives.
	Detail string `json:"detail,omitempty"`
}

// Fix kinds. FixRewrite names the `tfscan rewrite` command that fixes a
// node, planned as rewrite plans (scan.Scanned.RewriteFixes).
const (
	FixKernelWishlist = "kernel_wishlist"
	FixSoftPlacement  = "soft_placement"
	FixClearDevices   = "clear_devices"
	FixPrecisionMode  = "precision_mode"
	FixStackOption    = "stack_option"
	FixLoadLibrary    = "load_library"
	FixLearnRegistry  = "learn_registry"
	FixLiveDump       = "live_dump"
	FixRewrite        = "rewrite"
)

// Fix is one thing the team can do about a message.
type Fix struct {
	Kind string `json:"kind"`
	Text string `json:"text"`
	// Rank and Of place a missing kernel in the target's kernel wishlist.
	Rank int `json:"rank,omitempty"`
	Of   int `json:"of,omitempty"`
	// Option is a setting to pass (precision_mode=..., mix_compile_mode=...);
	// Rule a rewrite rule; Library a custom-op library.
	Option  string `json:"option,omitempty"`
	Rule    string `json:"rule,omitempty"`
	Library string `json:"library,omitempty"`
}
