package savedmodel

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
)

// protoKind is the message type a serialized proto file holds.
type protoKind int

const (
	kindUnknown protoKind = iota
	kindSavedModel
	kindMetaGraph
	kindGraphDef
)

func (k protoKind) String() string {
	switch k {
	case kindSavedModel:
		return "SavedModel"
	case kindMetaGraph:
		return "MetaGraphDef"
	case kindGraphDef:
		return "GraphDef"
	}
	return "unknown"
}

// msgSchema is the part of a message's wire layout that sniffBinary checks:
// the allowed top-level fields, which of them are singular or required, and
// for some bytes fields the schema of the nested message.
type msgSchema struct {
	fields map[protowire.Number]fieldSchema
	// required field numbers, each of which must appear.
	required []protowire.Number
	// open allows fields not listed (with any wire type).
	open bool
}

type fieldSchema struct {
	typ      protowire.Type
	singular bool
	// nested, when set, is checked against the first occurrence of the field.
	nested *msgSchema
	// ident, for a bytes field, requires a printable name without spaces
	// (an op or function name), see isOpName.
	ident bool
}

// Schemas of the three messages a TensorFlow model file can hold and of the
// nested messages that tell them apart (field numbers from
// tensorflow/core/protobuf/saved_model.proto, meta_graph.proto,
// tensorflow/core/framework/graph.proto, node_def.proto, function.proto,
// op_def.proto). Only field numbers and wire types are checked.
var (
	opDefSchema = &msgSchema{fields: map[protowire.Number]fieldSchema{
		1: {typ: protowire.BytesType, singular: true, ident: true}, // name
	}, required: []protowire.Number{1}, open: true}
	nodeDefSchema = &msgSchema{fields: map[protowire.Number]fieldSchema{
		1: {typ: protowire.BytesType, singular: true},              // name
		2: {typ: protowire.BytesType, singular: true, ident: true}, // op
		3: {typ: protowire.BytesType},                              // input
		4: {typ: protowire.BytesType, singular: true},              // device
		5: {typ: protowire.BytesType},                              // attr
		6: {typ: protowire.BytesType, singular: true},              // experimental_debug_info
		7: {typ: protowire.BytesType, singular: true},              // experimental_type
	}, required: []protowire.Number{2}}
	functionDefSchema = &msgSchema{fields: map[protowire.Number]fieldSchema{
		1: {typ: protowire.BytesType, singular: true, nested: opDefSchema}, // signature
		3: {typ: protowire.BytesType, nested: nodeDefSchema},               // node_def
		4: {typ: protowire.BytesType},                                      // ret
		5: {typ: protowire.BytesType},                                      // attr
		6: {typ: protowire.BytesType},                                      // control_ret
		7: {typ: protowire.BytesType},                                      // arg_attr
		8: {typ: protowire.BytesType},                                      // resource_arg_unique_id
	}}
	librarySchema = &msgSchema{fields: map[protowire.Number]fieldSchema{
		1: {typ: protowire.BytesType, nested: functionDefSchema}, // function
		2: {typ: protowire.BytesType},                            // gradient
		3: {typ: protowire.BytesType},                            // registered_gradients
	}}
	graphDefSchema = &msgSchema{fields: map[protowire.Number]fieldSchema{
		1: {typ: protowire.BytesType, nested: nodeDefSchema},                 // node
		2: {typ: protowire.BytesType, singular: true, nested: librarySchema}, // library
		3: {typ: protowire.VarintType, singular: true},                       // version (deprecated)
		4: {typ: protowire.BytesType, singular: true},                        // versions
		5: {typ: protowire.BytesType, singular: true},                        // debug_info
	}}
	opListSchema = &msgSchema{fields: map[protowire.Number]fieldSchema{
		1: {typ: protowire.BytesType, nested: opDefSchema}, // op
	}}
	metaInfoDefSchema = &msgSchema{fields: map[protowire.Number]fieldSchema{
		1: {typ: protowire.BytesType, singular: true},                       // meta_graph_version
		2: {typ: protowire.BytesType, singular: true, nested: opListSchema}, // stripped_op_list
		3: {typ: protowire.BytesType, singular: true},                       // any_info
		4: {typ: protowire.BytesType},                                       // tags
		5: {typ: protowire.BytesType, singular: true},                       // tensorflow_version
		6: {typ: protowire.BytesType, singular: true},                       // tensorflow_git_version
		7: {typ: protowire.VarintType, singular: true},                      // stripped_default_attrs
		8: {typ: protowire.BytesType},                                       // function_aliases
	}}
	metaGraphSchema = &msgSchema{fields: map[protowire.Number]fieldSchema{
		1: {typ: protowire.BytesType, singular: true, nested: metaInfoDefSchema}, // meta_info_def
		2: {typ: protowire.BytesType, singular: true, nested: graphDefSchema},    // graph_def
		3: {typ: protowire.BytesType, singular: true},                            // saver_def
		4: {typ: protowire.BytesType},                                            // collection_def
		5: {typ: protowire.BytesType},                                            // signature_def
		6: {typ: protowire.BytesType},                                            // asset_file_def
		7: {typ: protowire.BytesType, singular: true},                            // object_graph_def
	}, required: []protowire.Number{2}}
	savedModelSchema = &msgSchema{fields: map[protowire.Number]fieldSchema{
		1: {typ: protowire.VarintType, singular: true},         // saved_model_schema_version
		2: {typ: protowire.BytesType, nested: metaGraphSchema}, // meta_graphs
	}, required: []protowire.Number{2}}
)

