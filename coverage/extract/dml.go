package extract

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	avpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/internal/lazyre"
)

// DirectML (microsoft/tensorflow-directml-plugin) registers kernels with C++
// templates instead of macros (tfdml/core/dml_kernel_definition.h):
//
//	KernelDefinition<ops::AssignVariableOp, Impl>
//	    ::WithTypeConstraint<ops::AssignVariableOp::Attribute::dtype, TF_FLOAT>
//	    ::WithHostMemoryArguments<ops::AssignVariableOp::Argument::resource>
//	    ::Register();
//	RegisterWithTypes<K, ops::BiasAdd::Attribute::T, TF_FLOAT, TF_HALF>();
//
// reached from one RegisterKernels_*() function per kernel file, often
// through alias templates and variadic helper templates
// (RegisterGather<TF_FLOAT, TF_HALF>()). dmlInterp evaluates exactly this
// subset of C++ over the preprocessed text: it runs the RegisterKernels_*
// bodies statement by statement, binds template arguments by textual
// substitution, and turns every ::Register() into a KernelDef. The device
// tag is "GPU" (tfdml/core/dml_common.h: DEVICE_DML = "GPU").

// ExtractDML preprocesses DirectML's kernel files and evaluates their
// template registrations; opDefs is the generated header mapping op structs
// to op names (tfdml/runtime_adapter/op_defs_core.h).
func ExtractDML(ctx context.Context, o Options, opDefs string) (*Result, error) {
	data, err := os.ReadFile(filepath.Join(o.Source, opDefs))
	if err != nil {
		return nil, fmt.Errorf("op defs: %w", err)
	}
	structs := map[string]string{}
	for _, m := range opStructRE.FindAllStringSubmatch(string(data), -1) {
		structs[m[1]] = m[2]
	}
	if len(structs) == 0 {
		return nil, fmt.Errorf("%s: no op structs found", opDefs)
	}
	o.Parse = func(text, file string, _ *Symbols) ([]Registration, []Skip) {
		return ParseDML(text, file, structs)
	}
	return Extract(ctx, o)
}

var opStructRE = lazyre.New(`struct\s+(\w+)\s*\{\s*static\s+constexpr\s+const\s+char\s*\*\s*name\s*=\s*"([^"]+)"`)

// ParseDML evaluates the registrations in one preprocessed DirectML kernel
// file. structs maps op struct names (ops::X) to TensorFlow op names.
func ParseDML(text, file string, structs map[string]string) ([]Registration, []Skip) {
	local := map[string]string{}
	for k, v := range structs {
		local[k] = v
	}
	for _, m := range opStructRE.FindAllStringSubmatch(text, -1) {
		local[m[1]] = m[2] // op structs a kernel file defines itself
	}
	in := &dmlInterp{file: file, structs: local, funcs: map[string][]dmlTemplate{}, aliases: map[string]dmlTemplate{}, globals: map[string]string{}}
	in.scan(text)
	var entries []string
	for name := range in.funcs {
		if strings.HasPrefix(name, "RegisterKernels_") {
			entries = append(entries, name)
		}
	}
	slices.Sort(entries)
	for _, e := range entries {
		in.call(e, nil, map[string]string{}, 0)
	}
	return in.regs, in.skips
}

type dmlTemplate struct {
	params   []dmlParam // nil for a non-template function
	template bool
	body     string // function body, or alias type expression
}

type dmlParam struct {
	name     string
	variadic bool
	def      string // default argument, "" when none
}

type dmlInterp struct {
	file    string
	structs map[string]string
	funcs   map[string][]dmlTemplate
	aliases map[string]dmlTemplate
	globals map[string]string
	regs    []Registration
	skips   []Skip
}

var (
	funcHeadRE  = lazyre.New(`^(?:static\s+|inline\s+)*void\s+(\w+)\s*\(\s*\)\s*\{`)
	usingHeadRE = lazyre.New(`^using\s+(\w+)\s*=`)
	identRE     = lazyre.New(`[A-Za-z_]\w*`)
)

