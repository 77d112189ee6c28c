package savedmodel

import (
	"errors"
	"hash/maphash"
	"math"
	"unicode/utf8"
	"unsafe"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	fpb "github.com/wamuir/graft/tensorflow/core/framework/function_go_proto"
	gpb "github.com/wamuir/graft/tensorflow/core/framework/graph_go_proto"
	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"
	tensorpb "github.com/wamuir/graft/tensorflow/core/framework/tensor_go_proto"
	shapepb "github.com/wamuir/graft/tensorflow/core/framework/tensor_shape_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"

	"github.com/tfscan/tfscan/internal/slab"
)

// A binary model is decoded here rather than by proto.Unmarshal, into the
// same generated messages and with the same result (wire_test.go checks
// both decoders against each other, fuzzed), at a fraction of the cost:
//
//   - A Const's tensor_content of aliasMin bytes or more is not copied: it
//     stays in the file's buffer, which the model keeps, and is decoded
//     (into numbers) only by whoever reads it: shape inference for a
//     shape operand, the executor, Write. On a model with large constants
//     the copy is most of what a full unmarshal costs in memory. (A file
//     of lazyFileMin bytes or more is not held whole: stream.go decodes it
//     as it reads it, leaving large contents in the file, lazy.go.)
//   - The messages a graph is made of (NodeDef, AttrValue, TensorProto,
//     TensorShapeProto and their lists) are cut from slabs, their strings
//     from a string arena, and op names, devices and attr names interned:
//     a handful of allocations per thousand nodes instead of about twenty
//     per node.
//   - Only the graph is decoded by hand: every other field (signatures,
//     saver, object graph, versions, function signatures and returns,
//     unknown fields) is collected in field order and handed to
//     proto.Unmarshal with Merge, which gives the same message as decoding
//     in place since those fields are disjoint from the ones decoded here.
//
// Anything a canonical encoder does not write (an attr value's oneof set
// twice, a map entry out of order, a nested message repeated, unusual
// nesting) makes the decoder give up on that NodeDef and decode it with
// proto.Unmarshal, and any error (truncation, a bad tag, invalid UTF-8)
// makes it decode the whole file with proto.Unmarshal, so that the result
// and the error are proto.Unmarshal's own.
//
// Unreachable function bodies are decoded too: inspect counts their nodes
// and ops, TensorFlow's import refuses bad ones whether or not a signature
// reaches them, and scan lists them in the unreachable phase.

// sharedMax is the largest encoded attr value of a NodeDef that is decoded
// once per file: the NodeDefs whose attr holds the same bytes (dtypes,
// strides, paddings, data formats, small constants: most attrs of a large
// graph) share one AttrValue message, as the defaults graph.Node.Attrs adds
// from the OpDefs are shared. Funcs are never shared, nor tensors with a
// field left to proto.Unmarshal or content left in the file (smallTensor). A model's messages are
// read, never modified in place (rewrite modifies clones): NodeDefs share
// attr maps too (sharedMapMax), and tensors their shapes.
const sharedMax = 64

// sharedMapMax is the largest run of encoded attr entries of a NodeDef
// whose attr map is decoded once per file: NodeDefs whose attr entries are
// the same bytes (every Conv2D of a tower, every Relu) share one map, as
// they share its values (sharedMax), when each of its values is shared.
// A NodeDef with a func attr, or a tensor not shared, has a map of its own.
const sharedMapMax = 1024

// aliasMin is the smallest tensor_content kept in the file's buffer rather
// than copied. Smaller ones are copied into a byte arena, so that a model
// without large constants does not keep its whole file alive.
const aliasMin = 1 << 10

// errFallback makes the decoder give up on the current NodeDef (or file)
// and let proto.Unmarshal decode it.
var errFallback = errors.New("not canonical")

// maxFastDepth bounds the nesting of messages (attr values holding lists
// of functions with attrs of lists...) that the decoder follows itself;
// deeper ones fall back to proto.Unmarshal, which applies its own
// recursion limit. Depths count as proto.Unmarshal counts them: the file's
// message is 0, and a map entry is a level of its own.
const maxFastDepth = 64

// decodeProto decodes b as the message kind into a new message, with the
// result and error of proto.Unmarshal, and what the wire decoder counted
// (Model.DecodedNodes; not ok where proto.Unmarshal decoded the file).
func decodeProto(kind protoKind, b []byte) (proto.Message, decodedCount, error) {
	if msg, d, err := fastDecode(kind, b); err == nil {
		return msg, d.counted(), nil
	}
	msg := newMessage(kind)
	return msg, decodedCount{}, proto.Unmarshal(b, msg)
}

