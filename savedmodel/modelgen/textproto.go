package modelgen

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// MarshalText writes m in protobuf text format, byte-for-byte the same on
// every run and every build. prototext deliberately varies its white space
// between builds (internal/detrand), which would make committed text models
// drift, so the generator formats text itself: fields in field-number order,
// map entries sorted by key, two-space indentation.
func MarshalText(m proto.Message) []byte {
	var b strings.Builder
	writeFields(&b, m.ProtoReflect(), 0)
	return []byte(b.String())
}

func writeFields(b *strings.Builder, m protoreflect.Message, depth int) {
	fields := m.Descriptor().Fields()
	fds := make([]protoreflect.FieldDescriptor, 0, fields.Len())
	for i := 0; i < fields.Len(); i++ {
		fds = append(fds, fields.Get(i))
	}
	sort.Slice(fds, func(i, j int) bool { return fds[i].Number() < fds[j].Number() })
	for _, fd := range fds {
		if !m.Has(fd) {
			continue
		}
		v := m.Get(fd)
		switch {
		case fd.IsMap():
			writeMap(b, fd, v.Map(), depth)
		case fd.IsList():
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				writeValue(b, fd, l.Get(i), depth)
			}
		default:
			writeValue(b, fd, v, depth)
		}
	}
}

func writeMap(b *strings.Builder, fd protoreflect.FieldDescriptor, m protoreflect.Map, depth int) {
	keys := make([]protoreflect.MapKey, 0, m.Len())
	m.Range(func(k protoreflect.MapKey, _ protoreflect.Value) bool {
		keys = append(keys, k)
		return true
	})
	sort.Slice(keys, func(i, j int) bool { return keyLess(keys[i], keys[j]) })
	ind := strings.Repeat("  ", depth)
	for _, k := range keys {
		fmt.Fprintf(b, "%s%s {\n", ind, fd.TextName())
		writeValue(b, fd.MapKey(), k.Value(), depth+1)
		writeValue(b, fd.MapValue(), m.Get(k), depth+1)
		fmt.Fprintf(b, "%s}\n", ind)
	}
}

func keyLess(a, b protoreflect.MapKey) bool {
	switch x := a.Interface().(type) {
	case string:
		return x < b.Interface().(string)
	case bool:
		return !x && b.Interface().(bool)
	case int32, int64:
		return a.Int() < b.Int()
	default:
		return a.Uint() < b.Uint()
	}
}

func writeValue(b *strings.Builder, fd protoreflect.FieldDescriptor, v protoreflect.Value, depth int) {
	ind := strings.Repeat("  ", depth)
	if fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind {
		fmt.Fprintf(b, "%s%s {\n", ind, fd.TextName())
		writeFields(b, v.Message(), depth+1)
		fmt.Fprintf(b, "%s}\n", ind)
		return
	}
	fmt.Fprintf(b, "%s%s: %s\n", ind, fd.TextName(), scalarText(fd, v))
}

func scalarText(fd protoreflect.FieldDescriptor, v protoreflect.Value) string {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return strconv.FormatBool(v.Bool())
	case protoreflect.EnumKind:
		if ev := fd.Enum().Values().ByNumber(v.Enum()); ev != nil {
			return string(ev.Name())
		}
		return strconv.Itoa(int(v.Enum()))
	case protoreflect.StringKind:
		return quote([]byte(v.String()))
	case protoreflect.BytesKind:
		return quote(v.Bytes())
	case protoreflect.FloatKind:
		return floatText(v.Float(), 32)
	case protoreflect.DoubleKind:
		return floatText(v.Float(), 64)
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return strconv.FormatInt(v.Int(), 10)
	default:
		return strconv.FormatUint(v.Uint(), 10)
	}
}

func floatText(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'g', -1, bits)
}

// quote writes a C-style quoted string: printable ASCII as is, the rest as
// three-digit octal escapes, which every text-format parser reads.
func quote(s []byte) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		switch {
		case c == '"':
			b.WriteString(`\"`)
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\n':
			b.WriteString(`\n`)
		case c >= 0x20 && c < 0x7f:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, `\%03o`, c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
