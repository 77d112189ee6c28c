package tflog

import (
	"slices"
	"strings"

	"github.com/tfscan/tfscan/internal/lazyre"
)

// The message templates, each with the source that prints it. TensorFlow
// paths are relative to tensorflow/ of TF 2.15.0 (the Go module cache copy,
// commit 6887368d); the adapter's are of Ascend/tensorflow at 085a7b2e (the
// export tools/registries.sh pins); Graph Engine's are of hicann/ge at
// ffdcbc9f, with the user-facing EZ texts of hicann/opbase at aa3cd74b
// (src/op_common/log/log.cpp:217-236): the pinned canndev snapshot holds
// CANN's operators, not GE.
//
// A header is tried on every line (after a cheap substring test); the first
// that matches opens a message. Matching is not anchored, because the same
// text reaches a log behind a glog prefix, a Python exception name, a
// "Graph execution error:" block or CANN's slog prefix.

// nodeName is what TensorFlow allows in a node name (a scope path, '>' for
// namespaced custom ops); op the same for op types.
// Where the placement lines come from (placement.go reads them).
const (
	PlacerSource = "TF 2.15.0 tensorflow/core/common_runtime/placer.cc:123"
	EagerSource  = "TF 2.15.0 tensorflow/core/common_runtime/eager/execute.cc:1747"
)

const (
	nodeName = `[A-Za-z0-9_.][A-Za-z0-9_.\-/>]*`
	opName   = `[A-Za-z0-9_.>\-]+`
)

type header struct {
	kind   Kind
	needle string // a literal the line must contain
	source string // where the template is, for reports
	re     *lazyre.Regexp
	// fill records the submatches; m[0] is the whole match.
	fill func(msg *Message, m []string)
}

