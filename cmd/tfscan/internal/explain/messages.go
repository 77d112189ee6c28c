package explain

import (
	"fmt"
	"slices"
	"strings"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/coverage/placement"
	"github.com/tfscan/tfscan/dtype"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/tflog"
)

// message explains one message: which nodes, what tfscan predicted for
// them, whether the log agrees, why it happened and what to do.
func (x *explainer) message(m *tflog.Message) reports.Explanation {
	e := reports.Explanation{
		LoggedNode: m.Node, Op: m.Op, DTypes: dtNames(m.DTypes),
		MessageKind: string(m.Kind), Message: m.Text, MessageSource: m.Source, Line: m.Line, Count: m.Count,
	}
	ns, _ := x.messageNodes(m)
	if m.Kind == tflog.KindSoftPlacementResources {
		// the member that moved the group first: an op the log's debug
		// block gives no target kernel, else one tfscan predicts uncovered
		lacking := x.lacking(m)
		rank := func(n *graph.Node) int {
			switch {
			case slices.Contains(lacking, n.Op):
				return 0
			case !covered(x.result[x.path[n]].Reason):
				return 1
			}
			return 2
		}
		slices.SortStableFunc(ns, func(a, b *graph.Node) int { return rank(a) - rank(b) })
	}
	if m.Node != "" || len(m.Nodes) > 0 || m.Op != "" {
		x.setNodes(&e, ns)
	}
	if e.Found != nil && !*e.Found {
		x.notFound(&e, m)
		return e
	}
	switch m.Kind {
	case tflog.KindNoOpKernel, tflog.KindNoDeviceForNode:
		x.noKernelAnywhere(&e, m, ns)
	case tflog.KindNoRegisteredKernel, tflog.KindExplicitDevice, tflog.KindEagerDeviceSpec:
		x.noKernelOn(&e, m, ns)
	case tflog.KindColocationConflict:
		e.Cause = fmt.Sprintf("%s is pinned to %s but colocated (through a resource it uses or a colocation attr) with nodes that need another device; with soft placement off TensorFlow refuses to split the group.",
			subject(e), devSpec(m.Device))
		x.pinFixes(&e, ns, m)
	case tflog.KindDeviceNotAvailable:
		x.missingDevice(&e, m, ns)
	case tflog.KindOpNotRegistered:
		unknown := slices.ContainsFunc(ns, func(n *graph.Node) bool { return x.result[x.path[n]].Reason == "unknown_op" })
		// A SavedModel carries the OpDefs of its custom ops
		// (meta_info_def.stripped_op_list): tfscan then knows the op's
		// signature but no pack has a kernel for it, which is what
		// TensorFlow's refusal means for the run as well.
		custom := graph.Default().Lookup(m.Op) == nil
		e.Agrees = boolPtr(unknown || custom && x.anyUncovered(ns))
		e.Cause = fmt.Sprintf("%s is not an op of the TensorFlow binary that ran the model: a custom op whose library was not loaded before the model.", m.Op)
		switch {
		case unknown:
		case custom:
			e.Cause += fmt.Sprintf(" %s is no TensorFlow 2.15 op: tfscan knows it only from the model's own op list (meta_info_def.stripped_op_list), and no kernel of it is in the target's pack.", m.Op)
		default:
			e.Cause += fmt.Sprintf(" tfscan knows %s (it is in TensorFlow 2.15's op registry), so the binary that ran the model is another build or version of TensorFlow.", m.Op)
		}
		e.Fixes = append(e.Fixes, loadLibraryFix(m.Op))
	case tflog.KindSoftPlacementResources:
		x.resourcesMoved(&e, m, ns)
	case tflog.KindSoftPlacementColocation:
		e.Cause = fmt.Sprintf("Soft placement dropped the request to colocate %s with its colocation group: the devices its members need differ, so TensorFlow placed them apart and copies between them.", subject(e))
	case tflog.KindIgnoredDeviceSpec:
		src := ""
		if len(m.Nodes) > 0 {
			src = " from " + m.Nodes[0].Name
		}
		e.Cause = fmt.Sprintf("TensorFlow ignored the device %s requested for %s: its reference input%s already lives on another device, and a reference edge cannot cross devices.", orDash(m.Device), subject(e), src)
	case tflog.KindUnknownDeviceType:
		e.Cause = fmt.Sprintf("Grappler's cost model has no figures for %s devices and assumes a GPU behind PCIe. It only affects Grappler's cost estimates, not where ops run or what they compute.", m.Device)
	case tflog.KindNPUUnsupportedNode, tflog.KindNPUOpNotInWhiteList, tflog.KindNPUFallback, tflog.KindGEOpUnsupported, tflog.KindGENoEngine:
		x.npu(&e, m, ns)
	default:
		e.Cause = "tfscan has no explanation for this kind of message."
	}
	e.Cause += phaseNote(e.Prediction)
	return e
}