// scan collects function and alias templates and global aliases.
func (in *dmlInterp) scan(text string) {
	i := 0
	for i < len(text) {
		i = skipSpace(text, i)
		if i >= len(text) {
			break
		}
		rest := text[i:]
		var params []dmlParam
		isTemplate := false
		if strings.HasPrefix(rest, "template") && !isIdentAt(rest, len("template")) {
			j := skipSpace(rest, len("template"))
			if j < len(rest) && rest[j] == '<' {
				e := matchAngle(rest, j)
				if e < 0 {
					return
				}
				params = parseTemplateParams(rest[j+1 : e])
				isTemplate = true
				i += e + 1
				i = skipSpace(text, i)
				rest = text[i:]
			}
		}
		if m := funcHeadRE.FindStringSubmatchIndex(rest); m != nil {
			open := m[1] - 1
			end := matchClose(rest, open)
			if end < 0 {
				return
			}
			name := rest[m[2]:m[3]]
			in.funcs[name] = append(in.funcs[name], dmlTemplate{params: params, template: isTemplate, body: rest[open+1 : end]})
			i += end + 1
			continue
		}
		if m := usingHeadRE.FindStringSubmatchIndex(rest); m != nil {
			end := strings.IndexByte(rest, ';')
			if end < 0 {
				return
			}
			name := rest[m[2]:m[3]]
			expr := strings.TrimSpace(rest[m[1]:end])
			if isTemplate {
				in.aliases[name] = dmlTemplate{params: params, template: true, body: expr}
			} else {
				in.globals[name] = expr
			}
			i += end + 1
			continue
		}
		if isTemplate {
			continue // a class template etc.: its body is skipped below
		}
		// Skip one identifier, token or bracketed group.
		if isIdent(text[i]) {
			for i < len(text) && isIdent(text[i]) {
				i++
			}
			continue
		}
		switch text[i] {
		case '{', '(', '[':
			// Namespaces are transparent: step inside their braces.
			if text[i] == '{' && namespaceBefore(text[:i]) {
				i++
				continue
			}
			e := matchClose(text, i)
			if e < 0 {
				return
			}
			i = e + 1
		default:
			i++
		}
	}
}

var namespaceRE = lazyre.New(`(namespace(\s+[\w:]+)?|extern\s+"C")\s*$`)

func namespaceBefore(s string) bool {
	if len(s) > 200 {
		s = s[len(s)-200:]
	}
	return namespaceRE.MatchString(s)
}

func isIdentAt(s string, i int) bool { return i < len(s) && isIdent(s[i]) }

func parseTemplateParams(s string) []dmlParam {
	var out []dmlParam
	for _, p := range splitTemplateArgs(s) {
		p = strings.TrimSpace(p)
		if p == "" || strings.HasPrefix(p, "std::enable_if") || strings.HasPrefix(p, "typename std::enable_if") {
			continue
		}
		def := ""
		if eq := strings.IndexByte(p, '='); eq >= 0 {
			def = strings.TrimSpace(p[eq+1:])
			p = strings.TrimSpace(p[:eq])
		}
		ids := identRE.FindAllString(p, -1)
		if len(ids) == 0 {
			continue
		}
		out = append(out, dmlParam{name: ids[len(ids)-1], variadic: strings.Contains(p, "..."), def: def})
	}
	return out
}

// splitTemplateArgs splits at commas outside (), {}, [] and <>.
func splitTemplateArgs(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '{', '[', '<':
			depth++
		case ')', '}', ']', '>':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	if strings.TrimSpace(s[start:]) != "" {
		out = append(out, s[start:])
	}
	return out
}

// bind substitutes template arguments for parameters in text.
func bind(params []dmlParam, args []string, text string) (string, bool) {
	sub := map[string]string{}
	for i, p := range params {
		if p.variadic {
			if i > len(args) {
				return "", false
			}
			sub[p.name+"..."] = strings.Join(args[i:], ", ")
			sub[p.name] = strings.Join(args[i:], ", ")
			if i == len(params)-1 {
				break
			}
			return "", false
		}
		if i >= len(args) {
			if p.def == "" {
				return "", false
			}
			sub[p.name] = p.def
			continue
		}
		sub[p.name] = strings.TrimSpace(args[i])
	}
	if len(params) > 0 && !params[len(params)-1].variadic && len(args) > len(params) {
		return "", false
	}
	if len(params) == 0 && len(args) > 0 {
		return "", false
	}
	var sb strings.Builder
	last := 0
	for _, m := range identRE.FindAllStringIndex(text, -1) {
		if m[0] > 0 && (isIdent(text[m[0]-1]) || text[m[0]-1] == '.') || m[0] > 1 && text[m[0]-2:m[0]] == "::" {
			continue // a member (Op::Attribute::T), not the parameter T
		}
		name := text[m[0]:m[1]]
		v, ok := sub[name]
		if !ok {
			continue
		}
		end := m[1]
		if strings.HasPrefix(text[end:], "...") {
			end += 3
		}
		sb.WriteString(text[last:m[0]])
		sb.WriteString(v)
		last = end
	}
	sb.WriteString(text[last:])
	return sb.String(), true
}