// fastDecode decodes b as the message kind with a wire decoder, which it
// returns (its fallbacks count the NodeDefs left to proto.Unmarshal), with
// errFallback where proto.Unmarshal must decode the whole file.
func fastDecode(kind protoKind, b []byte) (proto.Message, *wireDecoder, error) {
	d := newWireDecoder()
	msg, err := d.decode(kind, b)
	return msg, d, err
}

// counted is the NodeDefs d decoded and their inputs (Model.DecodedNodes).
func (d *wireDecoder) counted() decodedCount {
	return decodedCount{nodes: d.nodeDefs, inputs: d.inputs, ok: true}
}

// decode decodes b as the message kind.
func (d *wireDecoder) decode(kind protoKind, b []byte) (msg proto.Message, err error) {
	switch kind {
	case kindSavedModel:
		m := &mgpb.SavedModel{}
		msg, err = m, d.savedModel(b, m)
	case kindMetaGraph:
		m := &mgpb.MetaGraphDef{}
		msg, err = m, d.metaGraph(b, m, 0)
	default:
		m := &gpb.GraphDef{}
		msg, err = m, d.graphDef(b, m, 0)
	}
	return msg, err
}

// wireDecoder holds the slabs and arenas of one file's decode.
type wireDecoder struct {
	fallbacks int
	// nodeDefs and inputs count the NodeDefs decoded and their inputs
	// (Model.DecodedNodes).
	nodeDefs, inputs int

	nodes    slab.Of[nodepb.NodeDef]
	attrs    slab.Of[attrpb.AttrValue]
	tensors  slab.Of[tensorpb.TensorProto]
	shapes   slab.Of[shapepb.TensorShapeProto]
	dims     slab.Of[shapepb.TensorShapeProto_Dim]
	lists    slab.Of[attrpb.AttrValue_ListValue]
	funcs    slab.Of[attrpb.NameAttrList]
	vType    slab.Of[attrpb.AttrValue_Type]
	vS       slab.Of[attrpb.AttrValue_S]
	vI       slab.Of[attrpb.AttrValue_I]
	vF       slab.Of[attrpb.AttrValue_F]
	vB       slab.Of[attrpb.AttrValue_B]
	vShape   slab.Of[attrpb.AttrValue_Shape]
	vTensor  slab.Of[attrpb.AttrValue_Tensor]
	vList    slab.Of[attrpb.AttrValue_List]
	vFunc    slab.Of[attrpb.AttrValue_Func]
	vPlace   slab.Of[attrpb.AttrValue_Placeholder]
	dimPtrs  slab.Of[*shapepb.TensorShapeProto_Dim]
	strSlice slab.Of[string]

	text   []byte // string arena: the current chunk's free space
	bytes  []byte // byte arena for small bytes fields
	intern map[string]string
	// recentNames are the latest interned names by slot (name).
	recentNames [64]string
	shared      map[string]*attrpb.AttrValue // by encoded value (sharedMax)
	// sharedMaps are NodeDef attr maps by their entries' bytes (sharedMapMax).
	sharedMaps map[string]map[string]*attrpb.AttrValue
	// sharedShapes are tensors' shapes by encoded value (sharedMax).
	sharedShapes map[string]*shapepb.TensorShapeProto
	// recent are small tensor values met once (recentTensor).
	recent []tensorSlot
	seed   maphash.Seed

	// holes, when set, are the tensor contents a compacted file left out
	// (lazy.go): the TensorProto holding the marker of hole i keeps it as
	// its unknown field, each marker claimed exactly once; nothing is
	// aliased (the buffer is not the file's) and nothing falls back to
	// proto.Unmarshal.
	holes   []hole
	claimed []bool
}

func newWireDecoder() *wireDecoder {
	return &wireDecoder{intern: make(map[string]string, 256)}
}

// str returns v as a string from the arena, after proto3's UTF-8 check.
func (d *wireDecoder) str(v []byte) (string, error) {
	if !utf8.Valid(v) {
		return "", errFallback
	}
	if len(v) == 0 {
		return "", nil
	}
	if len(v) > 256 {
		return string(v), nil
	}
	if len(d.text) < len(v) {
		d.text = make([]byte, 16<<10)
	}
	n := copy(d.text, v)
	s := unsafe.String(&d.text[0], n)
	d.text = d.text[n:]
	return s, nil
}

