package coverage

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
	"google.golang.org/protobuf/encoding/prototext"

	"github.com/tfscan/tfscan/dtype"
	"github.com/tfscan/tfscan/graph"
)

// DeviceDefault is the device type of TensorFlow's generic fallback kernels
// (tensorflow/core/framework/types.cc: DEVICE_DEFAULT).
const DeviceDefault = "DEFAULT"

// Match is the outcome of looking a node up in one target's registry.
type Match struct {
	Reason Reason
	// Kernel is the KernelDef TensorFlow would pick; nil when none matches.
	Kernel *kdpb.KernelDef
	// HostMemory are the chosen kernel's host_memory_arg names.
	HostMemory []string
	// Supported describes, for no_kernel_for_dtype, the type constraints that
	// the registered kernels do accept, e.g. "T in {float16, float32}".
	Supported []string
	// Hint names, for unknown_op, the library the custom op probably needs.
	Hint string
	// Unverified is set on a covered match whose op is among the pack's
	// UnresolvedOps: some registration's dtype constraint could not be read,
	// so the dtypes are not proven.
	Unverified bool
	// Lowered, for covered_lower_precision, is the type the stack's
	// compiler runs the node in ("float16", "bfloat16"); LoweredInputs is
	// set when only the inputs are lowered and the output stays float32.
	Lowered       string
	LoweredInputs bool
	// StackError, for precision_mode_error, is why the stack's compiler
	// rejects the node.
	StackError string
}

// Matcher answers kernel lookups for one device type. The placement
// simulator wraps it to ask "what if this kernel existed".
type Matcher interface {
	Match(n *graph.Node) Match
	DeviceType() string
}

// Index is a Pack prepared for lookups: kernels grouped by op for the
// pack's device type, and the DEFAULT kernels that back them up.
type Index struct {
	pack *Pack
	// own and dflt are the kernels of a pack read whole grouped by op
	// (groupByOp), dflt with the defaults pack's DEFAULT kernels where the
	// pack has none of its own; nil for a built-in pack read lazily
	// (BuiltinPackLazy), whose kernels it looks up op by op, and those of
	// lazyDefaults, a defaults pack read lazily, where such a pack borrows
	// theirs.
	own, dflt    map[string][]*kdpb.KernelDef
	lazyDefaults *Pack
	// ops holds each op's kernels (opKernels), made the first time they
	// are asked for.
	ops sync.Map // string → *opKernels
	// noDefaults: symbolic devices (XLA JIT types) get no DEFAULT
	// fallback (op_kernel.cc:1419-1452, xla_op_registry.cc:614-621). A
	// graph-offload stack (Ascend) keeps TensorFlow's own DEFAULT ops —
	// Const, Identity, NoOp, _Arg — with TensorFlow around its compiled
	// subgraphs, so they count as covered_default there rather than as
	// missing accelerator kernels.
	noDefaults bool
	unresolved map[string]bool
	// stack, when set, applies the pack's precision mode (SetStack).
	stack *StackConfig
	// newer are ops whose OpDef postdates the stack's TensorFlow.
	newer  map[string]bool
	memoMu sync.Mutex
	memo   map[string]Match
}

// opKernels are an op's kernels for the pack's device type and the DEFAULT
// kernels that back them up, in pack order, and the attrs some of them
// constrain, sorted: the only attrs a match depends on, so the memo keys
// on them.
type opKernels struct {
	own, dflt   []*kdpb.KernelDef
	constrained []string
}

// NewIndex indexes p for matching. DEFAULT kernels come from p itself when it
// carries any (a live dump does), otherwise from defaults (the built-in
// `default` pack); defaults may be nil.
func NewIndex(p *Pack, defaults *Pack) *Index {
	ix := &Index{
		pack:       p,
		noDefaults: p.RunsAs() == MechanismXLACluster,
		newer:      map[string]bool{},
		unresolved: map[string]bool{},
		memo:       map[string]Match{},
	}
	for _, op := range p.NewerThanStack {
		ix.newer[op] = true
	}
	for _, op := range p.UnresolvedOps {
		ix.unresolved[op] = true
	}
	var ownDefaults bool
	if p.lazy != nil {
		ownDefaults = p.DeviceType != DeviceDefault && p.lazy.hasDevice(DeviceDefault)
	} else {
		ix.own, ix.dflt = map[string][]*kdpb.KernelDef{}, map[string][]*kdpb.KernelDef{}
		ownDefaults = groupByOp(p.Kernels, p.DeviceType, ix.own, ix.dflt)
	}
	switch {
	case ownDefaults || defaults == nil || p.DeviceType == DeviceDefault:
	case p.lazy != nil && defaults.lazy != nil:
		ix.lazyDefaults = defaults
	default:
		if ix.dflt == nil {
			ix.dflt = map[string][]*kdpb.KernelDef{}
		}
		groupByOp(defaults.complete().Kernels, "", nil, ix.dflt)
	}
	return ix
}

