package extract

import (
	"fmt"
	"strconv"
	"strings"

	avpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// Registration is one kernel registration found in source: the KernelDef it
// builds (device_type is the source's device tag, e.g. "GPU" for
// .Device(DEVICE_GPU)), where it was found, and what could not be resolved.
type Registration struct {
	Kernel *kdpb.KernelDef
	File   string
	// Unresolved names the attrs whose type constraint could not be
	// resolved to dtypes; those constraints are left out of Kernel.
	Unresolved []string
	// XLA registrations only: the device allowlist (.Device(...)), the
	// Allow*Type flags and the compile-time-constant inputs.
	XLADevices            []string
	XLAAllowResource      bool
	XLAAllowVariant       bool
	XLAAllowString        bool
	XLACompileTimeConsts  []string
	xlaTypeConstraintsSet map[string]bool
}

// Skip is a registration the parser saw but could not turn into a kernel.
type Skip struct {
	File   string
	Text   string
	Reason string
}

// TypeLists maps a named dtype list constant (XLA's kFloatTypes, a kernel
// file's local std::array<DataType, N>) to its dtypes.
type TypeLists map[string][]tpb.DataType

// Symbols are the named constants a builder chain may use instead of
// literals: dtype lists and string constants (kArgOp = "_Arg").
type Symbols struct {
	Types   TypeLists
	Strings map[string]string
}

func (s *Symbols) str(arg string) (string, bool) {
	if v, ok := stringLiteral(arg); ok {
		return v, true
	}
	if s == nil {
		return "", false
	}
	id := lastComponent(arg)
	if !isIdentString(id) {
		return "", false
	}
	v, ok := s.Strings[id]
	return v, ok
}

func (s *Symbols) types() TypeLists {
	if s == nil {
		return nil
	}
	return s.Types
}

// ParseRegistrations finds every call of the given marker macro (e.g.
// "REGISTER_KERNEL_BUILDER" or "REGISTER_XLA_OP") in preprocessed C++ text
// and parses its first argument, the builder chain
// Name("Op").Device(D).TypeConstraint<T>("a").HostMemory("x")....
func ParseRegistrations(text, file, marker string, syms *Symbols) ([]Registration, []Skip) {
	var regs []Registration
	var skips []Skip
	for i := 0; ; {
		j := strings.Index(text[i:], marker)
		if j < 0 {
			break
		}
		start := i + j
		i = start + len(marker)
		if start > 0 && isIdent(text[start-1]) || i < len(text) && isIdent(text[i]) {
			continue // part of a longer identifier
		}
		k := skipSpace(text, i)
		if k >= len(text) || text[k] != '(' {
			continue
		}
		end := matchClose(text, k)
		if end < 0 {
			skips = append(skips, Skip{File: file, Text: clip(text[start:]), Reason: "unbalanced parentheses"})
			break
		}
		args := splitTopLevel(text[k+1 : end])
		i = end + 1
		if len(args) == 0 {
			continue
		}
		reg, err := parseBuilder(args[0], syms)
		if err != nil {
			skips = append(skips, Skip{File: file, Text: clip(args[0]), Reason: err.Error()})
			continue
		}
		reg.File = file
		regs = append(regs, reg)
	}
	return regs, skips
}

// parseBuilder parses one builder chain.
func parseBuilder(expr string, syms *Symbols) (Registration, error) {
	calls, err := splitCalls(expr)
	if err != nil {
		return Registration{}, err
	}
	k := &kdpb.KernelDef{}
	reg := Registration{Kernel: k, xlaTypeConstraintsSet: map[string]bool{}}
	for idx, c := range calls {
		name := c.name
		if idx == 0 {
			if n := lastComponent(name); n != "Name" && n != "KernelDefBuilder" {
				return reg, fmt.Errorf("builder does not start with Name(...): %s", name)
			}
			s, ok := syms.str(c.args)
			if !ok {
				return reg, fmt.Errorf("op name is not a string constant: %s", strings.TrimSpace(c.args))
			}
			if s == "" {
				return reg, fmt.Errorf("empty op name")
			}
			k.Op = s
			continue
		}
		args := splitTopLevel(c.args)
		switch name {
		case "Device":
			devs := parseDevices(c.args)
			if len(devs) == 0 {
				return reg, fmt.Errorf("op %s: device is not a constant: %s", k.Op, c.args)
			}
			k.DeviceType = devs[0]
			reg.XLADevices = devs
		case "TypeConstraint":
			var attr string
			var types []tpb.DataType
			var ok bool
			switch {
			case c.tmpl != "" && len(args) == 1:
				attr, _ = stringLiteral(args[0])
				var t tpb.DataType
				t, ok = CppType(c.tmpl)
				types = []tpb.DataType{t}
			case len(args) == 2:
				attr, _ = stringLiteral(args[0])
				types, ok = parseTypeExpr(args[1], syms.types())
			default:
				return reg, fmt.Errorf("op %s: unrecognised TypeConstraint(%s)", k.Op, c.args)
			}
			if attr == "" {
				return reg, fmt.Errorf("op %s: TypeConstraint attr is not a string literal", k.Op)
			}
			reg.xlaTypeConstraintsSet[attr] = true
			if !ok {
				reg.Unresolved = append(reg.Unresolved, attr)
				continue
			}
			addConstraint(k, attr, &avpb.AttrValue_ListValue{Type: types})
		case "AttrConstraint":
			if len(args) != 2 {
				return reg, fmt.Errorf("op %s: unrecognised AttrConstraint(%s)", k.Op, c.args)
			}
			attr, _ := stringLiteral(args[0])
			l, ok := parseAttrValues(args[1])
			if attr == "" || !ok {
				return reg, fmt.Errorf("op %s: AttrConstraint(%s) is not constant", k.Op, c.args)
			}
			addConstraint(k, attr, l)
		case "HostMemory":
			s, ok := stringLiteral(c.args)
			if !ok {
				return reg, fmt.Errorf("op %s: HostMemory arg is not a string literal", k.Op)
			}
			k.HostMemoryArg = append(k.HostMemoryArg, s)
		case "Label":
			if lastComponent(c.args) == "kJitKernelLabel" {
				// SetupOrDisableJit (tensorflow/core/framework/op_kernel.cc)
				// strips this label at start-up, so JIT kernels are found
				// as ordinary unlabeled kernels.
				continue
			}
			s, ok := syms.str(c.args)
			if !ok {
				return reg, fmt.Errorf("op %s: label is not a string constant: %s", k.Op, c.args)
			}
			k.Label = s
		case "Priority":
			n, err := strconv.ParseInt(strings.TrimSpace(c.args), 0, 32)
			if err != nil {
				return reg, fmt.Errorf("op %s: priority is not an integer: %s", k.Op, c.args)
			}
			k.Priority = int32(n)
		case "CompileTimeConstantInput":
			if s, ok := stringLiteral(c.args); ok {
				reg.XLACompileTimeConsts = append(reg.XLACompileTimeConsts, s)
			}
		case "AllowResourceTypes":
			reg.XLAAllowResource = true
		case "AllowVariantTypes":
			reg.XLAAllowVariant = true
		case "AllowStringType":
			reg.XLAAllowString = true
		case "IsMetadataOp", "CompilationOnly", "Build":
			// No effect on which nodes match.
		default:
			return reg, fmt.Errorf("op %s: unknown builder method %s", k.Op, name)
		}
	}
	return reg, nil
}

func addConstraint(k *kdpb.KernelDef, attr string, l *avpb.AttrValue_ListValue) {
	k.Constraint = append(k.Constraint, &kdpb.KernelDef_AttrConstraint{
		Name:          attr,
		AllowedValues: &avpb.AttrValue{Value: &avpb.AttrValue_List{List: l}},
	})
}

type call struct {
	name, tmpl, args string
}

// splitCalls splits `A(x).B<t>(y).C()` into its calls.
func splitCalls(expr string) ([]call, error) {
	var out []call
	s := strings.TrimSpace(expr)
	i := 0
	for {
		i = skipSpace(s, i)
		if len(out) > 0 {
			if i >= len(s) {
				return out, nil
			}
			if s[i] != '.' {
				return nil, fmt.Errorf("unexpected %q in builder", clip(s[i:]))
			}
			i = skipSpace(s, i+1)
		}
		j := i
		for j < len(s) && (isIdent(s[j]) || s[j] == ':') {
			j++
		}
		if j == i {
			return nil, fmt.Errorf("expected a method name at %q", clip(s[i:]))
		}
		c := call{name: s[i:j]}
		j = skipSpace(s, j)
		if j < len(s) && s[j] == '<' {
			e := matchAngle(s, j)
			if e < 0 {
				return nil, fmt.Errorf("unbalanced <> in %q", clip(s[i:]))
			}
			c.tmpl = strings.TrimSpace(s[j+1 : e])
			j = skipSpace(s, e+1)
		}
		if j >= len(s) || s[j] != '(' {
			return nil, fmt.Errorf("expected ( after %s", c.name)
		}
		e := matchClose(s, j)
		if e < 0 {
			return nil, fmt.Errorf("unbalanced () after %s", c.name)
		}
		c.args = s[j+1 : e]
		out = append(out, c)
		i = e + 1
	}
}

// parseDevices reads a device tag or a {list} of them: DEVICE_GPU -> "GPU",
// "MUSA" -> "MUSA", ::tensorflow::DEVICE_CPU -> "CPU".
func parseDevices(arg string) []string {
	arg = strings.TrimSpace(arg)
	if i := strings.IndexByte(arg, '{'); i >= 0 && strings.HasSuffix(arg, "}") {
		// {A, B} or absl::Span<const absl::string_view>{A, B}
		arg = arg[i+1 : len(arg)-1]
	}
	var out []string
	for _, a := range splitTopLevel(arg) {
		a = strings.TrimSpace(a)
		if s, ok := stringLiteral(a); ok {
			out = append(out, s)
			continue
		}
		id := lastComponent(a)
		if id == "" || !isIdentString(id) {
			return nil
		}
		out = append(out, strings.TrimPrefix(id, "DEVICE_"))
	}
	return out
}

// parseTypeExpr resolves the dtype argument of TypeConstraint("a", x):
// DT_FLOAT, {DT_FLOAT, DT_HALF}, DataTypeToEnum<float>::v(), a named list.
func parseTypeExpr(arg string, lists TypeLists) ([]tpb.DataType, bool) {
	arg = strings.TrimSpace(arg)
	if strings.HasPrefix(arg, "{") && strings.HasSuffix(arg, "}") {
		var out []tpb.DataType
		for _, e := range splitTopLevel(arg[1 : len(arg)-1]) {
			if strings.TrimSpace(e) == "" {
				continue
			}
			ts, ok := parseTypeExpr(e, lists)
			if !ok {
				return nil, false
			}
			out = append(out, ts...)
		}
		return out, len(out) > 0
	}
	if t, ok := dtEnum(arg); ok {
		return []tpb.DataType{t}, true
	}
	for _, p := range []string{"DataTypeToEnum<", "::tensorflow::DataTypeToEnum<", "tensorflow::DataTypeToEnum<"} {
		if strings.HasPrefix(arg, p) {
			e := matchAngle(arg, len(p)-1)
			if e < 0 {
				return nil, false
			}
			rest := strings.ReplaceAll(arg[e+1:], " ", "")
			if rest == "::v()" || rest == "::value" || rest == "()" || rest == "::v" {
				t, ok := CppType(arg[len(p):e])
				return []tpb.DataType{t}, ok
			}
			return nil, false
		}
	}
	name := lastComponent(arg)
	if l, ok := lists[name]; ok && isIdentString(strings.TrimSuffix(name, "()")) {
		return l, true
	}
	return nil, false
}

// parseAttrValues reads the value of AttrConstraint: an int, string or bool
// literal or a {list} of them.
func parseAttrValues(arg string) (*avpb.AttrValue_ListValue, bool) {
	arg = strings.TrimSpace(arg)
	arg = strings.TrimSuffix(strings.TrimPrefix(arg, "{"), "}")
	l := &avpb.AttrValue_ListValue{}
	for _, e := range splitTopLevel(arg) {
		e = strings.TrimSpace(e)
		if s, ok := stringLiteral(e); ok {
			l.S = append(l.S, []byte(s))
		} else if e == "true" || e == "false" {
			l.B = append(l.B, e == "true")
		} else if n, err := strconv.ParseInt(strings.TrimRight(e, "lLuU"), 0, 64); err == nil {
			l.I = append(l.I, n)
		} else {
			return nil, false
		}
	}
	kinds := 0
	for _, n := range []int{len(l.S), len(l.B), len(l.I)} {
		if n > 0 {
			kinds++
		}
	}
	return l, kinds == 1
}

// stringLiteral reads one or more adjacent C string literals ("a" "b").
func stringLiteral(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if s == "" || s[0] != '"' {
		return "", false
	}
	var sb strings.Builder
	for len(s) > 0 {
		if s[0] != '"' {
			return "", false
		}
		i := 1
		for i < len(s) && s[i] != '"' {
			if s[i] == '\\' {
				i++
			}
			i++
		}
		if i >= len(s) {
			return "", false
		}
		v, err := strconv.Unquote(s[:i+1])
		if err != nil {
			return "", false
		}
		sb.WriteString(v)
		s = strings.TrimSpace(s[i+1:])
	}
	return sb.String(), true
}

// splitTopLevel splits s at commas outside (), {}, [] and string literals.
func splitTopLevel(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"', '\'':
			i = skipQuoted(s, i)
		case '(', '{', '[':
			depth++
		case ')', '}', ']':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	if strings.TrimSpace(s[start:]) != "" || len(out) > 0 {
		out = append(out, s[start:])
	}
	return out
}

// matchClose returns the index of the bracket closing the one at s[open].
func matchClose(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '"', '\'':
			i = skipQuoted(s, i)
		case '(', '{', '[':
			depth++
		case ')', '}', ']':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// matchAngle returns the index of the '>' closing the '<' at s[open],
// counting nested <> and skipping parentheses.
func matchAngle(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '(':
			if e := matchClose(s, i); e >= 0 {
				i = e
			}
		case '<':
			depth++
		case '>':
			if i+1 < len(s) && s[i+1] == '=' {
				i++ // a >= comparison inside an enable_if
				continue
			}
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

func skipQuoted(s string, i int) int {
	q := s[i]
	for i++; i < len(s) && s[i] != q; i++ {
		if s[i] == '\\' {
			i++
		}
	}
	return i
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isIdentString(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isIdent(s[i]) {
			return false
		}
	}
	return s != ""
}

// lastComponent strips namespace qualifiers: ::tensorflow::DEVICE_GPU -> DEVICE_GPU.
func lastComponent(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndex(s, "::"); i >= 0 {
		return s[i+2:]
	}
	return s
}

func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 120 {
		return s[:120] + "..."
	}
	return s
}
