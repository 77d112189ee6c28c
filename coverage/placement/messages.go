package placement

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"
	tspb "github.com/wamuir/graft/tensorflow/core/framework/tensor_shape_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/dtype"
)

// This file renders the parts of TensorFlow's placement errors that
// describe nodes and kernels, the way TF 2.15 formats them. Where TF's text
// depends on process state tfscan does not have (hash-map order, the
// Colocation Debug Info dump, farmhash fingerprints of long lists), the
// comment at the place says what tfscan prints instead.

// kernelLister is a Matcher that can list an op's registered kernels
// (coverage.Index).
type kernelLister interface {
	Registered(op string) []*kdpb.KernelDef
}

// registeredKernels is KernelsRegisteredForOp (op_kernel.cc:1632-1649) for
// the simulated build: the target's kernels, the CPU's, then the DEFAULT
// ones, one line each ending in a newline. TF walks its registry's hash map,
// so its order is unspecified; tfscan lists devices in the device set's
// priority order, kernels in pack order, each DEFAULT kernel once.
func (s *sim) registeredKernels(op string) string {
	var b strings.Builder
	seen := map[string]bool{}
	var defaults []string
	for d := range s.devs {
		kl, ok := s.matchers[d].(kernelLister)
		if !ok {
			continue
		}
		for _, k := range kl.Registered(op) {
			line := kernelLine(k)
			if seen[line] {
				continue
			}
			seen[line] = true
			if k.GetDeviceType() == "DEFAULT" {
				defaults = append(defaults, line)
				continue
			}
			b.WriteString(line)
		}
	}
	for _, line := range defaults {
		b.WriteString(line)
	}
	if b.Len() == 0 {
		return "  <no registered kernels>\n"
	}
	return b.String()
}

// kernelLine is one line of KernelsRegisteredForOp.
func kernelLine(k *kdpb.KernelDef) string {
	return "  " + KernelLine(k) + "\n"
}

// KernelLine is a kernel as KernelsRegisteredForOp prints it
// (op_kernel.cc:1631-1650), without the indent: "device='CPU'; T in
// [DT_FLOAT]". Tests compare learned packs with TensorFlow's own lines by it.
func KernelLine(k *kdpb.KernelDef) string {
	var b strings.Builder
	b.WriteString("device='" + k.GetDeviceType() + "'")
	if k.GetLabel() != "" {
		b.WriteString("; label='" + k.GetLabel() + "'")
	}
	for _, c := range k.GetConstraint() {
		b.WriteString("; " + c.GetName() + " in " + summarizeAttr(c.GetAllowedValues()))
	}
	return b.String()
}

// malformedDevice is the error of Member::SetRequestedDeviceName and
// SetResourceDeviceName (colocation_graph.cc:194-232) for a device field
// ParseFullName refuses, with the node as Node::DebugString prints it
// (graph.cc:117-129).
func (s *sim) malformedDevice(p *pnode) string {
	dev := p.deviceField()
	return fmt.Sprintf("Malformed device specification '%s' in node: {name:'%s' id:%d op device:{requested: '%s', assigned: ''} def:{%s}}",
		dev, p.name(), s.tfNodeID(p), dev, summarizeNodeDef(p))
}

// tfNodeID is the id the node has in the graph TF places: after the source
// and sink (ids 0 and 1), the GraphDef's nodes in the order GraphConstructor
// adds them (topological, ties by NodeDef index: topoOrder). In a
// function's graph the _Arg nodes come first; inside inlined bodies TF
// numbers nodes differently, so there the id is the body's own numbering.
func (s *sim) tfNodeID(p *pnode) int {
	if p.src == nil {
		return int(p.idx + 2)
	}
	nodes, base, keeps := s.g.Nodes[:min(s.g.TopLevel, len(s.g.Nodes))], 2, s.g.TopoKeepsOrder()
	if f := p.src.Func; f != nil {
		nodes, base, keeps = f.Nodes, 2+len(f.Def.GetSignature().GetInputArg()), f.TopoKeepsOrder()
	}
	for i, n := range topoOrder(nodes, keeps) {
		if n == p.src {
			return base + i
		}
	}
	return int(p.idx + 2)
}

// summarizeNodeDef is SummarizeNodeDef (node_def_util.cc:112-131): name,
// op, every attr sorted (OpDef defaults included, as the graph holds them),
// the device as a last "_device" attr, and the inputs verbatim.
func summarizeNodeDef(p *pnode) string {
	var b strings.Builder
	b.WriteString("{{node " + p.name() + "}} = " + p.op() + "[")
	attrs := attrString(p)
	b.WriteString(attrs)
	if dev := p.deviceField(); dev != "" {
		if attrs != "" {
			b.WriteString(", ")
		}
		b.WriteString(`_device="` + dev + `"`)
	}
	b.WriteString("](")
	if p.src != nil && p.src.Def != nil {
		b.WriteString(strings.Join(p.src.Def.GetInput(), ", "))
	}
	b.WriteString(")")
	return b.String()
}

// attrString lists a node's attrs "name=value, ..." as AttrSlice::DebugString
// (node_def_util.cc:100-110) and SummarizeAttrsHelper do. DebugString walks
// a protobuf map in no fixed order; tfscan sorts by name, as the helper does.
func attrString(p *pnode) string {
	if p.look() == nil {
		return ""
	}
	keys := make([]string, 0, len(p.look().Attrs))
	for k := range p.look().Attrs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + summarizeAttr(p.look().Attrs[k])
	}
	return strings.Join(parts, ", ")
}

