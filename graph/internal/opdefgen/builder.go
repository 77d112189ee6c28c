package opdefgen

import (
	"fmt"
	"strconv"
	"strings"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	opdefpb "github.com/wamuir/graft/tensorflow/core/framework/op_def_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
	"google.golang.org/protobuf/encoding/prototext"
)

// builder mirrors tensorflow::OpDefBuilder
// (tensorflow/core/framework/op_def_builder.cc): it records the spec strings
// of a REGISTER_OP chain and finalizes them into an OpDef the same way,
// attrs first, then inputs, outputs and control outputs. Doc() text is
// dropped, as it is in ops.pbtxt.
type builder struct {
	def              *opdefpb.OpDef
	attrs, ins, outs []string
	controlOuts      []string
	allowAttrTypeAny bool
}

func newBuilder(name string) *builder {
	return &builder{def: &opdefpb.OpDef{Name: name}}
}

func (b *builder) finalize() (*opdefpb.OpDef, error) {
	for _, a := range b.attrs {
		if err := finalizeAttr(a, b.allowAttrTypeAny, b.def); err != nil {
			return nil, fmt.Errorf("%w from Attr(%q) for Op %s", err, a, b.def.Name)
		}
	}
	for _, in := range b.ins {
		if err := finalizeInOut(in, false, b.def); err != nil {
			return nil, fmt.Errorf("%w from Input(%q) for Op %s", err, in, b.def.Name)
		}
	}
	for _, out := range b.outs {
		if err := finalizeInOut(out, true, b.def); err != nil {
			return nil, fmt.Errorf("%w from Output(%q) for Op %s", err, out, b.def.Name)
		}
	}
	for _, c := range b.controlOuts {
		name, rest := scanIdent(c, true)
		if name == "" || rest != "" {
			return nil, fmt.Errorf("trouble parsing 'name:' from ControlOutput(%q) for Op %s", c, b.def.Name)
		}
		b.def.ControlOutput = append(b.def.ControlOutput, name)
	}
	return b.def, nil
}

// scanIdent consumes [A-Za-z][A-Za-z0-9_]* (or, with upper false,
// [a-z][a-z0-9_]*) and the spaces after it.
func scanIdent(s string, upper bool) (ident, rest string) {
	ok := func(c byte, first bool) bool {
		lower := c >= 'a' && c <= 'z'
		up := c >= 'A' && c <= 'Z'
		if first {
			return lower || (upper && up)
		}
		return lower || (upper && up) || (c >= '0' && c <= '9') || c == '_'
	}
	i := 0
	for i < len(s) && ok(s[i], i == 0) {
		i++
	}
	if i == 0 {
		return "", s
	}
	return s[:i], trimLeftSpace(s[i:])
}

func trimLeftSpace(s string) string { return strings.TrimLeft(s, " \t\n\r\f\v") }

// consumeLiteral is Scanner.OneLiteral(lit).AnySpace().
func consumeLiteral(s *string, lit string) bool {
	if !strings.HasPrefix(*s, lit) {
		return false
	}
	*s = trimLeftSpace((*s)[len(lit):])
	return true
}

// consumeNameColon is ConsumeAttrName / ConsumeInOutName.
func consumeNameColon(s *string, upper bool) (string, bool) {
	name, rest := scanIdent(*s, upper)
	if name == "" || !consumeLiteral(&rest, ":") {
		return "", false
	}
	*s = rest
	return name, true
}