// matches reports whether b is a wire stream that fits s: every field is
// allowed with its wire type, singular fields appear once, required fields
// appear, and the first occurrence of each field with a nested schema fits
// that schema. The work is bounded by len(b) times the schema depth.
func (s *msgSchema) matches(b []byte) bool {
	k := check{s: s}
	for off := 0; off < len(b); {
		num, typ, n := protowire.ConsumeTag(b[off:])
		if n < 0 {
			return false
		}
		off += n
		m := protowire.ConsumeFieldValue(num, typ, b[off:])
		if m < 0 {
			return false
		}
		f, first, err := k.field(num, typ)
		if err != nil {
			return false
		}
		if first {
			v, _ := protowire.ConsumeBytes(b[off:])
			if f.ident && !isOpName(v) {
				return false
			}
			if f.nested != nil && !f.nested.matches(v) {
				return false
			}
		}
		off += m
	}
	return k.end() == nil
}

// errWrongKind says that a message does not fit the schema it is checked
// against: the file is not of the kind the walk assumed.
var errWrongKind = errors.New("not this kind")

// check applies a schema's rules to a message field by field, as matches
// reads a message whole and the streamed load (stream.go) reads one from
// its file.
type check struct {
	s    *msgSchema
	seen [16]uint8 // occurrences of field numbers 1-15, saturating
}

// field checks a field's number and type; first says whether it is the
// first occurrence of a bytes field, whose payload the schema fs may
// check further (ident, nested).
func (k *check) field(num protowire.Number, typ protowire.Type) (fs fieldSchema, first bool, err error) {
	f, ok := k.s.fields[num]
	if !ok && k.s.open {
		return fieldSchema{}, false, nil
	}
	if !ok || f.typ != typ || num >= protowire.Number(len(k.seen)) {
		return f, false, errWrongKind
	}
	if k.seen[num] > 0 && f.singular {
		return f, false, errWrongKind
	}
	first = k.seen[num] == 0 && typ == protowire.BytesType
	if k.seen[num] < 255 {
		k.seen[num]++
	}
	return f, first, nil
}

// end checks the required fields; a nil check has nothing to check.
func (k *check) end() error {
	if k == nil {
		return nil
	}
	for _, r := range k.s.required {
		if k.seen[r] == 0 {
			return errWrongKind
		}
	}
	return nil
}

// sniffBinary tells which of SavedModel, MetaGraphDef and GraphDef a binary
// proto holds. The three messages share field numbers, so it checks each
// candidate's wire layout two to four levels deep (see the schemas above),
// in a fixed order — SavedModel, MetaGraphDef, GraphDef — and takes the first
// that fits.
func sniffBinary(b []byte) (protoKind, error) {
	if len(b) == 0 {
		return kindUnknown, errors.New("file is empty")
	}
	if err := checkWire(b); err != nil {
		return kindUnknown, fmt.Errorf("not a protobuf file (truncated or not a model): %v", err)
	}
	for _, c := range []struct {
		kind   protoKind
		schema *msgSchema
	}{{kindSavedModel, savedModelSchema}, {kindMetaGraph, metaGraphSchema}, {kindGraphDef, graphDefSchema}} {
		if c.schema.matches(b) {
			return c.kind, nil
		}
	}
	return kindUnknown, errors.New("not a TensorFlow model: its fields fit none of SavedModel, MetaGraphDef or GraphDef")
}

