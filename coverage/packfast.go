package coverage

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"

	avpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/tfscan/tfscan/internal/slab"
)

// The fast pack decoder. A pack read whole (BuiltinPack, ReadPack) or an
// op's kernels of one read lazily (lazypack.go) are decoded here; the CPU
// pack has 9,184 kernels. parsePackProtojson spends most of its time in
// protojson, once per KernelDef, and in encoding/json's two passes over the
// kernels array. parsePackFast reads the kernels array itself, in one pass:
// a kernel line in the shape WritePack writes (canonicalJSON: proto names, in
// field order, no spaces, strings of printable ASCII without escapes, a
// constraint's allowed values as a list of dtype names, bools or int64s)
// is built directly;
// any other kernel is checked to be valid JSON and decoded by protojson, as
// the plain decode does. The rest of the document, with the kernels array
// replaced by [], goes through encoding/json as before. parsePackFast gives
// up (and parsePack runs the plain decode, whose result or error is
// returned) at the first thing it cannot promise to read exactly as the plain
// decode does: a syntax error, a kernel protojson refuses, a check that
// fails, a top-level key that encoding/json's case-insensitive matching could
// take for "kernels". packfast_test.go checks the two decodes against each
// other on every built-in pack, on odd and bad kernels, and under fuzzing.

// parsePackFast decodes data as parsePackProtojson does, or reports false.
func parsePackFast(data []byte) (*Pack, bool) {
	d := newKernelDecoder()
	p, ok := d.pack(data)
	if !ok {
		return nil, false
	}
	// As the plain decode has them: never nil, and no spare capacity (an
	// append to a shared pack's kernels copies them).
	p.Kernels = append(make([]*kdpb.KernelDef, 0, len(d.kernels)), d.kernels...)
	for _, k := range p.Kernels {
		if checkKernel(k) != nil {
			return nil, false
		}
	}
	if p.Validate() != nil {
		return nil, false
	}
	return p, true
}

// kernelDecoder holds one document's kernels and the memory they are cut
// from: the strings and constraints a pack repeats are shared, and the
// kernels and their lists come from slabs.
type kernelDecoder struct {
	kernels []*kdpb.KernelDef
	strs    map[string]string

	shared  map[string]*kdpb.KernelDef_AttrConstraint
	defs    slab.Of[kdpb.KernelDef]
	conPtrs slab.Of[*kdpb.KernelDef_AttrConstraint]
	types   slab.Of[tpb.DataType]
	args    slab.Of[string]

	// The kernel being read, and scratch lists for its lists.
	cur      cursor
	tmpCons  []*kdpb.KernelDef_AttrConstraint
	tmpTypes []tpb.DataType
	tmpArgs  []string
	tmpBools []bool
	tmpInts  []int64

	// The last op and device type read: a pack lists an op's kernels
	// together, all of one device type or two.
	lastOp, lastDevice string

	// index, when set, records where each kernel is instead of reading it
	// (lazypack.go).
	index *lazyKernels
}

// pack reads the document data: its kernels as the decoder reads them
// (document), the rest as the plain decode does; the pack has no kernels
// yet.
func (d *kernelDecoder) pack(data []byte) (*Pack, bool) {
	start, end, ok := d.document(data)
	if !ok {
		return nil, false
	}
	header := make([]byte, 0, len(data)-(end-start)+2)
	header = append(append(append(header, data[:start]...), "[]"...), data[end:]...)
	var h packHeader
	dec := json.NewDecoder(bytes.NewReader(header))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil || len(h.Kernels) != 0 {
		return nil, false
	}
	p, err := h.pack()
	return p, err == nil
}

func newKernelDecoder() *kernelDecoder {
	return &kernelDecoder{strs: make(map[string]string, 1024), shared: map[string]*kdpb.KernelDef_AttrConstraint{}}
}