// call runs function name with template arguments args.
func (in *dmlInterp) call(name string, args []string, _ map[string]string, depth int) {
	if depth > 64 {
		in.skips = append(in.skips, Skip{File: in.file, Text: name, Reason: "template recursion too deep"})
		return
	}
	for _, f := range in.overloads(name, len(args)) {
		body, ok := bind(f.params, args, f.body)
		if !ok {
			continue
		}
		in.exec(body, depth)
		return
	}
}

// overloads orders a function's templates: exact arity before variadic.
func (in *dmlInterp) overloads(name string, n int) []dmlTemplate {
	var exact, variadic []dmlTemplate
	for _, f := range in.funcs[name] {
		isVar := len(f.params) > 0 && f.params[len(f.params)-1].variadic
		switch {
		case !isVar && len(f.params) == n && (f.template || n == 0):
			exact = append(exact, f)
		case isVar && n >= len(f.params):
			// a variadic pack needs one argument when an enable_if
			// asks for sizeof...(Ts) >= 1; requiring it avoids
			// ambiguity with the single-argument overload.
			variadic = append(variadic, f)
		}
	}
	return append(exact, variadic...)
}

var callRE = lazyre.New(`^(\w+)\s*(<.*>)?\s*\(\s*\)$`)

// exec runs the statements of a function body.
func (in *dmlInterp) exec(body string, depth int) {
	locals := map[string]string{}
	for _, st := range splitStatements(body) {
		st = stripIf(st)
		if st == "" {
			continue
		}
		if m := usingHeadRE.FindStringSubmatchIndex(st); m != nil {
			locals[st[m[2]:m[3]]] = strings.TrimSpace(st[m[1]:])
			continue
		}
		if strings.HasPrefix(st, "constexpr auto ") || strings.HasPrefix(st, "static constexpr auto ") {
			if name, val, ok := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(st, "static "), "constexpr auto "), "="); ok {
				locals[strings.TrimSpace(name)] = strings.TrimSpace(val)
			}
			continue
		}
		norm := normalizeTemplateKeywords(st)
		if strings.HasSuffix(norm, "::Register()") {
			in.register(strings.TrimSuffix(norm, "::Register()"), locals, nil)
			continue
		}
		m := callRE.FindStringSubmatch(norm)
		if m == nil {
			continue
		}
		var args []string
		if m[2] != "" {
			args = splitTemplateArgs(m[2][1 : len(m[2])-1])
			for i := range args {
				args[i] = strings.TrimSpace(args[i])
			}
		}
		if m[1] == "RegisterWithTypes" {
			if len(args) < 3 {
				continue
			}
			for _, t := range args[2:] {
				in.register(args[0], locals, &[2]string{args[1], t})
			}
			continue
		}
		if _, ok := in.funcs[m[1]]; ok {
			in.call(m[1], args, locals, depth+1)
		}
	}
}

func normalizeTemplateKeywords(s string) string {
	s = templateKwRE.ReplaceAllString(s, "")
	s = strings.Join(strings.Fields(s), " ")
	return colonSpaceRE.ReplaceAllString(s, "::")
}

var (
	templateKwRE = lazyre.New(`\b(typename|template)\s+`)
	colonSpaceRE = lazyre.New(`\s*::\s*`)
)

// splitStatements splits a body at ; { } outside parentheses and <>.
func splitStatements(body string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '"', '\'':
			i = skipQuoted(body, i)
		case '(':
			depth++
		case ')':
			depth--
		case ';', '{', '}':
			if depth == 0 {
				out = append(out, strings.TrimSpace(body[start:i]))
				start = i + 1
			}
		}
	}
	out = append(out, strings.TrimSpace(body[start:]))
	return out
}