// checkWire walks the top-level fields of b and fails on bytes that are not
// a well-formed protobuf wire stream, naming the offset.
func checkWire(b []byte) error {
	for off := 0; off < len(b); {
		num, typ, n := protowire.ConsumeTag(b[off:])
		if n < 0 {
			return fmt.Errorf("bad field tag at byte %d: %s", off, protoErr(protowire.ParseError(n)))
		}
		off += n
		m := protowire.ConsumeFieldValue(num, typ, b[off:])
		if m < 0 {
			return fmt.Errorf("bad value of field %d at byte %d: %s", num, off, protoErr(protowire.ParseError(m)))
		}
		off += m
	}
	return nil
}

// isOpName reports whether b is a plausible op or function name: printable
// ASCII without spaces (function names such as "__inference_<lambda>_46"
// hold punctuation), unlike the nested messages other candidates put there.
func isOpName(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c <= ' ' || c > '~' {
			return false
		}
	}
	return true
}

// isText reports whether b looks like a text file (text proto or JSON): valid
// UTF-8 with no control characters other than white space. Binary protos
// almost always hold tag or length bytes below 0x20.
func isText(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	return !hasControl(b) && utf8.Valid(b)
}

// hasControl reports whether b holds a control character other than white
// space, which rules out isText for any file that starts with b.
func hasControl(b []byte) bool {
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v' {
			return true
		}
	}
	return false
}

// Top-level field names of the three messages, for sniffing text protos.
var (
	savedModelTextFields = []string{"saved_model_schema_version", "meta_graphs"}
	metaGraphTextFields  = []string{"meta_info_def", "graph_def", "saver_def", "collection_def",
		"signature_def", "asset_file_def", "object_graph_def"}
	graphDefTextFields = []string{"node", "library", "version", "versions"}
)

// sniffText tells which message a text proto holds from its first field
// name, skipping white space and # comments. It returns kindUnknown and the
// name when the first field is none of the three messages' fields.
func sniffText(b []byte) (protoKind, string) {
	name := firstTextField(b)
	for _, c := range []struct {
		kind   protoKind
		fields []string
	}{{kindSavedModel, savedModelTextFields}, {kindMetaGraph, metaGraphTextFields}, {kindGraphDef, graphDefTextFields}} {
		for _, f := range c.fields {
			if f == name {
				return c.kind, name
			}
		}
	}
	return kindUnknown, name
}

// firstTextField returns the first identifier of a text proto.
func firstTextField(b []byte) string {
	for len(b) > 0 {
		b = bytes.TrimLeft(b, " \t\r\n\f\v")
		if len(b) > 0 && b[0] == '#' {
			if i := bytes.IndexByte(b, '\n'); i >= 0 {
				b = b[i+1:]
				continue
			}
			return ""
		}
		break
	}
	end := 0
	for end < len(b) && (b[end] == '_' || b[end] >= 'a' && b[end] <= 'z' || b[end] >= 'A' && b[end] <= 'Z' || b[end] >= '0' && b[end] <= '9') {
		end++
	}
	return string(b[:end])
}

// isJSONObject reports whether b's first non-space byte opens a JSON object,
// which no text proto can start with.
func isJSONObject(b []byte) bool {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")) // UTF-8 byte order mark
	b = bytes.TrimLeft(b, " \t\r\n")
	return len(b) > 0 && b[0] == '{'
}

// protoErr is err's message without the "proto:" prefix, which the
// protobuf module follows with a space or a no-break space at random per
// build (internal/detrand) to keep callers from matching on it; tfscan's
// output must not vary.
func protoErr(err error) string {
	s := err.Error()
	for _, p := range []string{"proto:\u00a0", "proto: "} {
		s = strings.TrimPrefix(s, p)
	}
	return s
}