// name returns v as an interned string: op names, devices and attr names
// repeat across a graph.
func (d *wireDecoder) name(v []byte) (string, error) {
	// A graph has few op and attr names, met over and over: the last one
	// of each slot of a small table, by length and end bytes, is found
	// without hashing the whole name.
	var slot *string
	if len(v) > 0 {
		slot = &d.recentNames[(len(v)*31+int(v[0])+7*int(v[len(v)-1]))%len(d.recentNames)]
		if *slot == string(v) {
			return *slot, nil
		}
	}
	s, ok := d.intern[string(v)]
	if !ok {
		var err error
		if s, err = d.str(v); err != nil {
			return "", err
		}
		d.intern[s] = s
	}
	if slot != nil {
		*slot = s
	}
	return s, nil
}

// copyBytes copies a small bytes field into the byte arena; empty stays
// empty but not nil, as proto.Unmarshal leaves it.
func (d *wireDecoder) copyBytes(v []byte) []byte {
	if len(v) > 256 {
		return append([]byte{}, v...)
	}
	if len(d.bytes) < len(v) || len(d.bytes) == 0 {
		d.bytes = make([]byte, 16<<10)
	}
	out := d.bytes[:len(v):len(v)]
	copy(out, v)
	d.bytes = d.bytes[len(v):]
	return out
}

// field is one field record: its number and wire type, its value (for a
// bytes field the payload, else the encoded value), its varint when typ is
// VarintType, and the whole record (tag included) for passing on.
type field struct {
	num    protowire.Number
	typ    protowire.Type
	val    []byte
	varint uint64
	record []byte
}

// next reads the field record at the start of b and returns the rest.
// A record with a one-byte tag and a one-byte length or varint (most of a
// graph's names, inputs and attr entries) is read without the general
// decoding; anything else, a malformed record included, takes it.
func next(b []byte) (field, []byte, error) {
	if len(b) >= 2 && b[0] >= 1<<3 && b[0] < 0x80 && b[1] < 0x80 {
		switch protowire.Type(b[0] & 7) {
		case protowire.BytesType:
			if end := 2 + int(b[1]); end <= len(b) {
				return field{num: protowire.Number(b[0] >> 3), typ: protowire.BytesType, val: b[2:end], record: b[:end]}, b[end:], nil
			}
		case protowire.VarintType:
			return field{num: protowire.Number(b[0] >> 3), typ: protowire.VarintType, varint: uint64(b[1]), record: b[:2]}, b[2:], nil
		}
	}
	return nextGeneral(b)
}

// nextGeneral reads one record of any form with protowire: what next does
// for records its short path does not take.
func nextGeneral(b []byte) (field, []byte, error) {
	num, typ, n := protowire.ConsumeTag(b)
	if n < 0 {
		return field{}, nil, errFallback
	}
	f := field{num: num, typ: typ}
	var m int
	switch typ {
	case protowire.BytesType:
		f.val, m = protowire.ConsumeBytes(b[n:])
	case protowire.VarintType:
		f.varint, m = protowire.ConsumeVarint(b[n:])
	default:
		m = protowire.ConsumeFieldValue(num, typ, b[n:])
		if m >= 0 {
			f.val = b[n : n+m]
		}
	}
	if m < 0 {
		return field{}, nil, errFallback
	}
	f.record = b[:n+m]
	return f, b[n+m:], nil
}

// rest collects the records of fields the decoder leaves to
// proto.Unmarshal, for one message at nesting level depth.
type rest struct {
	buf   []byte
	depth int
}

func (r *rest) add(f field) { r.buf = append(r.buf, f.record...) }

// into merges the collected fields into m as proto.Unmarshal would have,
// with the recursion budget left at m's level.
func (r *rest) into(m proto.Message) error {
	if len(r.buf) == 0 {
		return nil
	}
	err := proto.UnmarshalOptions{Merge: true, RecursionLimit: protowireLimit - r.depth}.Unmarshal(r.buf, m)
	if err != nil {
		return errFallback
	}
	return nil
}

// protowireLimit is proto.Unmarshal's default recursion limit.
const protowireLimit = protowire.DefaultRecursionLimit