// TF type sets from tensorflow/core/framework/types.h (non-mobile build),
// each in DataType enum order as DataTypeSet iterates.
var (
	realNumberTypes = []tpb.DataType{tpb.DataType_DT_FLOAT, tpb.DataType_DT_DOUBLE, tpb.DataType_DT_INT32,
		tpb.DataType_DT_UINT8, tpb.DataType_DT_INT16, tpb.DataType_DT_INT8, tpb.DataType_DT_INT64,
		tpb.DataType_DT_BFLOAT16, tpb.DataType_DT_UINT16, tpb.DataType_DT_HALF, tpb.DataType_DT_UINT32,
		tpb.DataType_DT_UINT64}
	numberTypes = []tpb.DataType{tpb.DataType_DT_FLOAT, tpb.DataType_DT_DOUBLE, tpb.DataType_DT_INT32,
		tpb.DataType_DT_UINT8, tpb.DataType_DT_INT16, tpb.DataType_DT_INT8, tpb.DataType_DT_COMPLEX64,
		tpb.DataType_DT_INT64, tpb.DataType_DT_QINT8, tpb.DataType_DT_QUINT8, tpb.DataType_DT_QINT32,
		tpb.DataType_DT_BFLOAT16, tpb.DataType_DT_QINT16, tpb.DataType_DT_QUINT16, tpb.DataType_DT_UINT16,
		tpb.DataType_DT_COMPLEX128, tpb.DataType_DT_HALF, tpb.DataType_DT_UINT32, tpb.DataType_DT_UINT64}
	quantizedTypes = []tpb.DataType{tpb.DataType_DT_QINT8, tpb.DataType_DT_QUINT8, tpb.DataType_DT_QINT32,
		tpb.DataType_DT_QINT16, tpb.DataType_DT_QUINT16}
)

// compoundType is ProcessCompoundType.
func compoundType(name string) ([]tpb.DataType, bool) {
	switch name {
	case "numbertype", "numerictype":
		return numberTypes, true
	case "quantizedtype":
		return quantizedTypes, true
	case "realnumbertype", "realnumerictype":
		return realNumberTypes, true
	}
	return nil, false
}

// dataTypeFromString is TensorFlow's DataTypeFromString
// (tensorflow/core/framework/types.cc): exact, case-sensitive spellings.
func dataTypeFromString(s string) (tpb.DataType, bool) {
	if base, ok := strings.CutSuffix(s, "_ref"); ok {
		dt, ok := dataTypeFromString(base)
		if !ok || dt > 100 {
			return 0, false
		}
		return dt + 100, true
	}
	switch s {
	case "float", "float32":
		return tpb.DataType_DT_FLOAT, true
	case "double", "float64":
		return tpb.DataType_DT_DOUBLE, true
	case "int32":
		return tpb.DataType_DT_INT32, true
	case "uint32":
		return tpb.DataType_DT_UINT32, true
	case "uint8":
		return tpb.DataType_DT_UINT8, true
	case "uint16":
		return tpb.DataType_DT_UINT16, true
	case "int16":
		return tpb.DataType_DT_INT16, true
	case "int8":
		return tpb.DataType_DT_INT8, true
	case "string":
		return tpb.DataType_DT_STRING, true
	case "complex64":
		return tpb.DataType_DT_COMPLEX64, true
	case "complex128":
		return tpb.DataType_DT_COMPLEX128, true
	case "int64":
		return tpb.DataType_DT_INT64, true
	case "uint64":
		return tpb.DataType_DT_UINT64, true
	case "bool":
		return tpb.DataType_DT_BOOL, true
	case "qint8":
		return tpb.DataType_DT_QINT8, true
	case "quint8":
		return tpb.DataType_DT_QUINT8, true
	case "qint16":
		return tpb.DataType_DT_QINT16, true
	case "quint16":
		return tpb.DataType_DT_QUINT16, true
	case "qint32":
		return tpb.DataType_DT_QINT32, true
	case "bfloat16":
		return tpb.DataType_DT_BFLOAT16, true
	case "half", "float16":
		return tpb.DataType_DT_HALF, true
	case "float8_e5m2":
		return tpb.DataType_DT_FLOAT8_E5M2, true
	case "float8_e4m3fn":
		return tpb.DataType_DT_FLOAT8_E4M3FN, true
	case "int4":
		return tpb.DataType_DT_INT4, true
	case "uint4":
		return tpb.DataType_DT_UINT4, true
	case "resource":
		return tpb.DataType_DT_RESOURCE, true
	case "variant":
		return tpb.DataType_DT_VARIANT, true
	}
	return 0, false
}