// document finds the top-level object's "kernels" value in b, decodes its
// kernels into d.kernels and returns where the value starts and ends.
func (d *kernelDecoder) document(b []byte) (start, end int, ok bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return 0, 0, false
	}
	start = -1
	for i = skipSpace(b, i+1); ; {
		if i >= len(b) || b[i] != '"' {
			return 0, 0, false
		}
		j := skipString(b, i)
		if j < 0 {
			return 0, 0, false
		}
		key := b[i+1 : j-1]
		if i = skipSpace(b, j); i >= len(b) || b[i] != ':' {
			return 0, 0, false
		}
		i = skipSpace(b, i+1)
		var e int
		switch {
		case string(key) == "kernels" && start < 0:
			e = d.array(b, i)
			start, end = i, e
		case !plainKey(key):
			// Another "kernels", or a key encoding/json might match to it.
			return 0, 0, false
		default:
			e = skipValue(b, i)
		}
		if e < 0 {
			return 0, 0, false
		}
		if i = skipSpace(b, e); i >= len(b) {
			return 0, 0, false
		}
		if b[i] == '}' {
			return start, end, start >= 0
		}
		if b[i] != ',' {
			return 0, 0, false
		}
		i = skipSpace(b, i+1)
	}
}

// plainKey reports whether encoding/json cannot match key to the field
// "kernels": printable ASCII without escapes (so that Unicode case folding,
// the Kelvin sign's included, does not apply) and not "kernels" in any case.
func plainKey(key []byte) bool {
	for _, c := range key {
		if c < 0x20 || c >= 0x7f || c == '\\' {
			return false
		}
	}
	return !bytes.EqualFold(key, []byte("kernels"))
}

// array decodes the JSON array of kernels at b[i:] and returns its end, or
// -1.
func (d *kernelDecoder) array(b []byte, i int) int {
	if i >= len(b) || b[i] != '[' {
		return -1
	}
	if i = skipSpace(b, i+1); i < len(b) && b[i] == ']' {
		return i + 1
	}
	if d.index != nil {
		return d.index.array(d, b, i)
	}
	for {
		k, e := d.anyKernel(b, i)
		if k == nil {
			return -1
		}
		d.kernels = append(d.kernels, k)
		if i = skipSpace(b, e); i >= len(b) {
			return -1
		}
		if b[i] == ']' {
			return i + 1
		}
		if b[i] != ',' {
			return -1
		}
		i = skipSpace(b, i+1)
	}
}

// anyKernel reads the kernel at b[i:] and returns it and its end: in
// WritePack's shape (kernel), else as protojson decides, as in the plain
// decode, on a value encoding/json accepts; nil where it refuses it.
func (d *kernelDecoder) anyKernel(b []byte, i int) (*kdpb.KernelDef, int) {
	if k, e := d.kernel(b, i); k != nil {
		return k, e
	}
	e := skipValue(b, i)
	if e < 0 || !json.Valid(b[i:e]) {
		return nil, 0
	}
	k := &kdpb.KernelDef{}
	if protojson.Unmarshal(b[i:e], k) != nil {
		return nil, 0
	}
	return k, e
}

// kernel reads one kernel in WritePack's shape at b[i:]:
//
//	{"op":S,"device_type":S,"constraint":[C,...],"host_memory_arg":[S,...],"label":S,"priority":N}
//	C = {"name":S,"allowed_values":{"list":{"type":[DT,...]}}}
//
// every field optional, in this order, lists not empty, and returns it and
// its end, or nil for anything else.
func (d *kernelDecoder) kernel(b []byte, i int) (*kdpb.KernelDef, int) {
	// The decoder's cursor, not a local one: the lists' items take it through
	// a function value, which a local would escape to the heap for.
	c := &d.cur
	c.b, c.i = b, i
	if !c.lit("{") || c.lit("}") {
		return nil, 0
	}
	k := d.defs.New()
	for field := 0; ; {
		key, ok := c.str()
		if !ok || !c.lit(":") {
			return nil, 0
		}
		next := kernelFieldIndex(key)
		if next < field {
			return nil, 0
		}
		field = next + 1
		switch next {
		case 0:
			k.Op, ok = d.strLast(c, &d.lastOp)
		case 1:
			k.DeviceType, ok = d.strLast(c, &d.lastDevice)
		case 2:
			if ok = list(d, c, &d.tmpCons, (*kernelDecoder).constraint); ok {
				k.Constraint = keep(&d.conPtrs, d.tmpCons)
			}
		case 3:
			if ok = list(d, c, &d.tmpArgs, (*kernelDecoder).str); ok {
				k.HostMemoryArg = keep(&d.args, d.tmpArgs)
			}
		case 4:
			k.Label, ok = d.str(c)
		case 5:
			k.Priority, ok = c.int32()
		}
		if !ok {
			return nil, 0
		}
		if c.lit("}") {
			return k, c.i
		}
		if !c.lit(",") {
			return nil, 0
		}
	}
}