// message decodes the fields of m at nesting level depth: take decodes the
// ones the decoder follows (and says so), and the others go to
// proto.Unmarshal.
func message(b []byte, m proto.Message, depth int, take func(f field) (bool, error)) error {
	r := rest{depth: depth}
	for len(b) > 0 {
		f, tail, err := next(b)
		if err != nil {
			return err
		}
		b = tail
		if f.typ == protowire.BytesType {
			taken, err := take(f)
			if err != nil {
				return err
			}
			if taken {
				continue
			}
		}
		r.add(f)
	}
	return r.into(m)
}

func (d *wireDecoder) savedModel(b []byte, m *mgpb.SavedModel) error {
	return message(b, m, 0, func(f field) (bool, error) {
		if f.num != 2 {
			return false, nil
		}
		mg := &mgpb.MetaGraphDef{}
		m.MetaGraphs = append(m.MetaGraphs, mg)
		return true, d.metaGraph(f.val, mg, 1)
	})
}

func (d *wireDecoder) metaGraph(b []byte, m *mgpb.MetaGraphDef, depth int) error {
	return message(b, m, depth, func(f field) (bool, error) {
		if f.num != 2 {
			return false, nil
		}
		if m.GraphDef != nil {
			return true, errFallback // a second graph_def merges into the first
		}
		m.GraphDef = &gpb.GraphDef{}
		return true, d.graphDef(f.val, m.GraphDef, depth+1)
	})
}

func (d *wireDecoder) graphDef(b []byte, g *gpb.GraphDef, depth int) error {
	return message(b, g, depth, func(f field) (bool, error) {
		switch f.num {
		case 1:
			n, err := d.nodeDef(f.val, depth+1)
			g.Node = appendNode(g.Node, n)
			return true, err
		case 2:
			if g.Library != nil {
				return true, errFallback
			}
			g.Library = &fpb.FunctionDefLibrary{}
			return true, d.library(f.val, g.Library, depth+1)
		}
		return false, nil
	})
}

func (d *wireDecoder) library(b []byte, l *fpb.FunctionDefLibrary, depth int) error {
	return message(b, l, depth, func(f field) (bool, error) {
		if f.num != 1 {
			return false, nil
		}
		fd := &fpb.FunctionDef{}
		l.Function = append(l.Function, fd)
		return true, d.functionDef(f.val, fd, depth+1)
	})
}

func (d *wireDecoder) functionDef(b []byte, fd *fpb.FunctionDef, depth int) error {
	return message(b, fd, depth, func(f field) (bool, error) {
		if f.num != 3 {
			return false, nil
		}
		n, err := d.nodeDef(f.val, depth+1)
		fd.NodeDef = appendNode(fd.NodeDef, n)
		return true, err
	})
}

// appendNode appends n to a graph's or function's nodes, doubling their
// array when full: append grows a large slice by a quarter at a time, and
// a graph of 200,000 nodes would allocate five times its array's size.
func appendNode(nodes []*nodepb.NodeDef, n *nodepb.NodeDef) []*nodepb.NodeDef {
	if len(nodes) == cap(nodes) && len(nodes) >= 256 {
		nodes = append(make([]*nodepb.NodeDef, 0, 2*len(nodes)), nodes...)
	}
	return append(nodes, n)
}

// nodeDef decodes one NodeDef at nesting level depth; one the decoder does
// not follow is decoded by proto.Unmarshal.
func (d *wireDecoder) nodeDef(b []byte, depth int) (*nodepb.NodeDef, error) {
	n := d.nodes.New()
	if err := d.fastNodeDef(b, n, depth); err != nil {
		if d.holes != nil {
			return nil, errFallback
		}
		d.fallbacks++
		opts := proto.UnmarshalOptions{RecursionLimit: protowireLimit - depth}
		if opts.Unmarshal(b, n) != nil {
			return nil, errFallback
		}
	}
	d.nodeDefs++
	d.inputs += len(n.Input)
	return n, nil
}

