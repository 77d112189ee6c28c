package graph

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	fpb "github.com/wamuir/graft/tensorflow/core/framework/function_go_proto"
	"google.golang.org/protobuf/proto"
)

// The problems TensorFlow refuses a graph for, and which of its checks
// refuses each (TF 2.15; paths under tensorflow/). Build reports them as
// Diagnostics with Fatal set and returns an *InvalidGraphError. What
// TensorFlow refuses only in some paths (an op in no registry: the TF.js
// runtime and a session with the op's library loaded accept it) stays a
// plain Diagnostic. Ranks order the problems as TensorFlow meets them:
// SavedModel loading checks the library before the session imports the
// graph (cc/saved_model/loader.cc:278 ValidateSavedTensors), the importer
// checks names, then edges, then the library, then cycles
// (core/common_runtime/graph_constructor.cc TryImport: BuildNodeIndex,
// InitFromEdges, Convert), and function bodies and calls are checked
// when the functions are loaded or instantiated.
const (
	rankSelfRecursive = iota // cc/saved_model/loader.cc:109-118
	rankNodeIndex            // graph_constructor.cc:676-715 BuildNodeIndex
	rankEdges                // graph_constructor.cc:762-768 InitFromEdges
	rankLibrary              // framework/function.cc:1374-1395 AddHelper
	rankConvert              // graph_constructor.cc:1249-1262, 1346-1349 Convert
	rankRecursion            // python/saved_model/function_deserialization.py:559-586
	rankBody                 // function bodies: importer and InstantiateFunction
	rankCall                 // the function a call names
)

// InvalidGraphError is a graph TensorFlow refuses to import or load. Build
// returns it wrapped in a *savedmodel.Error that names the file, together
// with the graph, so that a caller that lists every problem (inspect) can;
// every other caller stops at the error.
type InvalidGraphError struct {
	// Problems are the fatal Diagnostics, the one TensorFlow meets first
	// first.
	Problems []Diagnostic
}

// Error is the first problem, naming its node or function, on one line.
func (e *InvalidGraphError) Error() string {
	if len(e.Problems) == 0 {
		return "invalid graph"
	}
	d := e.Problems[0]
	s := d.Message
	if w := d.where(); w != "" {
		s = w + ": " + s
	}
	if n := len(e.Problems) - 1; n == 1 {
		s += " (and 1 more problem TensorFlow refuses)"
	} else if n > 1 {
		s += fmt.Sprintf(" (and %d more problems TensorFlow refuses)", n)
	}
	return s
}

// where names what a diagnostic is about: `node "x"`, `function "f", node
// "x"`, or `function "f"`.
func (d *Diagnostic) where() string {
	switch {
	case d.node != nil && d.node.Func != nil:
		return fmt.Sprintf("function %q, node %q", d.node.Func.Name, d.node.Name)
	case d.node != nil:
		return fmt.Sprintf("node %q", d.node.Name)
	case d.function != "":
		return fmt.Sprintf("function %q", d.function)
	}
	return ""
}

// fatalNode records a problem with node n that TensorFlow refuses.
func (b *builder) fatalNode(kind string, rank int, n *Node, format string, args ...any) {
	b.g.Diagnostics = append(b.g.Diagnostics, Diagnostic{Kind: kind, Message: fmt.Sprintf(format, args...), Fatal: true, node: n, rank: rank})
}

// fatalFunc records a problem with function name that TensorFlow refuses.
func (b *builder) fatalFunc(kind string, rank int, name, format string, args ...any) {
	b.g.Diagnostics = append(b.g.Diagnostics, Diagnostic{Kind: kind, Path: name, Message: fmt.Sprintf(format, args...), Fatal: true, function: name, rank: rank})
}

// invalid returns the fatal diagnostics as an error, nil when there are
// none.
func (b *builder) invalid() *InvalidGraphError {
	var out []Diagnostic
	for _, d := range b.g.Diagnostics {
		if d.Fatal {
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		return nil
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].rank < out[j].rank })
	return &InvalidGraphError{Problems: out}
}