// phaseNote says when a node that is not per-step work runs.
func phaseNote(p *reports.ExplainPrediction) string {
	switch {
	case p == nil:
		return ""
	case p.Phase == "load":
		return " The node runs once, when the model is loaded (phase load): not a cost of every step."
	case p.Phase == "save":
		return " The node runs only when a checkpoint is written (phase save)."
	case p.Phase == "unreachable":
		return " No signature output needs the node (phase unreachable)."
	}
	return ""
}

// notFound explains a message about a node or op the model does not have.
func (x *explainer) notFound(e *reports.Explanation, m *tflog.Message) {
	e.Op, e.DTypes = m.Op, dtNames(m.DTypes)
	where := x.opts.Model + signatureNote(x.opts.Signature)
	switch {
	case m.Node == "" && len(m.Nodes) == 0:
		e.Cause = fmt.Sprintf("The log is about op %s, but %s has no node of it.", m.Op, where)
	default:
		name := m.Node
		if name == "" {
			name = m.Nodes[0].Name
		}
		e.Cause = fmt.Sprintf("The log names node %s, which is not in %s: a log of another model, another version of it, or a graph TensorFlow built around it (a tf.function's own nodes, a dataset, an optimizer).", name, where)
	}
	if learnable(m) {
		e.Fixes = append(e.Fixes, learnFix(m, x.devType))
	}
}

func signatureNote(sig string) string {
	if sig == "" {
		return ""
	}
	return " (signature " + sig + ")"
}

// noKernelAnywhere: no device of the process has a kernel that accepts the
// node (colocation_graph.cc InitializeMember, eager context.cc SelectDevice).
func (x *explainer) noKernelAnywhere(e *reports.Explanation, m *tflog.Message, ns []*graph.Node) {
	devs := "the process"
	if len(m.RegisteredDevices) > 0 {
		devs = "the process (" + strings.Join(m.RegisteredDevices, ", ") + ")"
	}
	e.Cause = fmt.Sprintf("No device of %s has a kernel for %s%s, so TensorFlow cannot place it anywhere and soft placement does not help.",
		devs, subject(*e), attrsNote(m, *e))
	if k := kernelsNote(m, x.devType); k != "" {
		e.Cause += " " + k
	}
	if k := kernelsNote(m, "CPU"); k != "" && x.devType != "CPU" {
		e.Cause += " " + k
	}
	if len(m.RegisteredDevices) > 0 && !slices.Contains(m.RegisteredDevices, x.devType) {
		e.Cause += fmt.Sprintf(" The process had no %s device: this log does not test tfscan's prediction for %s.", x.devType, x.opts.Target)
	} else {
		x.assessMissing(e, m, ns)
	}
	x.kernelFixes(e, m, ns)
}