func stripIf(st string) string {
	for {
		st = strings.TrimSpace(st)
		switch {
		case strings.HasPrefix(st, "else"):
			st = st[len("else"):]
		case strings.HasPrefix(st, "if"):
			j := skipSpace(st, 2)
			if strings.HasPrefix(st[j:], "constexpr") {
				j = skipSpace(st, j+len("constexpr"))
			}
			if j >= len(st) || st[j] != '(' {
				return st
			}
			e := matchClose(st, j)
			if e < 0 {
				return ""
			}
			st = st[e+1:]
		default:
			return st
		}
	}
}

// dmlKernel is a KernelDefinition type under evaluation.
type dmlKernel struct {
	op         string
	hostMem    []string
	types      map[string][]tpb.DataType
	order      []string
	unresolved []string
	priority   int32
}

// register evaluates a KernelDefinition type expression and records the
// kernel; extra adds one WithTypeConstraint<attr, type> (RegisterWithTypes).
func (in *dmlInterp) register(expr string, locals map[string]string, extra *[2]string) {
	k, err := in.evalType(expr, locals, 0)
	if err == nil && extra != nil {
		err = in.typeConstraint(k, extra[0], extra[1], locals)
	}
	if err != nil {
		in.skips = append(in.skips, Skip{File: in.file, Text: clip(expr), Reason: err.Error()})
		return
	}
	kd := &kdpb.KernelDef{Op: k.op, DeviceType: "GPU", HostMemoryArg: k.hostMem, Priority: k.priority}
	for _, a := range k.order {
		kd.Constraint = append(kd.Constraint, &kdpb.KernelDef_AttrConstraint{
			Name:          a,
			AllowedValues: &avpb.AttrValue{Value: &avpb.AttrValue_List{List: &avpb.AttrValue_ListValue{Type: k.types[a]}}},
		})
	}
	in.regs = append(in.regs, Registration{Kernel: kd, File: in.file, Unresolved: k.unresolved})
}

func (in *dmlInterp) lookup(name string, locals map[string]string) (string, bool) {
	if v, ok := locals[name]; ok {
		return v, true
	}
	v, ok := in.globals[name]
	return v, ok
}

// evalType evaluates `Primary(::With...<args>)*`.
func (in *dmlInterp) evalType(expr string, locals map[string]string, depth int) (*dmlKernel, error) {
	if depth > 32 {
		return nil, fmt.Errorf("alias nesting too deep")
	}
	s := normalizeTemplateKeywords(expr)
	// Primary: a qualified name, stopping before a With* member.
	i := 0
	for {
		j := i
		for j < len(s) && isIdent(s[j]) {
			j++
		}
		if j == i {
			return nil, fmt.Errorf("cannot read type %q", clip(s))
		}
		comp := s[i:j]
		if strings.HasPrefix(comp, "With") && i > 0 {
			i -= 2 // back to the "::"
			break
		}
		i = j
		if strings.HasPrefix(s[i:], "::") {
			i += 2
			continue
		}
		break
	}
	name := strings.TrimSpace(s[:i])
	rest := s[i:]
	var targs []string
	if strings.HasPrefix(strings.TrimSpace(rest), "<") {
		rest = strings.TrimSpace(rest)
		e := matchAngle(rest, 0)
		if e < 0 {
			return nil, fmt.Errorf("unbalanced <> in %q", clip(s))
		}
		targs = splitTemplateArgs(rest[1:e])
		rest = rest[e+1:]
	}
	var k *dmlKernel
	switch {
	case lastComponent(name) == "KernelDefinition":
		if len(targs) == 0 {
			return nil, fmt.Errorf("KernelDefinition without arguments")
		}
		op, err := in.resolveOp(targs[0], locals)
		if err != nil {
			return nil, err
		}
		k = &dmlKernel{op: op, types: map[string][]tpb.DataType{}}
	case targs != nil:
		a, ok := in.aliases[name]
		if !ok {
			return nil, fmt.Errorf("unknown template %s", name)
		}
		body, ok := bind(a.params, targs, a.body)
		if !ok {
			return nil, fmt.Errorf("cannot bind %s<%s>", name, strings.Join(targs, ","))
		}
		var err error
		if k, err = in.evalType(body, locals, depth+1); err != nil {
			return nil, err
		}
	default:
		v, ok := in.lookup(name, locals)
		if !ok {
			return nil, fmt.Errorf("unknown kernel type %s", name)
		}
		var err error
		if k, err = in.evalType(v, locals, depth+1); err != nil {
			return nil, err
		}
	}
	k = k.clone()
	for rest = strings.TrimSpace(rest); rest != ""; rest = strings.TrimSpace(rest) {
		if !strings.HasPrefix(rest, "::") {
			return nil, fmt.Errorf("unexpected %q", clip(rest))
		}
		rest = strings.TrimSpace(rest[2:])
		j := 0
		for j < len(rest) && isIdent(rest[j]) {
			j++
		}
		member := rest[:j]
		rest = strings.TrimSpace(rest[j:])
		var margs []string
		if strings.HasPrefix(rest, "<") {
			e := matchAngle(rest, 0)
			if e < 0 {
				return nil, fmt.Errorf("unbalanced <> after %s", member)
			}
			margs = splitTemplateArgs(rest[1:e])
			rest = rest[e+1:]
		}
		switch member {
		case "WithTypeConstraint":
			if len(margs) != 2 {
				return nil, fmt.Errorf("WithTypeConstraint needs 2 arguments")
			}
			if err := in.typeConstraint(k, margs[0], margs[1], locals); err != nil {
				return nil, err
			}
		case "WithHostMemoryArguments":
			for _, a := range margs {
				k.hostMem = append(k.hostMem, lastComponent(a))
			}
		case "WithPriority":
			n, err := strconv.Atoi(strings.TrimSpace(margs[0]))
			if err != nil {
				return nil, fmt.Errorf("priority %q", margs[0])
			}
			k.priority = int32(n)
		default:
			return nil, fmt.Errorf("unknown member %s", member)
		}
	}
	return k, nil
}