// validNodeName is graph_constructor.cc:76-95 IsValidNodeName without
// internal ops, as a session imports its graph
// (common_runtime/graph_execution_state.cc:116, default
// GraphConstructorOptions): [A-Za-z0-9.][A-Za-z0-9_./-]*, then any number of
// ">" [A-Za-z0-9.][A-Za-z0-9_./-]*.
func validNodeName(s string) bool {
	first := func(c byte) bool { return isAlnum(c) || c == '.' }
	rest := func(c byte) bool { return isAlnum(c) || c == '.' || c == '_' || c == '-' || c == '/' }
	i := 0
	for {
		if i >= len(s) || !first(s[i]) {
			return false
		}
		i++
		for i < len(s) && rest(s[i]) {
			i++
		}
		if i == len(s) {
			return true
		}
		if s[i] != '>' {
			return false
		}
		i++
	}
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// checkNodeIndex applies graph_constructor.cc:676-715 BuildNodeIndex to one
// top-level node: a valid name (not for TF.js, whose runtime does not check
// names), an op, control inputs after data inputs. Duplicate names are
// found where the name index is built.
func (b *builder) checkNodeIndex(n *Node, names bool) {
	if names && !validNodeName(n.Name) {
		b.fatalNode("invalid_name", rankNodeIndex, n, "Node '%s': Node name contains invalid characters", n.Name)
	}
	if n.Op == "" {
		b.fatalNode("empty_op", rankNodeIndex, n, "Node '%s' does not specify an operation", n.Name)
	}
	b.checkControlOrder(n)
}

// checkControlOrder refuses a data input after a control input
// (graph_constructor.cc:700-711; for a function body,
// framework/function.cc:320-326 refuses it in the same way).
func (b *builder) checkControlOrder(n *Node) {
	ctl := false
	for i, s := range n.Def.GetInput() {
		if strings.HasPrefix(s, "^") {
			ctl = true
			continue
		}
		if ctl {
			if n.Func == nil {
				b.fatalNode("control_order", rankNodeIndex, n, "Node '%s': Control dependencies must come after regular dependencies", n.Name)
			} else {
				b.fatalNode("control_order", rankBody, n, "Expected input[%d] == '%s' to be a control input.", i, s)
			}
			return
		}
	}
}

// checkOutputIndex refuses a data input naming an output its producer does
// not have (graph_constructor.cc:1249-1262), where the producer's output
// count is known.
func (b *builder) checkOutputIndex(n *Node, in Input) {
	src := in.Node
	if src == nil || (src.OpDef == nil && len(src.Calls()) == 0) || src.Unknown {
		return
	}
	for _, t := range src.OutputTypes() {
		if t == 0 {
			return // the count is not known
		}
	}
	if int(in.Output) < len(src.OutputTypes()) {
		return
	}
	msg := fmt.Sprintf("Node '%s': Connecting to invalid output %d of source node %s which has %d outputs.", n.Name, in.Output, src.Name, len(src.OutputTypes()))
	switch src.Op {
	case "If", "StatelessIf", "While", "StatelessWhile":
		msg += " Try using tf.compat.v1.experimental.output_all_intermediates(True)."
	}
	b.fatalNode("invalid_output", rankConvert, n, "%s", msg)
}

// checkCallOutputs refuses a PartitionedCall whose Tout lists fewer
// outputs than its function returns: TensorFlow's importer infers the
// function's shapes into the call's outputs and meets a result with no
// output to go to (common_runtime/shape_refiner.cc:108-116; the index it
// names is the first such result it meets, the first past Tout here). A
// signature with list-valued results is not counted.
func (b *builder) checkCallOutputs(n *Node, f *Function) {
	tout, ok := n.Def.GetAttr()["Tout"]
	if !ok {
		return
	}
	results := f.Def.GetSignature().GetOutputArg()
	for _, a := range results {
		if a.GetNumberAttr() != "" || a.GetTypeListAttr() != "" {
			return
		}
	}
	if have := len(tout.GetList().GetType()); len(results) > have {
		b.fatalNode("call_outputs", rankCall, n, "Function instantiation included invalid output index: %d not in [0, %d).", have, have)
	}
}

// sameFunction is framework/function.cc:909-936 FunctionDefsEqual: the
// signature, attrs, body, ret and control_ret maps; arg attrs and resource
// ids do not count. A library may hold a function twice when both copies
// are equal.
func sameFunction(a, b *fpb.FunctionDef) bool {
	if !proto.Equal(a.GetSignature(), b.GetSignature()) || len(a.GetAttr()) != len(b.GetAttr()) ||
		len(a.GetNodeDef()) != len(b.GetNodeDef()) || len(a.GetRet()) != len(b.GetRet()) ||
		len(a.GetControlRet()) != len(b.GetControlRet()) {
		return false
	}
	for k, v := range a.GetAttr() {
		if w, ok := b.GetAttr()[k]; !ok || !proto.Equal(v, w) {
			return false
		}
	}
	for i, n := range a.GetNodeDef() {
		if !proto.Equal(n, b.GetNodeDef()[i]) {
			return false
		}
	}
	for k, v := range a.GetRet() {
		if w, ok := b.GetRet()[k]; !ok || v != w {
			return false
		}
	}
	for k, v := range a.GetControlRet() {
		if w, ok := b.GetControlRet()[k]; !ok || v != w {
			return false
		}
	}
	return true
}

// maxListedFunctions bounds the names a recursion message lists, so that
// the line stays readable on a library of thousands.
const maxListedFunctions = 10

// recursionProblems reports the call cycles recursion() found as TensorFlow
// refuses them. A function whose body names it as an op is what the C++
// SavedModel loader refuses (cc/saved_model/loader.cc:109-118); any other
// cycle through calls (a While body that calls itself through an attr,
// mutual recursion) is what tf.saved_model.load refuses when it orders the
// library by dependencies (python/saved_model/function_deserialization.py
// _sort_function_defs, 559-586): it cannot resolve the functions on a cycle
// nor any function that calls into one, and lists them all, sorted. (The
// C++ loader's words are enough when they cover every recursive function.)
func (b *builder) recursionProblems(callees [][]int) {
	fs := b.g.Functions
	other := false
	for _, f := range fs {
		if !f.Recursive {
			continue
		}
		self := false
		for _, n := range f.Nodes {
			if n.Op == f.Name {
				b.fatalFunc("recursion", rankSelfRecursive, f.Name, "Function %s is self recursive and TensorFlow does not support this scenario.", f.Name)
				self = true
				break
			}
		}
		other = other || !self
	}
	if !other {
		return
	}
	// Functions that reach a recursive one: walk callers backwards.
	callers := make([][]int, len(fs))
	for i, cs := range callees {
		for _, j := range cs {
			callers[j] = append(callers[j], i)
		}
	}
	stuck := make([]bool, len(fs))
	var stack []int
	for i, f := range fs {
		if f.Recursive {
			stuck[i] = true
			stack = append(stack, i)
		}
	}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, c := range callers[i] {
			if !stuck[c] {
				stuck[c] = true
				stack = append(stack, c)
			}
		}
	}
	var names []string
	for i, f := range fs { // fs is in name order
		if stuck[i] {
			names = append(names, pyRepr(f.Name))
		}
	}
	list := strings.Join(names, ", ")
	if len(names) > maxListedFunctions {
		list = strings.Join(names[:maxListedFunctions], ", ") + fmt.Sprintf(", ... %d more", len(names)-maxListedFunctions)
	}
	first := ""
	for _, f := range fs {
		if f.Recursive {
			first = f.Name
			break
		}
	}
	b.fatalFunc("recursion", rankRecursion, first, "There is a cyclic dependency between functions. Could not resolve [%s].", list)
}

// pyRepr quotes s as Python's repr does for a plain name.
func pyRepr(s string) string {
	if !strings.ContainsAny(s, "'\\") && isPrintableASCII(s) {
		return "'" + s + "'"
	}
	return strconv.Quote(s)
}

func isPrintableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