func (d *wireDecoder) fastNodeDef(b []byte, n *nodepb.NodeDef, depth int) error {
	// Count inputs and attrs first, so that each is one allocation, and
	// find the attr entries' bytes when they are in one run.
	inputs, attrs := 0, 0
	attrStart, attrEnd, attrRun := -1, -1, true
	for p := b; len(p) > 0; {
		at := len(b) - len(p)
		f, tail, err := next(p)
		if err != nil {
			return err
		}
		p = tail
		if f.typ == protowire.BytesType {
			switch f.num {
			case 3:
				inputs++
			case 5:
				attrs++
				if attrStart < 0 {
					attrStart = at
				} else if attrEnd != at {
					attrRun = false
				}
				attrEnd = len(b) - len(p)
			}
		}
	}
	if inputs > 0 {
		n.Input = d.strSlice.Take(inputs)[:0]
	}
	// The attr map of a NodeDef whose attr entries are the bytes of an
	// earlier one's is that one's (see sharedMapMax).
	var attrBytes []byte
	sharedMap := false
	if attrs > 0 && attrRun && attrEnd-attrStart <= sharedMapMax {
		attrBytes = b[attrStart:attrEnd]
		n.Attr, sharedMap = d.sharedMaps[string(attrBytes)]
	}
	if attrs > 0 && !sharedMap {
		n.Attr = make(map[string]*attrpb.AttrValue, attrs)
	}
	shareMap := attrBytes != nil && !sharedMap
	r := rest{depth: depth}
	for len(b) > 0 {
		f, tail, err := next(b)
		if err != nil {
			return err
		}
		b = tail
		if f.typ != protowire.BytesType || f.num < 1 || f.num > 5 {
			r.add(f)
			continue
		}
		switch f.num {
		case 1:
			n.Name, err = d.str(f.val)
		case 2:
			n.Op, err = d.name(f.val)
		case 3:
			var s string
			s, err = d.str(f.val)
			n.Input = append(n.Input, s)
		case 4:
			n.Device, err = d.name(f.val)
		case 5:
			if sharedMap {
				continue
			}
			var shared bool
			shared, err = d.attrEntry(f.val, n.Attr, depth+1, true)
			shareMap = shareMap && shared
		}
		if err != nil {
			return err
		}
	}
	if err := r.into(n); err != nil {
		return err
	}
	if shareMap {
		if d.sharedMaps == nil {
			d.sharedMaps = map[string]map[string]*attrpb.AttrValue{}
		}
		d.sharedMaps[string(attrBytes)] = n.Attr
	}
	return nil
}

// attrEntry decodes one map<string, AttrValue> entry (at depth) into m: the
// key, then the value, as every encoder writes them (anything else falls
// back). With share, a small value a NodeDef of the file had already is
// that NodeDef's message (see sharedMax), and shared reports whether the
// value is one shared so.
func (d *wireDecoder) attrEntry(b []byte, m map[string]*attrpb.AttrValue, depth int, share bool) (shared bool, err error) {
	k, b, err := next(b)
	if err != nil || k.num != 1 || k.typ != protowire.BytesType {
		return false, errFallback
	}
	v, b, err := next(b)
	if err != nil || v.num != 2 || v.typ != protowire.BytesType || len(b) != 0 {
		return false, errFallback
	}
	key, err := d.name(k.val)
	if err != nil {
		return false, err
	}
	share = share && len(v.val) <= sharedMax
	if share {
		if a, ok := d.shared[string(v.val)]; ok {
			m[key] = a
			return true, nil
		}
	}
	// A small tensor is shared from its second occurrence on, so that a
	// graph of distinct constants does not fill d.shared.
	var slot *tensorSlot
	if share && len(v.val) > 0 && v.val[0] == tensorTag {
		slot = d.recentTensor(v.val)
		if a := slot.a; a != nil && string(slot.key) == string(v.val) {
			d.share(v.val, a)
			m[key] = a
			return true, nil
		}
	}
	a := d.attrs.New()
	if err := d.attrValue(v.val, a, depth+1); err != nil {
		return false, err
	}
	m[key] = a
	if slot != nil && smallTensor(a) {
		slot.key, slot.a = append(slot.key[:0], v.val...), a
		return false, nil
	}
	share = share && Shareable(a)
	if share {
		d.share(v.val, a)
	}
	return share, nil
}

// share makes a the message of every later attr value of these bytes.
func (d *wireDecoder) share(b []byte, a *attrpb.AttrValue) {
	if d.shared == nil {
		d.shared = map[string]*attrpb.AttrValue{}
	}
	d.shared[string(b)] = a
}

// tensorTag is the first byte of an AttrValue holding a tensor (field 8,
// length-delimited).
const tensorTag = 8<<3 | byte(protowire.BytesType)

// recentTensors is how many small tensors met once the decoder keeps by
// their bytes (the latest in each of as many slots, by hash), waiting for
// a second occurrence that makes them shared.
const recentTensors = 4096