var headers = []header{
	// core/common_runtime/colocation_graph.cc:1513-1520 (InitializeMember):
	// "No OpKernel was registered to support Op '", type, "' used by ",
	// FormatNodeNameForError(name), " with these attrs: [", attrs, "]\n"
	// "Registered devices: [", ..., "]\n", "Registered kernels:\n", ...
	{KindNoOpKernel, "No OpKernel was registered", "TF 2.15.0 tensorflow/core/common_runtime/colocation_graph.cc:1513",
		lazyre.New(`No OpKernel was registered to support Op '(` + opName + `)' used by \{\{node (` + nodeName + `)\}\} with these attrs: \[(.*?)\]?\s*$`),
		func(msg *Message, m []string) { msg.Op, msg.Node, msg.Attrs = m[1], m[2], m[3] }},
	// core/framework/op_kernel.cc:1493-1512 (FindKernelDef): "No registered '",
	// op, "' OpKernel for ", device, " devices compatible with node ",
	// FormatNodeDefForError(...), then "\n\t (OpKernel was found, but
	// attributes didn't match) Requested Attributes: ..." and "\n\t.
	// Registered:" KernelsRegisteredForOp. op_kernel.cc:1712-1722
	// (CreateOpKernel) quotes the device type.
	{KindNoRegisteredKernel, "OpKernel for ", "TF 2.15.0 tensorflow/core/framework/op_kernel.cc:1493",
		lazyre.New(`No registered '(` + opName + `)' OpKernel for '?([A-Za-z0-9_]+)'? devices compatible with node (.*)$`),
		func(msg *Message, m []string) {
			msg.Op, msg.Device = m[1], m[2]
			msg.Node, msg.Nodes = nodesOf(m[3])
		}},
	// core/common_runtime/eager/context.cc:326-330 (SelectDevice): "Could not
	// find device for node: ", FormatNodeNameForError(name), " = ", op, "[",
	// SummarizeAttrs(ndef), "]", "\nAll kernels registered for op ", op,
	// ":\n", KernelsRegisteredForOp(op).
	{KindNoDeviceForNode, "Could not find device for node", "TF 2.15.0 tensorflow/core/common_runtime/eager/context.cc:326",
		lazyre.New(`Could not find device for node: \{\{node (` + nodeName + `)\}\} = (` + opName + `)\[(.*?)\]?\s*$`),
		func(msg *Message, m []string) { msg.Node, msg.Op, msg.Attrs = m[1], m[2], m[3] }},
	// core/common_runtime/colocation_graph.cc:1328-1340: "Could not satisfy
	// explicit device specification '", requested, "' because the node ",
	// FormatColocationNodeForError(name), " was colocated with a group of
	// nodes that required incompatible device '", ..., "'. All available
	// devices [", ..., "]. " — behind placer.cc:238-241 "Cannot assign a
	// device for operation ", name, ": ".
	{KindColocationConflict, "because the node {{colocation_node", "TF 2.15.0 tensorflow/core/common_runtime/colocation_graph.cc:1330",
		lazyre.New(`(?:Cannot assign a device for operation (` + nodeName + `): )?Could not satisfy explicit device specification '([^']*)' because the node \{\{colocation_node (` + nodeName + `)\}\} was colocated with a group of nodes that required incompatible device '([^']*)'`),
		func(msg *Message, m []string) {
			msg.Node, msg.Device = firstNonEmpty(m[1], m[3]), normDevice(m[2])
		}},
	// core/common_runtime/colocation_graph.cc:1311-1319: "Could not satisfy
	// explicit device specification '", requested, "' because no supported
	// kernel for ", type, " devices is available.", DebugInfo, "\nOp: ",
	// type, "\nNode attrs: ", attrs, "\nRegistered kernels:\n", ...; and
	// :1321-1323 without a device type. Behind placer.cc:238-241.
	{KindExplicitDevice, "Could not satisfy explicit device specification", "TF 2.15.0 tensorflow/core/common_runtime/colocation_graph.cc:1311",
		lazyre.New(`(?:Cannot assign a device for operation (` + nodeName + `): )?Could not satisfy explicit device specification '([^']*)'(?: because no supported kernel for ([A-Za-z0-9_]+) devices is available\.)?`),
		func(msg *Message, m []string) {
			msg.Node, msg.Device = m[1], normDevice(m[2])
			if msg.Device == "" {
				msg.Device = m[3]
			}
		}},
	// core/common_runtime/colocation_graph.cc:1304-1309:
	// FormatNodeNameForError(name), " was explicitly assigned to ", device,
	// " but available devices are [ ", ..., " ]. Make sure the device
	// specification refers to a valid device.", behind placer.cc:238-241.
	{KindDeviceNotAvailable, "was explicitly assigned to", "TF 2.15.0 tensorflow/core/common_runtime/colocation_graph.cc:1304",
		lazyre.New(`(?:Cannot assign a device for operation ` + nodeName + `: )?\{\{node (` + nodeName + `)\}\} was explicitly assigned to (\S+) but available devices are \[ (.*?) \]`),
		func(msg *Message, m []string) {
			msg.Node, msg.Device = m[1], normDevice(m[2])
			for _, d := range splitList(m[3]) {
				if t, _, _ := strings.Cut(normDevice(d), ":"); t != "" && !slices.Contains(msg.RegisteredDevices, t) {
					msg.RegisteredDevices = append(msg.RegisteredDevices, t)
				}
			}
		}},
	// core/common_runtime/eager/context.cc:357-363: "Could not satisfy
	// device specification '", preferred, "'. enable_soft_placement=", ...,
	// ". Supported device types [", ..., "]. All available devices [", ...
	{KindEagerDeviceSpec, "Could not satisfy device specification", "TF 2.15.0 tensorflow/core/common_runtime/eager/context.cc:357",
		lazyre.New(`Could not satisfy device specification '([^']*)'\. enable_soft_placement=\d+\. Supported device types \[([^\]]*)\]`),
		func(msg *Message, m []string) { msg.Device = normDevice(m[1]) }},
	// core/framework/op.cc:66-73 (OpNotFound): "Op type not registered '",
	// op, "' in binary running on ", host, ". Make sure the Op and Kernel
	// are registered in the binary running in this process. ..."
	{KindOpNotRegistered, "Op type not registered", "TF 2.15.0 tensorflow/core/framework/op.cc:66",
		lazyre.New(`Op type not registered '(` + opName + `)' in binary running on `),
		func(msg *Message, m []string) { msg.Op = m[1] }},
	// core/common_runtime/colocation_graph.cc:1212-1220
	// (GetSoftDeviceCandidates, LOG(WARNING)): "Failed to place the graph
	// without changing the devices of some resources. Some of the operations
	// (that had to be colocated with resource generating operations) are not
	// supported on the resources' devices. Current candidate devices are [\n  ",
	// devices, "].\nSee below for details of this colocation group:", DebugInfo.
	{KindSoftPlacementResources, "without changing the devices of some resources", "TF 2.15.0 tensorflow/core/common_runtime/colocation_graph.cc:1213",
		lazyre.New(`Failed to place the graph without changing the devices of some resources\.`),
		func(msg *Message, m []string) {}},
	// core/common_runtime/colocation_graph.cc:1088-1094 (ColocateNodeToGroup,
	// LOG(INFO) with log_device_placement): "Ignoring request to colocate
	// node '", name, "' with nodes in colocation group '", group, "' because
	// soft placement is on and an attempt at doing so resulted in the
	// following error: ", error.
	{KindSoftPlacementColocation, "Ignoring request to colocate node", "TF 2.15.0 tensorflow/core/common_runtime/colocation_graph.cc:1089",
		lazyre.New(`Ignoring request to colocate node '(` + nodeName + `)' with nodes in colocation group '([^']*)' because soft placement is on`),
		func(msg *Message, m []string) { msg.Node = m[1] }},
	// core/common_runtime/colocation_graph.cc:305-312
	// (Member::EnsureCompatibilityAcrossResourceEdge, LOG(INFO) with
	// log_device_placement): "Ignoring device specification ", device,
	// " for node '", name, "' because the input edge from '", src, "' is a
	// reference connection and already has a device field set to ", device.
	{KindIgnoredDeviceSpec, "Ignoring device specification", "TF 2.15.0 tensorflow/core/common_runtime/colocation_graph.cc:306",
		lazyre.New(`Ignoring device specification (\S*) for node '(` + nodeName + `)' because the input edge from '(` + nodeName + `)' is a reference connection`),
		func(msg *Message, m []string) {
			msg.Device, msg.Node = normDevice(m[1]), m[2]
			msg.Nodes = []NodeRef{{Name: m[3]}}
		}},
	// core/grappler/costs/op_level_cost_estimator.cc:783-784
	// (LOG_EVERY_N(WARNING)): "Unknown device type: ", type, ", assuming
	// PCIe between CPU and GPU."
	{KindUnknownDeviceType, "Unknown device type: ", "TF 2.15.0 tensorflow/core/grappler/costs/op_level_cost_estimator.cc:783",
		lazyre.New(`Unknown device type: ([A-Za-z0-9_]+), assuming PCIe between CPU and GPU`),
		func(msg *Message, m []string) { msg.Device = m[1] }},
	// tf_adapter/optimizers/om_partition_subgraphs_pass.cc:511 (an
	// errors::Internal with in_out_pair) and :521 (ADP_LOG(WARNING)): name,
	// " is not supported npu node." / " is not supported npu node and will
	// be excluded in candidates."
	{KindNPUUnsupportedNode, "is not supported npu node", "Ascend/tensorflow@085a7b2e tf_adapter/optimizers/om_partition_subgraphs_pass.cc:511,521",
		lazyre.New(`(?:^|[\s:\]])(` + nodeName + `) is not supported npu node`),
		func(msg *Message, m []string) { msg.Node = m[1] }},
	// tf_adapter/optimizers/om_partition_subgraphs_pass.cc:236
	// (IsWhiteListSupport, ADP_LOG(INFO)): "node: ", op, " is not in white
	// list, so currently not support."
	{KindNPUOpNotInWhiteList, "is not in white list", "Ascend/tensorflow@085a7b2e tf_adapter/optimizers/om_partition_subgraphs_pass.cc:236",
		lazyre.New(`node: (` + opName + `) is not in white list, so currently not support`),
		func(msg *Message, m []string) { msg.Op = m[1] }},
	// tf_adapter_2.x/npu_device/core/npu_device.cpp:603 (FallbackCPU, DLOG):
	// "Start fallback executing ", op, " by ", device.
	{KindNPUFallback, "Start fallback executing", "Ascend/tensorflow@085a7b2e tf_adapter_2.x/npu_device/core/npu_device.cpp:603",
		lazyre.New(`Start fallback executing (` + opName + `) by (\S+)`),
		func(msg *Message, m []string) { msg.Op, msg.Device = m[1], normDevice(m[2]) }},
	// tf_adapter_2.x/npu_device/core/optimizers/runtime/node_placer.cpp:380
	// (DLOG): "Determined cpu ", name, " ", op, " as npu unsupported".
	{KindNPUFallback, "as npu unsupported", "Ascend/tensorflow@085a7b2e tf_adapter_2.x/npu_device/core/optimizers/runtime/node_placer.cpp:380",
		lazyre.New(`Determined cpu (` + nodeName + `) (` + opName + `) as npu unsupported`),
		func(msg *Message, m []string) { msg.Node, msg.Op, msg.Device = m[1], m[2], "CPU" }},
	// GE EZ3002, reported by compiler/engines/manager/engine_manager/
	// dnnengine_manager.cc:381-383 and :406-408 with the template of
	// hicann/opbase src/op_common/log/log.cpp:217-219: "Optype [%s] of Ops
	// kernel [%s] is unsupported. Reason: %s."
	{KindGEOpUnsupported, "of Ops kernel [", "hicann/ge@ffdcbc9f compiler/engines/manager/engine_manager/dnnengine_manager.cc:406 (EZ3002)",
		lazyre.New(`Optype \[(` + opName + `)\] of Ops kernel \[([^\]]*)\] is unsupported\. Reason: (.*)$`),
		func(msg *Message, m []string) { msg.Op, msg.Engine, msg.Reason = m[1], m[2], m[3] }},
	// dnnengine_manager.cc:384 and :409-412 (GELOGE): "[Check][OpSupported]Op
	// type %s of kernel %s is unsupported, reason: %s" / "...Op type %s of
	// ops kernel %s is unsupported, reason : %s".
	{KindGEOpUnsupported, "[Check][OpSupported]", "hicann/ge@ffdcbc9f compiler/engines/manager/engine_manager/dnnengine_manager.cc:409",
		lazyre.New(`\[Check\]\[OpSupported\]Op type (` + opName + `) of (?:ops )?kernel (\S+) is unsupported, reason ?: (.*)$`),
		func(msg *Message, m []string) { msg.Op, msg.Engine, msg.Reason = m[1], m[2], m[3] }},
	// GE EZ3003, dnnengine_manager.cc:423-424 with the template of
	// log.cpp:228-230: "No supported Ops kernel and engine are found for
	// [%s], optype [%s]."
	{KindGENoEngine, "No supported Ops kernel and engine", "hicann/ge@ffdcbc9f compiler/engines/manager/engine_manager/dnnengine_manager.cc:423 (EZ3003)",
		lazyre.New(`No supported Ops kernel and engine are found for \[(` + nodeName + `)\], optype \[(` + opName + `)\]`),
		func(msg *Message, m []string) { msg.Node, msg.Op = m[1], m[2] }},
	// dnnengine_manager.cc:425-428 (GELOGE): "[Get][DNNEngineName]Can't find
	// any supported ops kernel and engine of %s, type is %s".
	{KindGENoEngine, "Can't find any supported ops kernel", "hicann/ge@ffdcbc9f compiler/engines/manager/engine_manager/dnnengine_manager.cc:425",
		lazyre.New(`Can't find any supported ops kernel and engine of (` + nodeName + `), type is (` + opName + `)`),
		func(msg *Message, m []string) { msg.Node, msg.Op = m[1], m[2] }},
}