// kernelFieldIndex is the place of a KernelDef field (by proto name) in
// WritePack's order, or -1.
func kernelFieldIndex(key []byte) int {
	switch string(key) {
	case "op":
		return 0
	case "device_type":
		return 1
	case "constraint":
		return 2
	case "host_memory_arg":
		return 3
	case "label":
		return 4
	case "priority":
		return 5
	}
	return -1
}

// constraint reads one constraint. Kernels share the constraints whose text
// is the same (the CPU pack's 13,311 constraints are 294 distinct ones, and
// a constraint is most of a kernel's memory); Pack.Kernels says so. A text
// read before is not read again. Its allowed values are a list of dtypes,
// of bools or of int64s (as protojson writes them, quoted); any other list
// is left to protojson.
func (d *kernelDecoder) constraint(c *cursor) (*kdpb.KernelDef_AttrConstraint, bool) {
	start := c.i
	if end := skipValue(c.b, start); end > start {
		if con, ok := d.shared[string(c.b[start:end])]; ok {
			c.i = end
			return con, true
		}
	}
	if !c.lit(`{"name":`) {
		return nil, false
	}
	name, ok := d.str(c)
	if !ok {
		return nil, false
	}
	var l *avpb.AttrValue_ListValue
	if c.lit(`,"allowed_values":{"list":{`) {
		l = &avpb.AttrValue_ListValue{}
		switch {
		case c.lit(`"type":`):
			ok = list(d, c, &d.tmpTypes, (*kernelDecoder).dtype)
			l.Type = keep(&d.types, d.tmpTypes)
		case c.lit(`"b":`):
			ok = list(d, c, &d.tmpBools, (*kernelDecoder).bool)
			l.B = slices.Clone(d.tmpBools)
		case c.lit(`"i":`):
			ok = list(d, c, &d.tmpInts, (*kernelDecoder).quotedInt64)
			l.I = slices.Clone(d.tmpInts)
		default:
			ok = false
		}
		if !ok || !c.lit("}}") {
			return nil, false
		}
	}
	if !c.lit("}") {
		return nil, false
	}
	con := &kdpb.KernelDef_AttrConstraint{Name: name}
	if l != nil {
		con.AllowedValues = &avpb.AttrValue{Value: &avpb.AttrValue_List{List: l}}
	}
	d.shared[string(c.b[start:c.i])] = con
	return con, true
}

// list reads a JSON array of one or more items into the scratch list tmp.
func list[T any](d *kernelDecoder, c *cursor, tmp *[]T, item func(*kernelDecoder, *cursor) (T, bool)) bool {
	if !c.lit("[") {
		return false
	}
	*tmp = (*tmp)[:0]
	for {
		v, ok := item(d, c)
		if !ok {
			return false
		}
		*tmp = append(*tmp, v)
		if c.lit("]") {
			return true
		}
		if !c.lit(",") {
			return false
		}
	}
}

// keep copies a scratch list into memory from s.
func keep[T any](s *slab.Of[T], tmp []T) []T {
	out := s.Take(len(tmp))
	copy(out, tmp)
	return out
}

// str reads a string and returns it shared with its earlier copies.
func (d *kernelDecoder) str(c *cursor) (string, bool) {
	b, ok := c.str()
	if !ok {
		return "", false
	}
	if s, ok := d.strs[string(b)]; ok {
		return s, true
	}
	s := string(b)
	d.strs[s] = s
	return s, true
}