// tensorSlot is a small tensor value met once, and its bytes (in an
// array of the slot's own, reused).
type tensorSlot struct {
	key []byte
	a   *attrpb.AttrValue
}

// recentTensor is the slot of the tensor value of bytes b.
func (d *wireDecoder) recentTensor(b []byte) *tensorSlot {
	if d.recent == nil {
		d.recent = make([]tensorSlot, recentTensors)
		d.seed = maphash.MakeSeed()
	}
	return &d.recent[maphash.Bytes(d.seed, b)%recentTensors]
}

// smallTensor reports whether a is a tensor the decoder may give the
// NodeDefs whose attr holds its bytes (at most sharedMax of them) one
// message: one read in whole, with no field left to proto.Unmarshal and no
// content left in the file, which nothing completes in place. Frozen
// graphs repeat such constants (shapes, axes, zeros and ones) many times;
// one met a second time is shared from then on (recentTensors).
func smallTensor(a *attrpb.AttrValue) bool {
	t := a.GetTensor()
	return t != nil && len(t.ProtoReflect().GetUnknown()) == 0
}

// Shareable reports whether a holds no message a caller might complete in
// place (a TensorProto Materialize fills) or that nests further (a func):
// whether the decoder gives NodeDefs whose attr holds the same such value
// one message (sharedMax), which graph.Build relies on to do the work of
// a set of attrs once.
func Shareable(a *attrpb.AttrValue) bool {
	switch v := a.GetValue().(type) {
	case *attrpb.AttrValue_Tensor, *attrpb.AttrValue_Func:
		return false
	case *attrpb.AttrValue_List:
		return len(v.List.GetTensor()) == 0 && len(v.List.GetFunc()) == 0
	}
	return true
}

func (d *wireDecoder) attrValue(b []byte, a *attrpb.AttrValue, depth int) error {
	if depth > maxFastDepth {
		return errFallback
	}
	for len(b) > 0 {
		f, tail, err := next(b)
		if err != nil {
			return err
		}
		b = tail
		if a.Value != nil {
			return errFallback // a oneof set twice: replaced or merged
		}
		switch {
		case f.num == 1 && f.typ == protowire.BytesType:
			l := d.lists.New()
			if err := d.listValue(f.val, l, depth+1); err != nil {
				return err
			}
			v := d.vList.New()
			v.List = l
			a.Value = v
		case f.num == 2 && f.typ == protowire.BytesType:
			v := d.vS.New()
			v.S = d.copyBytes(f.val)
			a.Value = v
		case f.num == 3 && f.typ == protowire.VarintType:
			v := d.vI.New()
			v.I = int64(f.varint)
			a.Value = v
		case f.num == 4 && f.typ == protowire.Fixed32Type:
			v := d.vF.New()
			v.F = math.Float32frombits(fixed32le(f.val))
			a.Value = v
		case f.num == 5 && f.typ == protowire.VarintType:
			v := d.vB.New()
			v.B = f.varint != 0
			a.Value = v
		case f.num == 6 && f.typ == protowire.VarintType:
			v := d.vType.New()
			v.Type = tpb.DataType(int32(f.varint))
			a.Value = v
		case f.num == 7 && f.typ == protowire.BytesType:
			s, err := d.shape(f.val)
			if err != nil {
				return err
			}
			v := d.vShape.New()
			v.Shape = s
			a.Value = v
		case f.num == 8 && f.typ == protowire.BytesType:
			t, err := d.tensor(f.val, depth+1)
			if err != nil {
				return err
			}
			v := d.vTensor.New()
			v.Tensor = t
			a.Value = v
		case f.num == 9 && f.typ == protowire.BytesType:
			s, err := d.str(f.val)
			if err != nil {
				return err
			}
			v := d.vPlace.New()
			v.Placeholder = s
			a.Value = v
		case f.num == 10 && f.typ == protowire.BytesType:
			fn, err := d.nameAttrList(f.val, depth+1)
			if err != nil {
				return err
			}
			v := d.vFunc.New()
			v.Func = fn
			a.Value = v
		default:
			return errFallback // unknown fields
		}
	}
	return nil
}