// finalizeAttr is FinalizeAttr from op_def_builder.cc.
func finalizeAttr(spec string, allowAny bool, def *opdefpb.OpDef) error {
	attr := &opdefpb.OpDef_AttrDef{}
	def.Attr = append(def.Attr, attr)
	name, ok := consumeNameColon(&spec, true)
	if !ok {
		return fmt.Errorf("trouble parsing '<name>:'")
	}
	attr.Name = name

	isList := false
	if strings.HasPrefix(spec, "list") {
		rest := trimLeftSpace(spec[4:])
		if consumeLiteral(&rest, "(") {
			isList, spec = true, rest
		}
	}
	var typ, compound string
	allowed := func() *attrpb.AttrValue_ListValue {
		if attr.AllowedValues == nil {
			attr.AllowedValues = &attrpb.AttrValue{Value: &attrpb.AttrValue_List{List: &attrpb.AttrValue_ListValue{}}}
		}
		return attr.AllowedValues.GetList()
	}
	cut := func(p string) bool {
		if r, ok := strings.CutPrefix(spec, p); ok {
			spec = r
			return true
		}
		return false
	}
	switch {
	case cut("string"):
		typ = "string"
	case cut("int"):
		typ = "int"
	case cut("float"):
		typ = "float"
	case cut("bool"):
		typ = "bool"
	case cut("type"):
		typ = "type"
	case cut("shape"):
		typ = "shape"
	case cut("tensor"):
		typ = "tensor"
	case cut("func"):
		typ = "func"
	case allowAny && cut("any"):
		typ = "any"
	case func() bool { compound = compoundPrefix(&spec); return compound != "" }():
		// ConsumeCompoundAttrType + ProcessCompoundType. The C++ consumes
		// "realnumberictype" (sic) but ProcessCompoundType knows only
		// "realnumerictype", so that spelling fails there as here.
		typ = "type"
		set, ok := compoundType(compound)
		if !ok {
			return fmt.Errorf("expected to see a compound type, saw: %s", compound)
		}
		allowed().Type = append(allowed().Type, set...)
	case cut("{"):
		spec = trimLeftSpace(spec)
		l := allowed()
		if strings.HasPrefix(spec, "\"") || strings.HasPrefix(spec, "'") {
			typ = "string"
			for {
				s, ok := consumeQuoted(&spec)
				if !ok {
					return fmt.Errorf("trouble parsing allowed string at '%s'", spec)
				}
				l.S = append(l.S, []byte(s))
				if cut(",") {
					spec = trimLeftSpace(spec)
					if cut("}") {
						break
					}
				} else {
					if !cut("}") {
						return fmt.Errorf("expected , or } after strings in list, not: '%s'", spec)
					}
					break
				}
			}
		} else {
			typ = "type"
			for {
				i := 0
				for i < len(spec) && ((spec[i] >= 'a' && spec[i] <= 'z') || (spec[i] >= '0' && spec[i] <= '9')) {
					i++
				}
				if i == 0 {
					return fmt.Errorf("trouble parsing type string at '%s'", spec)
				}
				ts := spec[:i]
				spec = trimLeftSpace(spec[i:])
				if set, ok := compoundType(ts); ok {
					l.Type = append(l.Type, set...)
				} else if dt, ok := dataTypeFromString(ts); ok {
					l.Type = append(l.Type, dt)
				} else {
					return fmt.Errorf("unrecognized type string '%s'", ts)
				}
				if cut(",") {
					spec = trimLeftSpace(spec)
					if cut("}") {
						break
					}
				} else {
					if !cut("}") {
						return fmt.Errorf("expected , or } after types in list, not: '%s'", spec)
					}
					break
				}
			}
		}
	default:
		return fmt.Errorf("trouble parsing type string at '%s'", spec)
	}
	spec = trimLeftSpace(spec)
	if isList {
		if !cut(")") {
			return fmt.Errorf("expected ) to close 'list(', not: '%s'", spec)
		}
		spec = trimLeftSpace(spec)
		attr.Type = "list(" + typ + ")"
	} else {
		attr.Type = typ
	}
	if (isList || typ == "int") && cut(">=") {
		n, ok := consumeNumber(&spec)
		if !ok {
			return fmt.Errorf("could not parse integer lower limit after '>=', found '%s' instead", spec)
		}
		attr.HasMinimum, attr.Minimum = true, n
	}
	if cut("=") {
		spec = trimLeftSpace(spec)
		v, err := parseAttrValue(attr.Type, spec)
		if err != nil {
			return fmt.Errorf("could not parse default value '%s': %v", spec, err)
		}
		attr.DefaultValue = v
	} else if spec != "" {
		return fmt.Errorf("extra '%s' unparsed at the end", spec)
	}
	return nil
}