// noKernelOn: a kernel lookup on one device type failed (op_kernel.cc
// FindKernelDef, colocation_graph.cc explicit device, eager SelectDevice).
func (x *explainer) noKernelOn(e *reports.Explanation, m *tflog.Message, ns []*graph.Node) {
	dev, _, _ := strings.Cut(m.Device, ":")
	switch m.Kind {
	case tflog.KindExplicitDevice:
		if others := groupLacking(m, dev); len(others) > 0 {
			// TensorFlow names the node it was placing, but its own op
			// has a kernel there: another op of its colocation group
			// has none (Member::MergeSupportedDevices,
			// colocation_graph.cc:424-486, intersects the members'
			// device types).
			e.Cause = fmt.Sprintf("%s is pinned to %s and soft placement is off. %s itself has a %s kernel, but it is colocated (through a resource it uses, or a colocation attr) with %s, which the log's colocation block lists with no %s kernel, and TensorFlow places a colocation group on one device.",
				subject(*e), devSpec(m.Device), orDash(m.Op), orDash(dev), strings.Join(others, ", "), orDash(dev))
		} else {
			e.Cause = fmt.Sprintf("%s is pinned to %s and soft placement is off, but %s has no kernel for it%s.", subject(*e), devSpec(m.Device), orDash(dev), attrsNote(m, *e))
		}
		e.Cause += " " + x.pinNote(ns, m.Device)
	case tflog.KindEagerDeviceSpec:
		e.Cause = fmt.Sprintf("The eager op %s was asked to run on %s, which has no kernel for it, and soft placement is off.", orDash(m.Op), devSpec(m.Device))
	default:
		e.Cause = fmt.Sprintf("TensorFlow looked for a %s kernel of %s and found none that accepts %s%s.", orDash(dev), orDash(m.Op), subject(*e), attrsNote(m, *e))
	}
	if k := kernelsNote(m, dev); k != "" {
		e.Cause += " " + k
	}
	switch dev {
	case x.devType:
		x.assessMissing(e, m, ns)
	case "CPU":
		e.Cause += " This is about the host CPU, not the target."
	default:
		e.Cause += fmt.Sprintf(" The log is about %s devices; the target %s is %s: this does not test tfscan's prediction.", dev, x.opts.Target, x.devType)
	}
	x.kernelFixes(e, m, ns)
	if m.Kind != tflog.KindNoRegisteredKernel {
		e.Fixes = append(e.Fixes, softPlacementFix())
		x.pinFixes(e, ns, m)
	}
}

// assessMissing compares "the target has no kernel for these nodes" with
// the prediction.
func (x *explainer) assessMissing(e *reports.Explanation, m *tflog.Message, ns []*graph.Node) {
	if len(ns) == 0 {
		return
	}
	agree := x.anyUncovered(ns)
	e.Agrees = boolPtr(agree)
	if agree {
		e.Cause += fmt.Sprintf(" tfscan predicts the same (%s).", e.Prediction.Reason)
		return
	}
	if n := x.lowered(ns); n != nil && (m.Kind == tflog.KindGEOpUnsupported || m.Kind == tflog.KindGENoEngine) {
		// The kernel lists agree; the precision modes differ.
		mode := "its precision mode"
		if s := x.rt.Stack; s != nil && s.PrecisionMode != "" {
			mode = "precision_mode " + s.PrecisionMode + " (the target's stack.assumed says why)"
		}
		e.Cause += fmt.Sprintf(" tfscan predicted that the NPU runs this float32 %s in %s under %s; this run kept float32, as CANN does under must_keep_origin_dtype (its default on chips other than the Atlas training series): pass --precision-mode must_keep_origin_dtype, or --stack-option soc=CHIP, to predict this run.",
			n.Op, x.result[x.path[n]].LoweredTo, mode)
		e.Fixes = append(e.Fixes, precisionModeFix(n.Op))
		return
	}
	r := x.rt.Registry
	e.Cause += fmt.Sprintf(" tfscan predicted a kernel from its %s pack (%s, %s): that kernel list and the install that wrote this log differ.", r.Name, r.Method, r.Source)
	if learnable(m) {
		e.Fixes = append(e.Fixes, learnFix(m, x.devType))
	}
	if r.Method != "live_dump" {
		e.Fixes = append(e.Fixes, liveDumpFix(r))
	}
}

// missingDevice: a pin to a device the process does not have.
func (x *explainer) missingDevice(e *reports.Explanation, m *tflog.Message, ns []*graph.Node) {
	have := "its devices"
	if len(m.RegisteredDevices) > 0 {
		have = strings.Join(m.RegisteredDevices, ", ")
	}
	e.Cause = fmt.Sprintf("%s is pinned to %s, a device the process does not have (it has %s), and soft placement is off.", subject(*e), devSpec(m.Device), have)
	want, _, _ := strings.Cut(m.Device, ":")
	pinned := false
	for _, n := range ns {
		if t := pinType(n.Device); t != "" && strings.EqualFold(t, want) {
			pinned = true
		}
	}
	if len(ns) > 0 {
		e.Agrees = boolPtr(pinned)
	}
	e.Cause += " " + x.pinNote(ns, m.Device)
	e.Fixes = append(e.Fixes, softPlacementFix())
	x.pinFixes(e, ns, m)
}

