// Package tflog reads the logs of real TensorFlow runs: the messages that
// TensorFlow, Huawei's tf_adapter and CANN's Graph Engine print about a node,
// an op, a kernel or a device (missing kernels, unsatisfiable device pins,
// soft-placement moves, unsupported NPU ops), and the placement lines of
// log_device_placement. Every pattern is the message text of the source
// that prints it, cited in patterns.go; a line that looks like such a
// message but matches no pattern is counted, never guessed at.
//
// One parser serves `tfscan explain` and `scan --compare-log`. It streams:
// memory is bounded by the number of distinct messages and placed nodes,
// not by the size of the log, and a line longer than MaxLine is cut.
package tflog

// Kind names what a message says. The values are stable: they appear in
// JSON reports as message_kind.
type Kind string

// Message kinds, one per message template (patterns.go cites each source).
const (
	// KindNoOpKernel: no device of the process has a kernel for the node
	// (colocation_graph.cc InitializeMember), with Registered devices and
	// Registered kernels.
	KindNoOpKernel Kind = "no_opkernel"
	// KindNoRegisteredKernel: kernel lookup on one device type failed
	// (op_kernel.cc FindKernelDef / CreateOpKernel), with Registered.
	KindNoRegisteredKernel Kind = "no_registered_kernel"
	// KindNoDeviceForNode: eager op with no device that has a kernel
	// (eager/context.cc SelectDevice), with All kernels registered.
	KindNoDeviceForNode Kind = "no_device_for_node"
	// KindExplicitDevice: a node pinned to a device type without a kernel
	// for it (colocation_graph.cc GetDevicesForNode), soft placement off.
	KindExplicitDevice Kind = "explicit_device_unsatisfiable"
	// KindDeviceNotAvailable: a node pinned to a device the process does not
	// have (colocation_graph.cc GetDevicesForNode).
	KindDeviceNotAvailable Kind = "device_not_available"
	// KindColocationConflict: a pinned node colocated with nodes that need
	// another device (colocation_graph.cc GetDevicesForNode).
	KindColocationConflict Kind = "colocation_conflict"
	// KindEagerDeviceSpec: an eager op whose requested device cannot run it
	// (eager/context.cc SelectDevice).
	KindEagerDeviceSpec Kind = "eager_device_unsatisfiable"
	// KindOpNotRegistered: an op type the binary does not know, a custom op
	// whose library was not loaded (framework/op.cc OpNotFound).
	KindOpNotRegistered Kind = "op_not_registered"
	// KindSoftPlacementResources: soft placement moved a resource and the
	// ops colocated with it (colocation_graph.cc GetSoftDeviceCandidates).
	KindSoftPlacementResources Kind = "soft_placement_resources"
	// KindSoftPlacementColocation: soft placement dropped a colocation
	// request (colocation_graph.cc ColocateNodeToGroup).
	KindSoftPlacementColocation Kind = "soft_placement_colocation"
	// KindIgnoredDeviceSpec: a requested device overridden by a reference
	// input's device (colocation_graph.cc Member::EnsureCompatibilityAcrossResourceEdge).
	KindIgnoredDeviceSpec Kind = "ignored_device_specification"
	// KindUnknownDeviceType: Grappler's cost model does not know a device
	// type (grappler/costs/op_level_cost_estimator.cc).
	KindUnknownDeviceType Kind = "unknown_device_type"
	// KindPlacement: a placer line of log_device_placement (placer.cc).
	KindPlacement Kind = "placement"
	// KindEagerPlacement: an eager op's device (eager/execute.cc).
	KindEagerPlacement Kind = "eager_placement"
	// KindNPUUnsupportedNode: tf_adapter's partition pass left a node out
	// of the NPU subgraph (om_partition_subgraphs_pass.cc).
	KindNPUUnsupportedNode Kind = "npu_unsupported_node"
	// KindNPUOpNotInWhiteList: tf_adapter's NPU op list lacks an op type
	// (om_partition_subgraphs_pass.cc IsWhiteListSupport).
	KindNPUOpNotInWhiteList Kind = "npu_op_not_supported"
	// KindNPUFallback: the TF2 npu_device ran an op on the CPU
	// (tf_adapter_2.x npu_device.cpp FallbackCPU, node_placer.cpp).
	KindNPUFallback Kind = "npu_cpu_fallback"
	// KindGEOpUnsupported: a Graph Engine ops kernel store rejected an op
	// type (EZ3002, dnnengine_manager.cc).
	KindGEOpUnsupported Kind = "ge_op_unsupported"
	// KindGENoEngine: no Graph Engine engine can run a node (EZ3003,
	// dnnengine_manager.cc).
	KindGENoEngine Kind = "ge_no_engine"
)

// Kinds lists every message kind, for schemas and documentation.
func Kinds() []string {
	var out []string
	for _, k := range []Kind{KindNoOpKernel, KindNoRegisteredKernel, KindNoDeviceForNode, KindExplicitDevice,
		KindDeviceNotAvailable, KindColocationConflict, KindEagerDeviceSpec, KindOpNotRegistered,
		KindSoftPlacementResources, KindSoftPlacementColocation, KindIgnoredDeviceSpec, KindUnknownDeviceType,
		KindPlacement, KindEagerPlacement, KindNPUUnsupportedNode, KindNPUOpNotInWhiteList, KindNPUFallback,
		KindGEOpUnsupported, KindGENoEngine} {
		out = append(out, string(k))
	}
	return out
}

