package explain

import (
	"fmt"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/tflog"
)

// placement explains one placement line of log_device_placement (or an
// eager "Executing op" line, by op). Every line is counted; a line becomes
// an explanation only when the node ran on the host or tfscan predicted
// another kind of device: a node on the accelerator as predicted needs no
// explanation, and a name the model does not have (a tf.function's _Arg and
// _Retval nodes, dataset and optimizer graphs) is counted in
// placement_not_found.
func (x *explainer) placement(p tflog.Placement, eager bool, s *reports.ExplainSummary) (reports.Explanation, bool) {
	s.PlacementLines++
	var ns []*graph.Node
	kind, source, text := tflog.KindPlacement, tflog.PlacerSource, fmt.Sprintf("%s: (%s): %s", p.Name, p.Op, devSpec(p.Device))
	if eager {
		ns = x.byOp[p.Op]
		kind, source, text = tflog.KindEagerPlacement, tflog.EagerSource, fmt.Sprintf("Executing op %s in device %s", p.Op, devSpec(p.Device))
	} else {
		ns = x.nodes(p.Name, p.Op)
	}
	if len(ns) == 0 {
		s.PlacementNotFound++
		return reports.Explanation{}, false
	}
	// the node predicted on the same kind of device, if any instance is
	best := -1
	for i, n := range ns {
		if d := x.result[x.path[n]].Device; d != "" && isCPU(d) == isCPU(p.Device) {
			best = i
			break
		}
	}
	agree := best >= 0
	if agree {
		s.PlacementAgree++
		ns = append([]*graph.Node{ns[best]}, append(ns[:best:best], ns[best+1:]...)...)
	}
	if agree && !isCPU(p.Device) {
		return reports.Explanation{}, false
	}
	e := reports.Explanation{LoggedNode: p.Name, MessageKind: string(kind), Message: text, MessageSource: source, Line: p.Line, Count: 1}
	x.setNodes(&e, ns)
	pred := e.Prediction.Device
	if pred == "" {
		e.Cause = fmt.Sprintf("TensorFlow placed %s on %s; tfscan ran no placement simulation to compare with.", subject(e), p.Device)
		return e, true
	}
	e.Agrees = boolPtr(agree)
	detail := ""
	if e.Prediction.Detail != "" {
		detail = ": " + e.Prediction.Detail
	}
	switch {
	case agree:
		e.Cause = fmt.Sprintf("TensorFlow placed %s on the host CPU, as tfscan predicted%s.", subject(e), detail)
		x.kernelFixes(&e, &tflog.Message{}, ns[:1])
	case isCPU(p.Device):
		e.Cause = fmt.Sprintf("TensorFlow placed %s on the host CPU although tfscan predicted %s: a pin or colocation in the code that ran it, or a kernel tfscan's %s pack lists and the install lacks.", subject(e), pred, x.rt.Registry.Name)
		e.Fixes = append(e.Fixes, liveDumpFix(x.rt.Registry))
	default:
		e.Cause = fmt.Sprintf("TensorFlow ran %s on %s although tfscan predicted the CPU%s: the install has a kernel tfscan's %s pack lacks, or the log is from another device type than %s.", subject(e), p.Device, detail, x.rt.Registry.Name, x.devType)
		e.Fixes = append(e.Fixes, liveDumpFix(x.rt.Registry))
	}
	return e, true
}

func liveDumpFix(r reports.RegistryInfo) reports.Fix {
	return reports.Fix{Kind: reports.FixLiveDump,
		Text: fmt.Sprintf("make a live dump of the kernel registry on the machine that wrote this log (tools/dump_registry.py) and pass it with --registry: it replaces the %s pack's %s list", r.Name, r.Method)}
}