// kernelsOf are op's kernels, made the first time they are asked for.
func (ix *Index) kernelsOf(op string) *opKernels {
	if e, ok := ix.ops.Load(op); ok {
		return e.(*opKernels)
	}
	e := &opKernels{own: ix.own[op], dflt: ix.dflt[op]}
	p := ix.pack
	if p.lazy != nil {
		// A pack's own DEFAULT kernels, where it has them, are the ones;
		// else the defaults pack's, which dflt holds.
		own, dflt := kernelsFor(p.lazy.kernels(op), p.DeviceType)
		e.own = own
		if len(dflt) > 0 {
			e.dflt = dflt
		}
	}
	if d := ix.lazyDefaults; d != nil {
		_, e.dflt = kernelsFor(d.lazy.kernels(op), "")
	}
	e.constrained = constrainedAttrs(e.own, e.dflt)
	got, _ := ix.ops.LoadOrStore(op, e)
	return got.(*opKernels)
}

// kernelsFor splits kernels of one op into those for device type dev
// (none for "") and the other DEFAULT ones, in pack order.
func kernelsFor(ks []*kdpb.KernelDef, dev string) (own, dflt []*kdpb.KernelDef) {
	for _, k := range ks {
		switch dt := k.GetDeviceType(); {
		case dev != "" && dt == dev:
			own = append(own, k)
		case dt == DeviceDefault:
			dflt = append(dflt, k)
		}
	}
	return own, dflt
}

// groupByOp adds to own the kernels of ks for device type dev (none for
// ""), and to dflt its other DEFAULT kernels, by op, in pack order, and
// tells whether it added any DEFAULT kernel. A pack lists the kernels of
// an op and device type together (WritePack's order, and every dump's):
// each such run is one slice of ks, made without a copy, whose capacity
// ends with it, so that an op found again later is appended to a copy.
func groupByOp(ks []*kdpb.KernelDef, dev string, own, dflt map[string][]*kdpb.KernelDef) (anyDefault bool) {
	for i := 0; i < len(ks); {
		op, dt := ks[i].GetOp(), ks[i].GetDeviceType()
		j := i + 1
		for j < len(ks) && ks[j].GetOp() == op && ks[j].GetDeviceType() == dt {
			j++
		}
		var m map[string][]*kdpb.KernelDef
		switch {
		case dev != "" && dt == dev:
			m = own
		case dt == DeviceDefault:
			m, anyDefault = dflt, true
		}
		if m != nil {
			run := ks[i:j:j]
			if had, ok := m[op]; ok {
				run = append(had[:len(had):len(had)], run...)
			}
			m[op] = run
		}
		i = j
	}
	return anyDefault
}

// constrainedAttrs lists the attrs some kernel of own or dflt constrains,
// sorted; nil for none.
func constrainedAttrs(own, dflt []*kdpb.KernelDef) []string {
	var names []string
	for _, l := range [2][]*kdpb.KernelDef{own, dflt} {
		for _, k := range l {
			for _, c := range k.GetConstraint() {
				if !slices.Contains(names, c.GetName()) {
					names = append(names, c.GetName())
				}
			}
		}
	}
	slices.Sort(names)
	return names
}

// Pack returns the indexed pack with its kernels: for a built-in pack read
// lazily (BuiltinPackLazy), the one BuiltinPack decodes whole.
func (ix *Index) Pack() *Pack { return ix.pack.complete() }

// Info returns the indexed pack for what it says besides its kernels: its
// provenance, stack and settings. Its Kernels are nil where the pack is
// read lazily (BuiltinPackLazy): look kernels up through the Index, or
// take Pack.
func (ix *Index) Info() *Pack { return ix.pack }

// DeviceType returns the device type the index answers for.
func (ix *Index) DeviceType() string { return ix.pack.DeviceType }

// HasOp reports whether the device registers any kernel for op.
func (ix *Index) HasOp(op string) bool { return len(ix.kernelsOf(op).own) > 0 }

// Registered lists the kernels op has for this device type, then the DEFAULT
// ones it falls back to (none on a symbolic device), in pack order: what a
// TensorFlow build for this device lists in its "Registered kernels:"
// error sections (KernelsRegisteredForOp, op_kernel.cc:1632-1649), save the
// CPU kernels, which the CPU's Index lists.
func (ix *Index) Registered(op string) []*kdpb.KernelDef {
	e := ix.kernelsOf(op)
	out := append([]*kdpb.KernelDef(nil), e.own...)
	if !ix.noDefaults {
		out = append(out, e.dflt...)
	}
	return out
}

// callOps are resolved through the function library rather than by a kernel
// of their own (memory_types.cc:65-69 treats them as function-call ops).
var callOps = map[string]bool{"PartitionedCall": true, "StatefulPartitionedCall": true}