// strLast is str for a string that is often the last one read at its
// place (*last), which it then returns without a lookup.
func (d *kernelDecoder) strLast(c *cursor, last *string) (string, bool) {
	b, ok := c.str()
	if !ok {
		return "", false
	}
	if string(b) == *last {
		return *last, true
	}
	s, ok := d.strs[string(b)]
	if !ok {
		s = string(b)
		d.strs[s] = s
	}
	*last = s
	return s, true
}

// dtype reads a DataType by name.
func (*kernelDecoder) dtype(c *cursor) (tpb.DataType, bool) {
	s, ok := c.str()
	if !ok {
		return 0, false
	}
	t, ok := tpb.DataType_value[string(s)]
	return tpb.DataType(t), ok
}

// cursor reads WritePack's kernel lines: no spaces, nothing escaped.
type cursor struct {
	b []byte
	i int
}

func (c *cursor) lit(s string) bool {
	if len(c.b)-c.i < len(s) || string(c.b[c.i:c.i+len(s)]) != s {
		return false
	}
	c.i += len(s)
	return true
}

// str reads a string of printable ASCII without escapes (so that it means
// the same to encoding/json and protojson, UTF-8 checks included) and
// returns its bytes.
func (c *cursor) str() ([]byte, bool) {
	if c.i >= len(c.b) || c.b[c.i] != '"' {
		return nil, false
	}
	for j := c.i + 1; j < len(c.b); j++ {
		switch ch := c.b[j]; {
		case ch == '"':
			s := c.b[c.i+1 : j]
			c.i = j + 1
			return s, true
		case ch < 0x20 || ch >= 0x7f || ch == '\\':
			return nil, false
		}
	}
	return nil, false
}

// bool reads true or false.
func (*kernelDecoder) bool(c *cursor) (bool, bool) {
	switch {
	case c.lit("true"):
		return true, true
	case c.lit("false"):
		return false, true
	}
	return false, false
}

// quotedInt64 reads an int64 as protojson writes one, in quotes:
// "-?(0|[1-9][0-9]*)" within int64's range; any other form is left to
// protojson.
func (*kernelDecoder) quotedInt64(c *cursor) (int64, bool) {
	b, ok := c.str()
	if !ok || len(b) == 0 || len(b) > 20 || b[0] == '+' || b[0] == '0' && len(b) > 1 || len(b) > 1 && b[0] == '-' && b[1] == '0' {
		return 0, false
	}
	v, err := strconv.ParseInt(string(b), 10, 64)
	return v, err == nil
}

// int32 reads -?(0|[1-9][0-9]*) within int32's range ("-0", exponents and
// quoted numbers are left to protojson).
func (c *cursor) int32() (int32, bool) {
	j := c.i
	neg := j < len(c.b) && c.b[j] == '-'
	if neg {
		j++
	}
	first := j
	var v int64
	for ; j < len(c.b) && c.b[j] >= '0' && c.b[j] <= '9'; j++ {
		if j-first >= 10 {
			return 0, false
		}
		v = v*10 + int64(c.b[j]-'0')
	}
	switch {
	case j == first, j-first > 1 && c.b[first] == '0', neg && v == 0:
		return 0, false
	case j < len(c.b) && (c.b[j] == '.' || c.b[j] == 'e' || c.b[j] == 'E'):
		return 0, false
	}
	if neg {
		v = -v
	}
	if v < -1<<31 || v > 1<<31-1 {
		return 0, false
	}
	c.i = j
	return int32(v), true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the end of the JSON string starting at b[i], or -1. It
// does not check escapes: encoding/json checks what parsePackFast skips.
func skipString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// skipValue returns the end of the JSON value starting at b[i], or -1. It
// only balances brackets outside strings: whatever it skips is checked by
// encoding/json afterwards.
func skipValue(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			if i = skipString(b, i); i < 0 {
				return -1
			}
			if depth == 0 {
				return i
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth < 0 {
				return -1
			}
			if depth == 0 {
				return i + 1
			}
		default:
			if depth == 0 {
				// A number or a literal: up to the next delimiter.
				j := i
				for j < len(b) && !isDelim(b[j]) {
					j++
				}
				if j == i {
					return -1
				}
				return j
			}
		}
		i++
	}
	return -1
}

func isDelim(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', ',', ':', '[', ']', '{', '}', '"':
		return true
	}
	return false
}