// Placement lines are read by hand (placement.go): a log_device_placement
// log has a line per node, and eager logging one per op execution.

// Continuation lines of a multi-line message. Each is the text of the
// source cited on the header that prints it.
var (
	reRegDevices   = lazyre.New(`^\s*Registered devices: \[(.*)\]\s*$`)
	reRegKernels   = lazyre.New(`^\s*Registered kernels:\s*$`)
	reAllKernels   = lazyre.New(`^\s*All kernels registered for op (` + opName + `):\s*$`)
	reRegisteredOK = lazyre.New(`^\s*\.\s+Registered:(.*)$`) // op_kernel.cc:1511 "\n\t.  Registered:"
	reKernelLine   = lazyre.New(`^\s*(device='.*)$`)
	reNoKernels    = lazyre.New(`^\s*<no registered kernels>\s*$`) // op_kernel.cc:1634
	reAttrMismatch = lazyre.New(`^\s*\(OpKernel was found, but attributes didn't match\) Requested Attributes: (.*)$`)
	reOpLine       = lazyre.New(`^\s*Op: (` + opName + `)\s*$`)
	reNodeAttrs    = lazyre.New(`^\s*Node attrs:(?: (.*))?$`) // "Node attrs: " when the node has none
	reAttachDef    = lazyre.New(`^\s*\[\[(.*)\]\]`)           // node_def_util.cc:909-921 AttachDef "\n\t [[node]]"
	reEagerOp      = lazyre.New(`^\s*\[Op:(` + opName + `)\]`)
	// Eager errors end in " [Op:Foo]" (eager/execute.cc, c_api's status
	// annotation); where it is on the header's line it names the op.
	reEagerOpAnywhere = lazyre.New(`\[Op:(` + opName + `)\]`)
	reNodeNameOnly    = lazyre.New(`^` + nodeName + `$`)
	reCandidateDev    = lazyre.New(`^\s*(/job:[^\s\]]+)\]?\.?\s*$`)
	reSeeBelow        = lazyre.New(`^\s*See below for details of this colocation group:\s*$`)
	reGESuggestion    = lazyre.New(`^\s*(?:Solution|Possible Cause|TraceBack \(most recent call last\)):`)
	reNodeTag         = lazyre.New(`\{\{node (` + nodeName + `)\}\}`)
	reDType           = lazyre.New(`\bDT_[A-Z0-9_]+\b`)
	reGEDataType      = lazyre.New(`data type (DT_[A-Z0-9_]+)`)
	reDeviceInJob     = lazyre.New(`(?i)/device:([A-Za-z_][A-Za-z_0-9]*)(?::(\d+|\*))?`)
	reBareDevice      = lazyre.New(`^([A-Za-z_][A-Za-z_0-9]*)(?::(\d+|\*))?$`)
)