// summarizeAttr is SummarizeAttrValue (attr_value_util.cc:277-350).
func summarizeAttr(a *attrpb.AttrValue) string {
	switch v := a.GetValue().(type) {
	case *attrpb.AttrValue_S:
		return summarizeString(v.S)
	case *attrpb.AttrValue_I:
		return strconv.FormatInt(v.I, 10)
	case *attrpb.AttrValue_F:
		return formatFloat(v.F)
	case *attrpb.AttrValue_B:
		return strconv.FormatBool(v.B)
	case *attrpb.AttrValue_Type:
		return v.Type.String()
	case *attrpb.AttrValue_Shape:
		return partialShape(v.Shape)
	case *attrpb.AttrValue_Tensor:
		return summarizeTensor(v.Tensor.GetDtype(), v.Tensor.GetTensorShape())
	case *attrpb.AttrValue_Func:
		return summarizeFunc(v.Func)
	case *attrpb.AttrValue_Placeholder:
		return "$" + v.Placeholder
	case *attrpb.AttrValue_List:
		l := v.List
		var items []string
		switch {
		case len(l.GetS()) > 0:
			for _, x := range l.GetS() {
				items = append(items, summarizeString(x))
			}
		case len(l.GetI()) > 0:
			for _, x := range l.GetI() {
				items = append(items, strconv.FormatInt(x, 10))
			}
		case len(l.GetF()) > 0:
			for _, x := range l.GetF() {
				items = append(items, formatFloat(x))
			}
		case len(l.GetB()) > 0:
			for _, x := range l.GetB() {
				items = append(items, strconv.FormatBool(x))
			}
		case len(l.GetType()) > 0:
			for _, x := range l.GetType() {
				items = append(items, x.String())
			}
		case len(l.GetShape()) > 0:
			for _, x := range l.GetShape() {
				items = append(items, partialShape(x))
			}
		case len(l.GetTensor()) > 0:
			for _, x := range l.GetTensor() {
				items = append(items, summarizeTensor(x.GetDtype(), x.GetTensorShape()))
			}
		case len(l.GetFunc()) > 0:
			for _, x := range l.GetFunc() {
				items = append(items, summarizeFunc(x))
			}
		}
		if len(items) >= 30 {
			// TF keeps the first five and the last six and appends
			// "{attr_hash=N}", a farmhash fingerprint tfscan does not
			// compute; it leaves that suffix out.
			items = append(append(items[:5:5], "..."), items[len(items)-6:]...)
		}
		return "[" + strings.Join(items, ", ") + "]"
	}
	return ""
}

// summarizeString is SummarizeString (attr_value_util.cc:183-197): C-escaped,
// quoted, the middle of a long string cut.
func summarizeString(s []byte) string {
	var b strings.Builder
	for _, c := range s {
		switch c {
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '"', '\'', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			if c < 0x20 || c >= 0x7f {
				fmt.Fprintf(&b, "\\%03o", c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	e := b.String()
	if len(e) >= 80 {
		e = e[:10] + "..." + e[len(e)-10:]
	}
	return `"` + e + `"`
}

// formatFloat prints a float attr the way strings::StrCat does: the
// shortest text that reads back as the same float.
func formatFloat(f float32) string {
	return strconv.FormatFloat(float64(f), 'g', -1, 32)
}

// partialShape is TensorShapeRep::DebugString (tensor_shape.cc:752-788):
// "<unknown>" or "[2,?]".
func partialShape(sh *tspb.TensorShapeProto) string {
	if sh.GetUnknownRank() {
		return "<unknown>"
	}
	dims := make([]string, len(sh.GetDim()))
	for i, d := range sh.GetDim() {
		if d.GetSize() < 0 {
			dims[i] = "?"
		} else {
			dims[i] = strconv.FormatInt(d.GetSize(), 10)
		}
	}
	return "[" + strings.Join(dims, ",") + "]"
}

// summarizeTensor stands for SummarizeTensor (attr_value_util.cc:199-215),
// which prints up to three values; tfscan prints the type and shape only,
// the form of Tensor::DeviceSafeDebugString (tensor.cc:1533-1536).
func summarizeTensor(dt tpb.DataType, sh *tspb.TensorShapeProto) string {
	return "Tensor<type: " + dataTypeString(dt) + " shape: " + partialShape(sh) + ">"
}

// dataTypeString is DataTypeString (types.cc): the enum name, lower case,
// without DT_; reference types end in "_ref".
func dataTypeString(dt tpb.DataType) string {
	ref := ""
	if dtype.IsRef(dt) {
		dt, ref = dtype.Base(dt), "_ref"
	}
	return strings.ToLower(strings.TrimPrefix(dt.String(), "DT_")) + ref
}

// summarizeFunc is SummarizeFunc (attr_value_util.cc:217-225).
func summarizeFunc(f *attrpb.NameAttrList) string {
	entries := make([]string, 0, len(f.GetAttr()))
	for k, v := range f.GetAttr() {
		entries = append(entries, k+"="+summarizeAttr(v))
	}
	sort.Strings(entries)
	return f.GetName() + "[" + strings.Join(entries, ", ") + "]"
}