// pinNote says where a pin comes from: the model's NodeDef, or the code.
func (x *explainer) pinNote(ns []*graph.Node, device string) string {
	for _, n := range ns {
		if n.Device != "" {
			return fmt.Sprintf("The pin is in the model (device %q): an export from a machine with that device keeps it.", n.Device)
		}
	}
	return fmt.Sprintf("The model's NodeDef requests no device: the pin to %s comes from the code that ran it (a tf.device scope or a distribution strategy).", devSpec(device))
}

// resourcesMoved: soft placement moved a resource's colocation group.
func (x *explainer) resourcesMoved(e *reports.Explanation, m *tflog.Message, ns []*graph.Node) {
	lacking := x.lacking(m)
	why := "one of its ops has no kernel where the resource was"
	if len(lacking) > 0 {
		why = fmt.Sprintf("the log's colocation group lists no %s kernel for %s", x.devType, strings.Join(lacking, ", "))
	} else if len(ns) > 0 && !covered(x.result[x.path[ns[0]]].Reason) {
		why = fmt.Sprintf("%s (%s) has no %s kernel", ns[0].Op, strings.Join(ns[0].DTypes(), ","), x.devType)
	}
	e.Cause = fmt.Sprintf("Soft placement moved a resource's colocation group (%d nodes) to %s because %s: a resource and every op that reads or updates it must share a device.", len(m.Nodes)+boolInt(m.Node != ""), devSpec(m.Device), why)
	if len(ns) == 0 {
		return
	}
	onCPU := true
	for _, n := range ns {
		if d := x.result[x.path[n]].Device; d == "" || !isCPU(d) {
			onCPU = false
		}
	}
	agree := onCPU == isCPU(m.Device)
	e.Agrees = boolPtr(agree)
	var culprit *graph.Node
	for _, n := range ns {
		if slices.Contains(lacking, n.Op) || len(lacking) == 0 && !covered(x.result[x.path[n]].Reason) {
			culprit = n
			break
		}
	}
	if !agree {
		e.Cause += fmt.Sprintf(" tfscan predicted the group on %s", x.result[x.path[ns[0]]].Device)
		if culprit != nil && covered(x.result[x.path[culprit]].Reason) {
			e.Cause += fmt.Sprintf(": its %s pack has a kernel for %s (%s) that the install lacks", x.rt.Registry.Name, culprit.Op, strings.Join(culprit.DTypes(), ","))
		}
		e.Cause += "."
		e.Fixes = append(e.Fixes, liveDumpFix(x.rt.Registry))
		return
	}
	if culprit != nil {
		x.wishFix(e, culprit)
		x.rewriteFix(e, culprit)
	}
}

// lacking are the ops of a colocation group that, by the log's own debug
// block, have no kernel on the target's device type.
func (x *explainer) lacking(m *tflog.Message) []string {
	return opsLacking(m, x.devType)
}

func opsLacking(m *tflog.Message, dev string) []string {
	var out []string
	for _, od := range m.OpDevices {
		if !slices.Contains(od.Devices, dev) {
			out = append(out, od.Op)
		}
	}
	return out
}