// The colocation debug block (colocation_graph.cc:1394-1453 DebugInfo).
// TensorFlow ends each "Op: TYPE TYPE " line with a space and indents each
// member by two; both are read without them too, because editors and log
// collectors strip trailing blanks and some re-indent, and a line of the
// block that is not read closes the message before its kernel list.
var (
	reDebugInfo  = lazyre.New(`^\s*Colocation Debug Info:\s*$`)
	reDebugGroup = lazyre.New(`^\s*Colocation group had the following types and supported devices:\s*$`)
	reDebugRoot  = lazyre.New(`^\s*Root Member\(`)
	reDebugType  = lazyre.New(`^\s*(` + opName + `):((?: [A-Z][A-Z0-9_]*)*) ?\s*$`)
	reDebugHead  = lazyre.New(`^\s*Colocation members, user-requested devices, and framework assigned devices, if any:\s*$`)
	reDebugMem   = lazyre.New(`^\s*(` + nodeName + `) \((` + opName + `)\) ?(\S*)(?: framework assigned device=(\S+))?\s*$`)
)

// nodesOf reads the {{node X}} tags of FormatNodeDefForError (one, or the
// original nodes of a fused node, op_kernel.cc:1495).
func nodesOf(s string) (string, []NodeRef) {
	var first string
	var rest []NodeRef
	for _, m := range reNodeTag.FindAllStringSubmatch(s, maxNodes) {
		if first == "" {
			first = m[1]
		} else if m[1] != first {
			rest = append(rest, NodeRef{Name: m[1]})
		}
	}
	return first, rest
}

// normDevice turns "/job:localhost/replica:0/task:0/device:XPU:0",
// "/device:XPU:0", "/gpu:0" or "XPU" into "XPU:0" or "XPU"; a name without a
// device part gives "".
func normDevice(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	if i := strings.Index(s, "/device:"); i >= 0 {
		// the common case, without a regexp: "/device:TYPE:ID"
		typ, id, _ := strings.Cut(s[i+len("/device:"):], ":")
		if isDeviceType(typ) && (id == "" || id == "*" || isDigits(id)) {
			if id == "" || id == "*" {
				return strings.ToUpper(typ)
			}
			return strings.ToUpper(typ) + ":" + id
		}
	}
	m := reDeviceInJob.FindStringSubmatch(s)
	if m == nil {
		m = reBareDevice.FindStringSubmatch(s[strings.LastIndex(s, "/")+1:])
		if m == nil {
			return s
		}
		switch strings.ToLower(m[1]) {
		case "job", "replica", "task":
			return ""
		}
	}
	if m[2] == "" || m[2] == "*" {
		return strings.ToUpper(m[1])
	}
	return strings.ToUpper(m[1]) + ":" + m[2]
}

func isDeviceType(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