// Match looks n up the way FindKernelRegistration does
// (tensorflow/core/framework/op_kernel.cc:1379-1456): the `_kernel` label
// selects the registrations, every constraint must hold against the attrs
// completed with OpDef defaults, the highest priority wins, and when nothing
// on the device matches, the DEFAULT kernels are tried.
func (ix *Index) Match(n *graph.Node) Match {
	if m, ok := notKernel(n); ok {
		return m
	}
	return ix.MatchKeyed(n, MatchKey(n, ix.kernelsOf(n.Op).constrained))
}

// notKernel answers for nodes that no kernel lookup decides: custom ops in
// no op registry, and calls resolved through the function library.
func notKernel(n *graph.Node) (Match, bool) {
	switch {
	case n.OpDef == nil && len(n.Calls()) > 0, callOps[n.Op]:
		return Match{Reason: ReasonFunctionCall}, true
	case n.OpDef == nil:
		return Match{Reason: ReasonUnknownOp, Hint: CustomOpHint(n.Op)}, true
	}
	return Match{}, false
}

// ConstrainedAttrs are the attrs some kernel of op constrains, sorted: the
// only attrs a match of op depends on.
func (ix *Index) ConstrainedAttrs(op string) []string { return ix.kernelsOf(op).constrained }

// MatchKeyed is Match for a node whose MatchKey over (a superset of)
// ConstrainedAttrs(n.Op) the caller computed: nodes of one op with the same
// constrained attrs match alike, so a large model costs a few real lookups
// and one memo hit per node. The key lets a caller scanning several targets
// build it once per node.
func (ix *Index) MatchKeyed(n *graph.Node, key string) Match {
	if m, ok := notKernel(n); ok {
		return m
	}
	lowers := ix.lowers() && Float32Node(n)
	if lowers {
		// The precision mode treats float32 nodes apart, whatever the
		// kernels constrain.
		key += "\x00f32"
	}
	ix.memoMu.Lock()
	m, ok := ix.memo[key]
	ix.memoMu.Unlock()
	if !ok {
		m = ix.matchKernels(n)
		if lowers {
			m = ix.applyMode(n, m)
		}
		ix.memoMu.Lock()
		ix.memo[key] = m
		ix.memoMu.Unlock()
	}
	return m
}

// MatchKey identifies what a match of n depends on: its op, its `_kernel`
// label and the values of the named attrs.
func MatchKey(n *graph.Node, attrs []string) string {
	return string(AppendMatchKey(nil, n, attrs))
}

// AppendMatchKey appends MatchKey(n, attrs) to dst: a caller that keeps
// each distinct key once looks it up without making a string per node.
func AppendMatchKey(dst []byte, n *graph.Node, attrs []string) []byte {
	dst = append(dst, n.Op...)
	dst = append(dst, 0)
	dst = append(dst, n.Attrs["_kernel"].GetS()...)
	for _, name := range attrs {
		dst = append(dst, 0)
		dst = append(dst, name...)
		dst = append(dst, '=')
		a, ok := n.Attrs[name]
		if !ok {
			dst = append(dst, '-')
			continue
		}
		dst = appendAttrKey(dst, a)
	}
	return dst
}

// appendAttrKey appends the kinds of attr value a kernel constraint can
// test (type, list, s, i, b) compactly; anything else in its text form.
func appendAttrKey(dst []byte, a *attrpb.AttrValue) []byte {
	switch v := a.GetValue().(type) {
	case *attrpb.AttrValue_Type:
		dst = strconv.AppendInt(append(dst, 't'), int64(v.Type), 10)
	case *attrpb.AttrValue_S:
		dst = append(append(dst, 's'), v.S...)
	case *attrpb.AttrValue_I:
		dst = strconv.AppendInt(append(dst, 'i'), v.I, 10)
	case *attrpb.AttrValue_B:
		dst = strconv.AppendBool(append(dst, 'b'), v.B)
	case *attrpb.AttrValue_List:
		dst = append(dst, 'l')
		for _, t := range v.List.GetType() {
			dst = strconv.AppendInt(append(dst, ','), int64(t), 10)
		}
		if len(v.List.GetS())+len(v.List.GetI())+len(v.List.GetB())+len(v.List.GetF()) > 0 {
			dst = append(dst, prototext.MarshalOptions{}.Format(v.List)...)
		}
	default:
		dst = append(dst, prototext.MarshalOptions{}.Format(a)...)
	}
	return dst
}