// compoundPrefix is ConsumeCompoundAttrType: it consumes a compound type
// name at the start of *s and returns it ("" when there is none).
func compoundPrefix(s *string) string {
	for _, p := range []string{"numbertype", "numerictype", "quantizedtype", "realnumbertype", "realnumberictype"} {
		if r, ok := strings.CutPrefix(*s, p); ok {
			*s = r
			return p
		}
	}
	return ""
}

// consumeQuoted is ConsumeQuotedString for ' or " quotes, with CUnescape.
func consumeQuoted(s *string) (string, bool) {
	if *s == "" {
		return "", false
	}
	q := (*s)[0]
	if q != '"' && q != '\'' {
		return "", false
	}
	i := 1
	for i < len(*s) && (*s)[i] != q {
		if (*s)[i] == '\\' {
			i++
		}
		i++
	}
	if i >= len(*s) {
		return "", false
	}
	v, err := unescapeC((*s)[1:i])
	if err != nil {
		return "", false
	}
	*s = trimLeftSpace((*s)[i+1:])
	return v, true
}

// consumeNumber is ConsumeAttrNumber.
func consumeNumber(s *string) (int64, bool) {
	r := trimLeftSpace(*s)
	i := 0
	if strings.HasPrefix(r, "-") {
		i = 1
	}
	j := i
	for j < len(r) && r[j] >= '0' && r[j] <= '9' {
		j++
	}
	if j == i {
		return 0, false
	}
	n, err := strconv.ParseInt(r[:j], 10, 64)
	if err != nil {
		return 0, false
	}
	*s = trimLeftSpace(r[j:])
	return n, true
}

// parseAttrValue is ParseAttrValue (tensorflow/core/framework/attr_value_util.cc):
// it wraps the text as an AttrValue text proto of the attr's field.
func parseAttrValue(typ, text string) (*attrpb.AttrValue, error) {
	t := typ
	isList := false
	if r, ok := strings.CutPrefix(t, "list("); ok {
		isList, t = true, r
	}
	var field string
	for _, f := range []struct{ prefix, field string }{
		{"string", "s"}, {"int", "i"}, {"float", "f"}, {"bool", "b"}, {"type", "type"},
		{"shape", "shape"}, {"tensor", "tensor"}, {"func", "func"}, {"placeholder", "placeholder"},
	} {
		if r, ok := strings.CutPrefix(t, f.prefix); ok {
			field, t = f.field, r
			break
		}
	}
	if field == "" {
		return nil, fmt.Errorf("no default for attr type %q", typ)
	}
	if isList && !strings.HasPrefix(t, ")") {
		return nil, fmt.Errorf("bad list type %q", typ)
	}
	if field == "s" && !isList {
		// TextFormat accepts raw control characters inside a quoted string
		// (PrintV2's `end: string = '\n'` holds a real newline); prototext
		// does not, so decode a lone quoted string directly.
		rest := strings.TrimSpace(text)
		if v, ok := consumeQuoted(&rest); ok && rest == "" {
			return &attrpb.AttrValue{Value: &attrpb.AttrValue_S{S: []byte(v)}}, nil
		}
	}
	var toParse string
	if isList {
		cleaned := strings.TrimSpace(text)
		if len(cleaned) < 2 || cleaned[0] != '[' || cleaned[len(cleaned)-1] != ']' {
			return nil, fmt.Errorf("list default must be in []")
		}
		if strings.TrimSpace(cleaned[1:]) == "]" {
			return &attrpb.AttrValue{Value: &attrpb.AttrValue_List{List: &attrpb.AttrValue_ListValue{}}}, nil
		}
		toParse = "list { " + field + ": " + text + " }"
	} else {
		toParse = field + ": " + text
	}
	v := &attrpb.AttrValue{}
	if err := prototext.Unmarshal([]byte(toParse), v); err != nil {
		return nil, err
	}
	return v, nil
}