func (d *wireDecoder) listValue(b []byte, l *attrpb.AttrValue_ListValue, depth int) error {
	for len(b) > 0 {
		f, tail, err := next(b)
		if err != nil {
			return err
		}
		b = tail
		switch f.num {
		case 2:
			if f.typ != protowire.BytesType {
				return errFallback
			}
			l.S = append(l.S, d.copyBytes(f.val))
		case 3:
			l.I, err = appendVarints(l.I, f, func(v uint64) int64 { return int64(v) })
		case 4:
			l.F, err = appendFixed32s(l.F, f)
		case 5:
			l.B, err = appendVarints(l.B, f, func(v uint64) bool { return v != 0 })
		case 6:
			l.Type, err = appendVarints(l.Type, f, func(v uint64) tpb.DataType { return tpb.DataType(int32(v)) })
		case 7:
			if f.typ != protowire.BytesType {
				return errFallback
			}
			var s *shapepb.TensorShapeProto
			if s, err = d.shape(f.val); err == nil {
				l.Shape = append(l.Shape, s)
			}
		case 8:
			if f.typ != protowire.BytesType {
				return errFallback
			}
			var t *tensorpb.TensorProto
			if t, err = d.tensor(f.val, depth+1); err == nil {
				l.Tensor = append(l.Tensor, t)
			}
		case 9:
			if f.typ != protowire.BytesType {
				return errFallback
			}
			var fn *attrpb.NameAttrList
			if fn, err = d.nameAttrList(f.val, depth+1); err == nil {
				l.Func = append(l.Func, fn)
			}
		default:
			return errFallback
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (d *wireDecoder) nameAttrList(b []byte, depth int) (*attrpb.NameAttrList, error) {
	if depth > maxFastDepth {
		return nil, errFallback
	}
	l := d.funcs.New()
	for len(b) > 0 {
		f, tail, err := next(b)
		if err != nil {
			return nil, err
		}
		b = tail
		switch {
		case f.num == 1 && f.typ == protowire.BytesType:
			if l.Name, err = d.name(f.val); err != nil {
				return nil, err
			}
		case f.num == 2 && f.typ == protowire.BytesType:
			if l.Attr == nil {
				l.Attr = map[string]*attrpb.AttrValue{}
			}
			if _, err := d.attrEntry(f.val, l.Attr, depth+1, false); err != nil {
				return nil, err
			}
		default:
			return nil, errFallback
		}
	}
	return l, nil
}

// tensorShape decodes a TensorProto's shape: a small one the file had
// already is that tensor's message (see sharedMax), as the constants of a
// layer or a tower have the same shapes.
func (d *wireDecoder) tensorShape(b []byte) (*shapepb.TensorShapeProto, error) {
	if len(b) > sharedMax {
		return d.shape(b)
	}
	if s, ok := d.sharedShapes[string(b)]; ok {
		return s, nil
	}
	s, err := d.shape(b)
	if err != nil {
		return nil, err
	}
	if d.sharedShapes == nil {
		d.sharedShapes = map[string]*shapepb.TensorShapeProto{}
	}
	d.sharedShapes[string(b)] = s
	return s, nil
}

func (d *wireDecoder) shape(b []byte) (*shapepb.TensorShapeProto, error) {
	s := d.shapes.New()
	dims := 0
	for p := b; len(p) > 0; {
		f, tail, err := next(p)
		if err != nil {
			return nil, err
		}
		p = tail
		if f.num == 2 {
			dims++
		}
	}
	if dims > 0 {
		s.Dim = d.dimPtrs.Take(dims)[:0]
	}
	for len(b) > 0 {
		f, tail, err := next(b)
		if err != nil {
			return nil, err
		}
		b = tail
		switch {
		case f.num == 2 && f.typ == protowire.BytesType:
			dim, err := d.dim(f.val)
			if err != nil {
				return nil, err
			}
			s.Dim = append(s.Dim, dim)
		case f.num == 3 && f.typ == protowire.VarintType:
			s.UnknownRank = f.varint != 0
		default:
			return nil, errFallback
		}
	}
	return s, nil
}

func (d *wireDecoder) dim(b []byte) (*shapepb.TensorShapeProto_Dim, error) {
	dim := d.dims.New()
	for len(b) > 0 {
		f, tail, err := next(b)
		if err != nil {
			return nil, err
		}
		b = tail
		switch {
		case f.num == 1 && f.typ == protowire.VarintType:
			dim.Size = int64(f.varint)
		case f.num == 2 && f.typ == protowire.BytesType:
			if dim.Name, err = d.str(f.val); err != nil {
				return nil, err
			}
		default:
			return nil, errFallback
		}
	}
	return dim, nil
}

// tensor decodes a TensorProto: dtype, shape, version and tensor_content
// (kept in the file's buffer from aliasMin bytes on) and the common typed
// value lists; the rarer fields go through proto.Unmarshal.
func (d *wireDecoder) tensor(b []byte, depth int) (*tensorpb.TensorProto, error) {
	t := d.tensors.New()
	r := rest{depth: depth}
	cut, content, marker := -1, false, []byte(nil)
	for len(b) > 0 {
		f, tail, err := next(b)
		if err != nil {
			return nil, err
		}
		b = tail
		switch {
		case f.num == 1 && f.typ == protowire.VarintType:
			t.Dtype = tpb.DataType(int32(f.varint))
		case f.num == 2 && f.typ == protowire.BytesType:
			if t.TensorShape != nil {
				return nil, errFallback
			}
			if t.TensorShape, err = d.tensorShape(f.val); err != nil {
				return nil, err
			}
		case f.num == 3 && f.typ == protowire.VarintType:
			t.VersionNumber = int32(f.varint)
		case f.num == 4 && f.typ == protowire.BytesType:
			content = true
			switch {
			case len(f.val) == 0:
				t.TensorContent = nil
			case len(f.val) >= aliasMin && d.holes == nil:
				t.TensorContent = f.val[:len(f.val):len(f.val)]
			default:
				t.TensorContent = d.copyBytes(f.val)
			}
		case f.num == 5:
			t.FloatVal, err = appendFixed32s(t.FloatVal, f)
		case f.num == 7:
			t.IntVal, err = appendVarints(t.IntVal, f, func(v uint64) int32 { return int32(v) })
		case f.num == 10:
			t.Int64Val, err = appendVarints(t.Int64Val, f, func(v uint64) int64 { return int64(v) })
		case f.num == 11:
			t.BoolVal, err = appendVarints(t.BoolVal, f, func(v uint64) bool { return v != 0 })
		case f.num == 13:
			t.HalfVal, err = appendVarints(t.HalfVal, f, func(v uint64) int32 { return int32(v) })
		case f.num == 8 && f.typ == protowire.BytesType:
			t.StringVal = append(t.StringVal, d.copyBytes(f.val))
		case f.num == holeField && f.typ == protowire.BytesType && d.holes != nil:
			i, n := protowire.ConsumeVarint(f.val)
			if n != len(f.val) || i >= uint64(len(d.holes)) || d.claimed[i] || cut >= 0 {
				return nil, errFallback
			}
			d.claimed[i], cut = true, int(i)
			marker = d.copyBytes(f.record)
		default:
			r.add(f)
		}
		if err != nil {
			return nil, err
		}
	}
	if err := r.into(t); err != nil {
		return nil, err
	}
	if cut >= 0 {
		if content || len(t.ProtoReflect().GetUnknown()) > 0 {
			return nil, errFallback // tensor_content twice (the last one wins), or unknown fields
		}
		t.ProtoReflect().SetUnknown(marker)
	}
	return t, nil
}

func fixed32le(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// appendVarints appends a repeated varint field's values, packed or not, as
// proto.Unmarshal does.
func appendVarints[T any](out []T, f field, conv func(uint64) T) ([]T, error) {
	switch f.typ {
	case protowire.VarintType:
		return append(out, conv(f.varint)), nil
	case protowire.BytesType:
		n := 0
		for _, c := range f.val {
			if c < 0x80 {
				n++
			}
		}
		if out == nil {
			out = make([]T, 0, n)
		}
		for b := f.val; len(b) > 0; {
			v, m := protowire.ConsumeVarint(b)
			if m < 0 {
				return nil, errFallback
			}
			out = append(out, conv(v))
			b = b[m:]
		}
		return out, nil
	}
	return nil, errFallback
}

// appendFixed32s appends a repeated float field's values, packed or not.
func appendFixed32s(out []float32, f field) ([]float32, error) {
	switch f.typ {
	case protowire.Fixed32Type:
		return append(out, math.Float32frombits(fixed32le(f.val))), nil
	case protowire.BytesType:
		if len(f.val)%4 != 0 {
			return nil, errFallback
		}
		if out == nil {
			out = make([]float32, 0, len(f.val)/4)
		}
		for b := f.val; len(b) > 0; b = b[4:] {
			out = append(out, math.Float32frombits(fixed32le(b)))
		}
		return out, nil
	}
	return nil, errFallback
}