// Log is what a log holds, in the order messages first appeared.
type Log struct {
	// Messages are the distinct node, op, kernel and device messages; a
	// message repeated verbatim is counted in its Count.
	Messages []*Message `json:",omitempty"`
	// Placements are log_device_placement's placer lines, one per node in
	// first-seen order; a node logged twice keeps its last device.
	Placements []Placement `json:",omitempty"`
	// Eager are eager ops' "Executing op" lines, one per op type in
	// first-seen order, the last device kept.
	Eager []Placement `json:",omitempty"`
	// Lines is the number of lines read.
	Lines int `json:",omitempty"`
	// Unparsed counts lines that look like one of these messages but match
	// no known template (see unparsed.go for the exact rule).
	Unparsed int `json:",omitempty"`
	// UnparsedLines are the line numbers of the first unparsed lines
	// (at most MaxUnparsedSamples), for a person to look at.
	UnparsedLines []int `json:",omitempty"`
	// CutLines counts lines longer than MaxLine; only their first MaxLine
	// bytes were read.
	CutLines int `json:",omitempty"`
	// Dropped counts distinct messages and placements past MaxEntries that
	// were not kept (a log of one model has far fewer).
	Dropped int `json:",omitempty"`
}

// Message is one message, with what its text says.
type Message struct {
	Kind Kind `json:",omitempty"`
	// Source is where the message's template is (repository, file:line).
	Source string `json:",omitempty"`
	// Line is the 1-based line the message starts on; Count how many times
	// the same message appeared.
	Line  int `json:",omitempty"`
	Count int `json:",omitempty"`
	// Text is the message's first line without the log prefix, cut to
	// MaxText bytes.
	Text string `json:",omitempty"`
	// Node is the node name as logged ("" for an op-level message); Op its
	// op type where the message says it.
	Node string `json:",omitempty"`
	Op   string `json:",omitempty"`
	// Nodes are further nodes the message names (colocation members, the
	// original nodes of a fused node), without Node.
	Nodes []NodeRef `json:",omitempty"`
	// Device is the device the message names: the requested device of a
	// pin, the logged device of a placement, normalised to "TYPE:ID" or
	// "TYPE" where it had no id.
	Device string `json:",omitempty"`
	// Attrs is the node's attrs as TensorFlow printed them
	// ("T=DT_FLOAT, data_format=\"NHWC\"").
	Attrs string `json:",omitempty"`
	// OpDevices are, from a colocation group's debug block, the device types
	// that have a kernel for each op of the group (colocation_graph.cc:1433).
	OpDevices []OpDevices `json:",omitempty"`
	// DTypes are the DT_ names in Attrs (or, for GE, in its reason), in order
	// of appearance, without repeats.
	DTypes []string `json:",omitempty"`
	// RegisteredDevices are the device types of the process, when the
	// message lists them.
	RegisteredDevices []string `json:",omitempty"`
	// Kernels is the message's registered-kernels section; KernelsListed
	// says the message had one (an empty list then means no kernel at all).
	Kernels       []Kernel `json:",omitempty"`
	KernelsListed bool     `json:",omitempty"`
	// KernelsElided is set when TensorFlow shortened a list in that section
	// (30 values or more, attr_value_util.cc SummarizeAttrValue) or a string
	// value: the section is then not a complete statement.
	KernelsElided bool `json:",omitempty"`
	// Engine and Reason are Graph Engine's ops kernel and its reason.
	Engine string `json:",omitempty"`
	Reason string `json:",omitempty"`
}

// NodeRef is a node a message names, with its op where the message says it.
type NodeRef struct {
	Name string `json:",omitempty"`
	Op   string `json:",omitempty"`
}

// OpDevices is one "Op: TYPE TYPE " line of a colocation debug block.
type OpDevices struct {
	Op      string   `json:",omitempty"`
	Devices []string `json:",omitempty"`
}

// Kernel is one line of a registered-kernels section:
// "device='XPU'; label='l'; T in [DT_HALF, DT_FLOAT]" (op_kernel.cc
// KernelsRegisteredForOp).
type Kernel struct {
	DeviceType  string       `json:",omitempty"`
	Label       string       `json:",omitempty"`
	Constraints []Constraint `json:",omitempty"`
}

// Constraint is one "NAME in [V, ...]" of a kernel line. Exactly one of the
// value lists is set, by what the values look like.
type Constraint struct {
	Name    string   `json:",omitempty"`
	Types   []string `json:",omitempty"` // DT_ names
	Ints    []int64  `json:",omitempty"`
	Strings []string `json:",omitempty"`
	Bools   []bool   `json:",omitempty"`
}

// Placement is one logged placement; Device is normalised to "TYPE:ID".
type Placement struct {
	Name   string `json:",omitempty"`
	Op     string `json:",omitempty"`
	Device string `json:",omitempty"`
	Line   int    `json:",omitempty"`
}

// Limits on what one log may make the parser hold.
const (
	// MaxLine is the longest line read; the rest of a longer line is
	// skipped and counted in Log.CutLines.
	MaxLine = 1 << 20
	// MaxText bounds Message.Text.
	MaxText = 4 << 10
	// MaxEntries bounds the distinct messages and the distinct placed nodes
	// kept; more are counted in Log.Dropped.
	MaxEntries = 1 << 20
	// MaxUnparsedSamples bounds Log.UnparsedLines.
	MaxUnparsedSamples = 20
	// maxContinuation bounds the lines one message may span (a kernel list
	// of a few hundred registrations, a colocation group of a few thousand
	// members); a longer run closes the message.
	maxContinuation = 1 << 16
	// maxKernels and maxNodes bound one message's lists.
	maxKernels = 4096
	maxNodes   = 4096
)