// finalizeInOut is FinalizeInputOrOutput.
func finalizeInOut(spec string, isOutput bool, def *opdefpb.OpDef) error {
	arg := &opdefpb.OpDef_ArgDef{}
	if isOutput {
		def.OutputArg = append(def.OutputArg, arg)
	} else {
		def.InputArg = append(def.InputArg, arg)
	}
	name, ok := consumeNameColon(&spec, false)
	if !ok {
		return fmt.Errorf("trouble parsing 'name:'")
	}
	arg.Name = name
	if strings.HasPrefix(spec, "Ref") {
		r := trimLeftSpace(spec[3:])
		if consumeLiteral(&r, "(") {
			arg.IsRef, spec = true, r
		}
	}
	first, rest := scanIdent(spec, true)
	if first == "" {
		return fmt.Errorf("trouble parsing either a type or an attr name at '%s'", spec)
	}
	spec = rest
	typeOrAttr := first
	if strings.HasPrefix(spec, "*") {
		second, r := scanIdent(trimLeftSpace(spec[1:]), true)
		if second != "" {
			arg.NumberAttr, typeOrAttr, spec = first, second, r
		}
	}
	if dt, ok := dataTypeFromString(typeOrAttr); ok {
		arg.Type = dt
	} else {
		a := findAttr(def, typeOrAttr)
		if a == nil {
			return fmt.Errorf("reference to unknown attr '%s'", typeOrAttr)
		}
		switch a.Type {
		case "type":
			arg.TypeAttr = typeOrAttr
		case "list(type)":
			arg.TypeListAttr = typeOrAttr
		default:
			return fmt.Errorf("reference to attr '%s' with type %s that isn't type or list(type)", typeOrAttr, a.Type)
		}
	}
	if arg.IsRef && !consumeLiteral(&spec, ")") {
		return fmt.Errorf("did not find closing ')' for 'Ref(', instead found: '%s'", spec)
	}
	if spec != "" {
		return fmt.Errorf("extra '%s' unparsed at the end", spec)
	}
	if arg.NumberAttr != "" {
		if a := findAttr(def, arg.NumberAttr); a != nil && !a.HasMinimum {
			a.HasMinimum, a.Minimum = true, 1
		}
	} else if arg.TypeListAttr != "" {
		if a := findAttr(def, arg.TypeListAttr); a != nil && a.Type == "list(type)" && !a.HasMinimum {
			a.HasMinimum, a.Minimum = true, 1
		}
	}
	if arg.Type == tpb.DataType_DT_RESOURCE {
		def.IsStateful = true
	}
	return nil
}

func findAttr(def *opdefpb.OpDef, name string) *opdefpb.OpDef_AttrDef {
	for _, a := range def.Attr {
		if a.Name == name {
			return a
		}
	}
	return nil
}