func (k *dmlKernel) clone() *dmlKernel {
	c := *k
	c.hostMem = slices.Clone(k.hostMem)
	c.order = slices.Clone(k.order)
	c.unresolved = slices.Clone(k.unresolved)
	c.types = map[string][]tpb.DataType{}
	for a, t := range k.types {
		c.types[a] = slices.Clone(t)
	}
	return &c
}

func (in *dmlInterp) resolveOp(arg string, locals map[string]string) (string, error) {
	arg = strings.TrimSpace(arg)
	for range 8 {
		if v, ok := in.lookup(arg, locals); ok {
			arg = strings.TrimSpace(v)
			continue
		}
		break
	}
	if op, ok := in.structs[lastComponent(arg)]; ok {
		return op, nil
	}
	return "", fmt.Errorf("unknown op struct %s", arg)
}

func (in *dmlInterp) typeConstraint(k *dmlKernel, attrArg, typeArg string, locals map[string]string) error {
	attrArg = strings.TrimSpace(attrArg)
	for range 8 {
		v, ok := in.lookup(attrArg, locals)
		if !ok {
			break
		}
		attrArg = strings.TrimSpace(v)
	}
	if !strings.Contains(attrArg, "Attribute::") {
		return fmt.Errorf("op %s: type constraint attr %q is not an ops::X::Attribute", k.op, attrArg)
	}
	attr := lastComponent(attrArg)
	typeArg = strings.TrimSpace(typeArg)
	t, ok := dmlDType(typeArg)
	if !ok {
		if v, found := in.lookup(typeArg, locals); found {
			t, ok = dmlDType(v)
		}
	}
	if !slices.Contains(k.order, attr) {
		k.order = append(k.order, attr)
	}
	if !ok {
		k.unresolved = append(k.unresolved, attr)
		delete(k.types, attr)
		k.order = slices.DeleteFunc(k.order, func(a string) bool { return a == attr })
		return nil
	}
	k.types[attr] = append(k.types[attr], t)
	return nil
}

// dmlDType reads TF_FLOAT or DataTypeToEnum<float>() / ::value / ::v().
func dmlDType(s string) (tpb.DataType, bool) {
	s = strings.TrimSpace(s)
	if t, ok := dtEnum(s); ok {
		return t, true
	}
	if ts, ok := parseTypeExpr(s, nil); ok && len(ts) == 1 {
		return ts[0], true
	}
	return 0, false
}