// groupLacking are the other ops of the message's colocation group that
// have no dev kernel, when the message's own op has one (by the log's
// colocation block); nil otherwise.
func groupLacking(m *tflog.Message, dev string) []string {
	own := slices.IndexFunc(m.OpDevices, func(od tflog.OpDevices) bool { return od.Op == m.Op })
	if dev == "" || own < 0 || !slices.Contains(m.OpDevices[own].Devices, dev) {
		return nil
	}
	return opsLacking(m, dev)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// npu explains tf_adapter's and Graph Engine's messages.
func (x *explainer) npu(e *reports.Explanation, m *tflog.Message, ns []*graph.Node) {
	fatal := false
	switch m.Kind {
	case tflog.KindNPUUnsupportedNode:
		if strings.Contains(m.Text, "excluded in candidates") {
			e.Cause = fmt.Sprintf("tf_adapter left %s out of the NPU subgraph: its op is not in the NPU's supported op list; it stays in TensorFlow on the host, with copies to and from the NPU.", subject(*e))
		} else {
			fatal = true
			e.Cause = fmt.Sprintf("tf_adapter refused %s: its op is not in the NPU's supported op list, and the graph asks for it on the NPU (in_out_pair).", subject(*e))
		}
	case tflog.KindNPUOpNotInWhiteList:
		e.Cause = fmt.Sprintf("tf_adapter's list of NPU-supported ops has no %s: no node of it goes into an NPU subgraph.", m.Op)
	case tflog.KindNPUFallback:
		e.Cause = fmt.Sprintf("The TF2 NPU device ran %s on the host CPU: the NPU does not support it.", subject(*e))
	case tflog.KindGEOpUnsupported:
		fatal = true
		e.Cause = fmt.Sprintf("Graph Engine's %s ops kernel store rejected %s: %s", orDash(m.Engine), m.Op, strings.TrimSpace(m.Reason))
	case tflog.KindGENoEngine:
		fatal = true
		e.Cause = fmt.Sprintf("No Graph Engine engine (AI Core, AI CPU, ...) can run %s, so the NPU graph does not compile.", subject(*e))
	}
	if x.devType != "NPU" {
		e.Cause += fmt.Sprintf(" The target %s is not an Ascend NPU target: this does not test its prediction.", x.opts.Target)
	} else {
		x.assessMissing(e, m, ns)
	}
	x.kernelFixes(e, m, ns)
	if fatal {
		e.Fixes = append(e.Fixes, reports.Fix{Kind: reports.FixStackOption, Option: "mix_compile_mode=True",
			Text: "set mix_compile_mode=True (tf_adapter's session config; it defaults to False): ops outside the NPU's list then stay in TensorFlow on the host instead of failing the NPU graph, at the price of host-device copies"})
	}
}

// kernelFixes are the fixes for a node without a kernel on the target:
// the wishlist, the precision mode, the custom-op library, a rewrite rule.
func (x *explainer) kernelFixes(e *reports.Explanation, m *tflog.Message, ns []*graph.Node) {
	if len(ns) == 0 {
		return
	}
	n := ns[0]
	for _, c := range ns {
		if !covered(x.result[x.path[c]].Reason) {
			n = c
			break
		}
	}
	r := x.result[x.path[n]]
	if r.Reason == "unknown_op" {
		if m.Kind != tflog.KindOpNotRegistered {
			e.Fixes = append(e.Fixes, loadLibraryFix(n.Op))
		}
		return
	}
	if covered(r.Reason) {
		return
	}
	x.wishFix(e, n)
	x.precisionFix(e, n)
	x.rewriteFix(e, n)
}

// wishFix places n's missing kernel in the target's kernel wishlist.
func (x *explainer) wishFix(e *reports.Explanation, n *graph.Node) {
	if covered(x.result[x.path[n]].Reason) {
		return
	}
	dt := dtype.Name(placement.PrimaryDType(n))
	for i, w := range x.rt.Wishlist {
		if w.Op == n.Op && w.DType == dt {
			text := fmt.Sprintf("ask the vendor to add %s for %s on %s: it would remove %d transfer(s), %s per step", n.Op, dt, x.devType, w.TransfersRemoved, byteString(w.BytesRemoved))
			if w.TransfersRemoved == 0 {
				text = fmt.Sprintf("ask the vendor to add %s for %s on %s: the node would run there (no transfer removed: its neighbours are on the host too)", n.Op, dt, x.devType)
			}
			e.Fixes = append(e.Fixes, reports.Fix{Kind: reports.FixKernelWishlist, Rank: i + 1, Of: len(x.rt.Wishlist), Text: text})
			return
		}
	}
	e.Fixes = append(e.Fixes, reports.Fix{Kind: reports.FixKernelWishlist,
		Text: fmt.Sprintf("ask the vendor to add %s for %s on %s", n.Op, dt, x.devType)})
}

// precisionFix: on a graph-compiling stack (Ascend), a float32 node whose
// kernels are float16 runs on the device under a precision mode that casts.
func (x *explainer) precisionFix(e *reports.Explanation, n *graph.Node) {
	if x.rt.Registry.Mechanism != "graph_offload" || !slices.Contains(n.DTypes(), "float32") {
		return
	}
	r := x.result[x.path[n]]
	u := x.groups[groupKey(r.Op, r.DTypes)]
	if u == nil || !strings.Contains(strings.Join(u.Supported, " "), "float16") {
		return
	}
	e.Fixes = append(e.Fixes, precisionModeFix(n.Op))
}

// precisionModeFix: run under a CANN precision mode that lowers a float32
// node whose kernels are float16 (docs/precision.md).
func precisionModeFix(op string) reports.Fix {
	return reports.Fix{Kind: reports.FixPrecisionMode, Option: "precision_mode=allow_fp32_to_fp16",
		Text: fmt.Sprintf("run with CANN's precision_mode allow_fp32_to_fp16 (CANN's default on the Atlas training series; Atlas A2 defaults to must_keep_origin_dtype): the NPU then runs this float32 %s in float16 instead of leaving it to the host; check the numbers with tfscan parity", op)}
}

// lowered is the first of ns the target's precision mode runs in a
// narrower type (covered_lower_precision), or nil.
func (x *explainer) lowered(ns []*graph.Node) *graph.Node {
	for _, n := range ns {
		if r := x.result[x.path[n]]; r != nil && r.Reason == reports.ReasonCoveredLowerPrecision {
			return n
		}
	}
	return nil
}

// rewriteFix asks the rewrite hook for rules that apply.
func (x *explainer) rewriteFix(e *reports.Explanation, n *graph.Node) {
	if x.rewriteFixes == nil {
		return
	}
	for _, f := range x.rewriteFixes(n) {
		f.Kind = reports.FixRewrite
		e.Fixes = append(e.Fixes, f)
	}
}

// pinFixes: drop the device pin, in the model or in the code.
func (x *explainer) pinFixes(e *reports.Explanation, ns []*graph.Node, m *tflog.Message) {
	for _, n := range ns {
		if n.Device != "" {
			e.Fixes = append(e.Fixes, reports.Fix{Kind: reports.FixClearDevices,
				Text: fmt.Sprintf("drop the model's device pins (%q on %s): export or import with clear_devices=True; tfscan scan --clear-devices predicts the result", n.Device, x.path[n])})
			return
		}
	}
	if len(ns) > 0 {
		e.Fixes = append(e.Fixes, reports.Fix{Kind: reports.FixClearDevices,
			Text: fmt.Sprintf("remove the tf.device(%q) scope (or the strategy's device) around %s in the code that runs the model", devSpec(m.Device), e.Node)})
	}
}

func softPlacementFix() reports.Fix {
	return reports.Fix{Kind: reports.FixSoftPlacement, Option: "allow_soft_placement=True",
		Text: "turn soft placement on (TF2: tf.config.set_soft_device_placement(True); TF1: ConfigProto(allow_soft_placement=True)): TensorFlow then runs the node where a kernel exists, the CPU here"}
}

func loadLibraryFix(op string) reports.Fix {
	lib := strings.TrimPrefix(coverage.CustomOpHint(op), "probably needs ")
	f := reports.Fix{Kind: reports.FixLoadLibrary, Library: lib,
		Text: fmt.Sprintf("load the library that registers %s before loading the model (import its Python package, or tf.load_op_library on its .so)", op)}
	if lib != "" {
		f.Text += "; it is probably " + lib
	}
	return f
}

// learnable says whether the message states a kernel list tfscan can learn.
func learnable(m *tflog.Message) bool {
	return m.KernelsListed && !m.KernelsElided && m.Op != ""
}

func learnFix(m *tflog.Message, devType string) reports.Fix {
	return reports.Fix{Kind: reports.FixLearnRegistry,
		Text: fmt.Sprintf("this message lists every kernel of %s the install has: tfscan explain LOG --learn-registry learned.json writes them as a pack, and tfscan scan --registry learned.json then uses them over the %s pack", m.Op, devType)}
}

// subject is "node (Op dtypes)" for causes.
func subject(e reports.Explanation) string {
	name := e.Node
	if name == "" {
		name = e.LoggedNode
	}
	var what []string
	if e.Op != "" {
		what = append(what, e.Op)
	}
	if len(e.DTypes) > 0 {
		what = append(what, strings.Join(e.DTypes, ","))
	}
	switch {
	case name == "" && len(what) > 0:
		return strings.Join(what, " ")
	case name == "":
		return "the node"
	case len(what) > 0:
		return name + " (" + strings.Join(what, " ") + ")"
	}
	return name
}

// attrsNote gives the message's dtypes when the model's node has others
// (a log of another version of the model, or of a node Grappler changed).
func attrsNote(m *tflog.Message, e reports.Explanation) string {
	logged := dtNames(m.DTypes)
	if len(logged) == 0 || !slices.ContainsFunc(logged, func(d string) bool { return !slices.Contains(e.DTypes, d) }) {
		return ""
	}
	return " with " + strings.Join(logged, ", ") + " as the log has it"
}

// kernelsNote summarises the message's kernel list for one device type.
func kernelsNote(m *tflog.Message, dev string) string {
	if !m.KernelsListed || dev == "" || m.KernelsElided {
		return ""
	}
	var cons []string
	var ks []tflog.Kernel
	for _, k := range m.Kernels {
		if k.DeviceType == dev {
			ks = append(ks, k)
		}
	}
	if u, ok := unionTypes(ks); ok {
		ks = []tflog.Kernel{u}
	}
	for _, k := range ks {
		c := constraintText(k)
		if c == "" {
			c = "any attrs"
		}
		cons = append(cons, c)
	}
	if len(cons) == 0 {
		if len(m.RegisteredDevices) > 0 && !slices.Contains(m.RegisteredDevices, dev) {
			return ""
		}
		return fmt.Sprintf("The log's kernel list has no %s kernel of %s at all.", dev, orDash(m.Op))
	}
	slices.Sort(cons)
	return fmt.Sprintf("The log's %s kernels of %s take %s.", dev, orDash(m.Op), strings.Join(slices.Compact(cons), "; or "))
}

// unionTypes merges kernels that differ only in the dtypes of their one
// type constraint (one registration per dtype, as TF_CALL_* macros make
// them) into one kernel with the union, in TensorFlow's DataType order.
func unionTypes(ks []tflog.Kernel) (tflog.Kernel, bool) {
	if len(ks) < 2 {
		return tflog.Kernel{}, false
	}
	u := tflog.Kernel{DeviceType: ks[0].DeviceType, Constraints: []tflog.Constraint{{}}}
	for _, k := range ks {
		if k.Label != "" || len(k.Constraints) != 1 || len(k.Constraints[0].Types) == 0 {
			return tflog.Kernel{}, false
		}
		c := k.Constraints[0]
		if u.Constraints[0].Name == "" {
			u.Constraints[0].Name = c.Name
		} else if c.Name != u.Constraints[0].Name {
			return tflog.Kernel{}, false
		}
		for _, t := range c.Types {
			if !slices.Contains(u.Constraints[0].Types, t) {
				u.Constraints[0].Types = append(u.Constraints[0].Types, t)
			}
		}
	}
	slices.SortFunc(u.Constraints[0].Types, func(a, b string) int { return int(tpb.DataType_value[a] - tpb.DataType_value[b]) })
	return u, true
}

func constraintText(k tflog.Kernel) string {
	var parts []string
	if k.Label != "" {
		parts = append(parts, "label "+k.Label)
	}
	for _, c := range k.Constraints {
		var vals []string
		switch {
		case len(c.Types) > 0:
			vals = dtNames(c.Types)
		case len(c.Strings) > 0:
			vals = c.Strings
		default:
			for _, v := range c.Ints {
				vals = append(vals, fmt.Sprint(v))
			}
			for _, v := range c.Bools {
				vals = append(vals, fmt.Sprint(v))
			}
		}
		parts = append(parts, c.Name+" in {"+strings.Join(vals, ", ")+"}")
	}
	return strings.Join(parts, ", ")
}

// dtNames turns DT_ names into tfscan's dtype names (float32, ...).
func dtNames(ds []string) []string {
	var out []string
	for _, d := range ds {
		out = append(out, dtName(d))
	}
	return out
}

func dtName(d string) string {
	if v, ok := tpb.DataType_value[d]; ok {
		return dtype.Name(tpb.DataType(v))
	}
	return d
}

// pinType is the device type a NodeDef's device field requests ("" none).
func pinType(dev string) string {
	i := strings.LastIndex(strings.ToLower(dev), "device:")
	if i >= 0 {
		t, _, _ := strings.Cut(dev[i+len("device:"):], ":")
		return t
	}
	last := dev[strings.LastIndex(dev, "/")+1:]
	t, _, _ := strings.Cut(last, ":")
	switch strings.ToLower(t) {
	case "", "job", "replica", "task":
		return ""
	}
	return t
}

// devSpec writes a normalised device ("XPU:0") as TensorFlow's device
// specification ("/device:XPU:0").
func devSpec(d string) string {
	if d == "" {
		return "-"
	}
	return "/device:" + d
}

func isCPU(dev string) bool { return strings.HasPrefix(strings.ToUpper(dev), "CPU") }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func byteString(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