// matchKernels is the kernel lookup without the memo and the stack.
func (ix *Index) matchKernels(n *graph.Node) Match {
	if ix.newer[n.Op] {
		return Match{Reason: ReasonOpNewerThanStack}
	}
	label := string(n.Attrs["_kernel"].GetS())
	e := ix.kernelsOf(n.Op)
	if k := bestMatch(e.own, n.Attrs, label, true); k != nil {
		return Match{Reason: ReasonCovered, Kernel: k, HostMemory: k.GetHostMemoryArg(), Unverified: ix.unresolved[n.Op]}
	}
	if !ix.noDefaults {
		if k := bestMatch(e.dflt, n.Attrs, label, false); k != nil {
			return Match{Reason: ReasonCoveredDefault, Kernel: k, HostMemory: k.GetHostMemoryArg()}
		}
	}
	own := e.own
	if len(own) == 0 {
		return Match{Reason: ReasonNoKernel}
	}
	labelled := 0
	for _, k := range own {
		if k.GetLabel() == label {
			labelled++
		}
	}
	if labelled == 0 {
		return Match{Reason: ReasonLabelMismatch}
	}
	return Match{Reason: ReasonNoKernelForDType, Supported: supported(own, label)}
}

// bestMatch returns the matching kernel of highest priority. TensorFlow
// breaks priority ties among device kernels with an error and ignores
// priority among DEFAULT kernels; tfscan keeps the first in registry order
// in both cases, since the node would run either way.
func bestMatch(ks []*kdpb.KernelDef, attrs map[string]*attrpb.AttrValue, label string, usePriority bool) *kdpb.KernelDef {
	var best *kdpb.KernelDef
	for _, k := range ks {
		if k.GetLabel() != label || !attrsMatch(k, attrs) {
			continue
		}
		if best == nil || (usePriority && k.GetPriority() > best.GetPriority()) {
			best = k
		}
	}
	return best
}

// attrsMatch follows KernelAttrsMatch (tensorflow/core/framework/kernel_def_util.cc:36-143).
func attrsMatch(k *kdpb.KernelDef, attrs map[string]*attrpb.AttrValue) bool {
	for _, c := range k.GetConstraint() {
		a, ok := attrs[c.GetName()]
		if !ok {
			// TF reports an error; with defaults added this means the
			// node does not fit the kernel.
			return false
		}
		allowed := c.GetAllowedValues().GetList()
		switch {
		case len(allowed.GetType()) > 0:
			if !typeAllowed(a, allowed.GetType()) {
				return false
			}
		case len(allowed.GetS()) > 0:
			if !containsBytes(allowed.GetS(), a.GetS()) {
				return false
			}
		case len(allowed.GetI()) > 0:
			if !containsInt(allowed.GetI(), a.GetI()) {
				return false
			}
		case len(allowed.GetB()) > 0:
			if !containsBool(allowed.GetB(), a.GetB()) {
				return false
			}
		default:
			// A constraint with an empty list allows nothing
			// (Unimplemented in TF).
			return false
		}
	}
	return true
}

func typeAllowed(a *attrpb.AttrValue, allowed []tpb.DataType) bool {
	if l, ok := a.GetValue().(*attrpb.AttrValue_List); ok {
		// list(type): every element must be allowed; empty matches.
		for _, t := range l.List.GetType() {
			if !containsType(allowed, t) {
				return false
			}
		}
		return true
	}
	if _, ok := a.GetValue().(*attrpb.AttrValue_Type); !ok {
		return false
	}
	return containsType(allowed, a.GetType())
}

func containsType(ts []tpb.DataType, t tpb.DataType) bool {
	for _, x := range ts {
		if x == t {
			return true
		}
	}
	return false
}

func containsBytes(ss [][]byte, s []byte) bool {
	for _, x := range ss {
		if string(x) == string(s) {
			return true
		}
	}
	return false
}

func containsInt(is []int64, i int64) bool {
	for _, x := range is {
		if x == i {
			return true
		}
	}
	return false
}

func containsBool(bs []bool, b bool) bool {
	for _, x := range bs {
		if x == b {
			return true
		}
	}
	return false
}

// supported summarises the type constraints of the kernels registered under
// label, per attr: "T in {float16, float32}".
func supported(ks []*kdpb.KernelDef, label string) []string {
	byAttr := map[string]map[string]bool{}
	for _, k := range ks {
		if k.GetLabel() != label {
			continue
		}
		for _, c := range k.GetConstraint() {
			for _, t := range c.GetAllowedValues().GetList().GetType() {
				if byAttr[c.GetName()] == nil {
					byAttr[c.GetName()] = map[string]bool{}
				}
				byAttr[c.GetName()][dtype.Name(t)] = true
			}
		}
	}
	var out []string
	for attr, set := range byAttr {
		names := make([]string, 0, len(set))
		for n := range set {
			names = append(names, n)
		}
		sort.Strings(names)
		out = append(out, fmt.Sprintf("%s in {%s}", attr, strings.Join(names, ", ")))
	}
	sort.Strings(out)
	return out
}
