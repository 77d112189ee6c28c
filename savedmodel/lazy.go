package savedmodel

import (
	"bufio"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"sync"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	gpb "github.com/wamuir/graft/tensorflow/core/framework/graph_go_proto"
	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"
	tensorpb "github.com/wamuir/graft/tensorflow/core/framework/tensor_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// A large binary model is loaded without reading its large constants: a
// Const's tensor_content of lazyMin bytes or more stays in the file, and
// only its place (offset, length, CRC-32C) is kept. inspect and scan never
// read those bytes (shape inference decodes the values of integer
// tensors of at most KeptIntContent bytes, which stay in memory, and
// validation needs only the length); whatever needs them calls
// Model.Materialize first: the executor,
// rewrite before it copies the model, Write, and graph's comparison of
// duplicate library functions.
//
// The load reads the file twice through a small buffer, never whole: the
// first pass walks the messages down to tensor_content and finds the large
// ones, the second reads the file into a buffer of exactly its size without
// them, each cut replaced by a marker (a field numbered holeField holding
// the cut's index) and the lengths of the enclosing messages rewritten in
// place (padded varints, so that nothing moves). The wire decoder decodes
// that buffer as it decodes a file and gives each marked TensorProto its
// cut; anything unusual (a marker it does not claim exactly once, a NodeDef
// it would hand to proto.Unmarshal, a different kind by the sniffer, a file
// that changes between the passes) makes the load read the whole file and
// decode it as before, so that the result and the errors stay
// proto.Unmarshal's.

// lazyMin is the smallest tensor_content left in the file (below it,
// what a Model keeps of a content left in the file, about 70 bytes, would
// be more than 2% of it), and lazyFileMin the smallest file loaded that
// way (smaller ones are read whole). Variables so that tests can lower
// them.
var (
	lazyMin     int64 = 4 << 10
	lazyFileMin int64 = 1 << 20
	keptInt     int64 = KeptIntContent
)

// KeptIntContent is the largest tensor_content of an int32 or int64 tensor
// that a load always keeps in memory: shape inference decodes the values
// of integer Consts of up to 4,096 elements (graph/shape checks that they
// fit), and never reads a model's file.
const KeptIntContent = 32 << 10

// holeField is the field number of the marker that replaces a cut
// tensor_content in the compacted buffer; no TensorFlow message uses it.
const holeField = protowire.MaxValidNumber

// errNotLazy makes the load read the whole file instead.
var errNotLazy = errors.New("not loaded lazily")

// errWrongKind says that the file is not the kind the compactor assumed.
var errWrongKind = errors.New("not this kind")

// hole is a tensor_content left in the file: its payload's offset and
// length, and the CRC-32C of the payload as read at load.
type hole struct {
	off, n int64
	crc    uint32
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// lazyContents is what a Model keeps of the tensor contents left in its
// file. A TensorProto whose content was left there holds, instead, the
// marker record (holeField, the hole's index) as an unknown field: the
// marker goes wherever the message goes (proto.Clone copies it), so that
// Materialize completes a copy of the model as well as the model, and
// proto.Marshal never writes a model without its constants unnoticed
// (Write materializes first; the marker is no field TensorFlow knows).
type lazyContents struct {
	file  string
	info  os.FileInfo // as loaded
	holes []hole

	mu   sync.Mutex
	data [][]byte // per hole once read
	used []bool   // whether data[i] went into a message already
	err  error    // a failed read: the file changed
	done map[*gpb.GraphDef]bool
}

// LazyContents is the number of Const tensor contents of the model that
// the load left in its file and Materialize has not read yet.
func (m *Model) LazyContents() int {
	if m.lazy == nil {
		return 0
	}
	m.lazy.mu.Lock()
	defer m.lazy.mu.Unlock()
	return len(marked(m))
}

// Materialize reads the tensor contents the load left in the model's file
// into their TensorProtos, so that the model's messages are complete: call
// it before marshaling, comparing or executing them. It checks that the
// file is the one loaded (the same file, size and modification time, and
// each content's CRC-32C) and fails with an *Error naming the file
// otherwise, setting nothing. A copy of the model (its messages cloned
// before or after) is completed the same way. Safe for concurrent use; a
// model that was not loaded lazily has nothing to do.
func (m *Model) Materialize() error {
	l := m.lazy
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	all := true
	for _, mg := range m.MetaGraphs {
		all = all && l.done[mg.Def.GetGraphDef()]
	}
	if all {
		return nil
	}
	ts := marked(m)
	var need []int
	for _, t := range ts {
		if i := markerOf(t); l.data[i] == nil {
			need = append(need, i)
		}
	}
	if len(need) > 0 {
		if l.err != nil {
			return l.err
		}
		if l.err = l.read(need); l.err != nil {
			return l.err
		}
	}
	for _, t := range ts {
		i := markerOf(t)
		b := l.data[i]
		if l.used[i] {
			b = append([]byte(nil), b...) // a copy's own content
		}
		l.used[i] = true
		t.TensorContent = b
		t.ProtoReflect().SetUnknown(nil)
	}
	for _, mg := range m.MetaGraphs {
		l.done[mg.Def.GetGraphDef()] = true
	}
	return nil
}

// marked is every TensorProto of m's graphs holding a marker.
func marked(m *Model) []*tensorpb.TensorProto {
	var out []*tensorpb.TensorProto
	visit := func(nodes []*nodepb.NodeDef) {
		for _, n := range nodes {
			for _, a := range n.GetAttr() {
				if t := a.GetTensor(); t != nil && markerOf(t) >= 0 {
					out = append(out, t)
				}
			}
		}
	}
	for _, mg := range m.MetaGraphs {
		gd := mg.Def.GetGraphDef()
		visit(gd.GetNode())
		for _, f := range gd.GetLibrary().GetFunction() {
			visit(f.GetNodeDef())
		}
	}
	return out
}

// markerOf is the hole index of t's marker, or -1.
func markerOf(t *tensorpb.TensorProto) int {
	u := t.ProtoReflect().GetUnknown()
	if len(u) == 0 {
		return -1
	}
	num, typ, n := protowire.ConsumeTag(u)
	if n < 0 || num != holeField || typ != protowire.BytesType {
		return -1
	}
	v, m := protowire.ConsumeBytes(u[n:])
	if m < 0 || n+m != len(u) {
		return -1
	}
	i, k := protowire.ConsumeVarint(v)
	if k != len(v) || i > math.MaxInt32 {
		return -1
	}
	return int(i)
}

// read reads the holes need from the file into data, checking that the
// file is the one loaded; on an error it sets nothing.
func (l *lazyContents) read(need []int) error {
	changed := func(format string, args ...any) error {
		return &Error{File: l.file, Err: fmt.Errorf("changed since it was loaded (its large constants are read from it when needed): "+format, args...)}
	}
	f, err := os.Open(l.file)
	if err != nil {
		return changed("%v", unwrapPathError(err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return changed("%v", unwrapPathError(err))
	}
	if was := l.info; fi.Size() != was.Size() || !fi.ModTime().Equal(was.ModTime()) || !os.SameFile(fi, was) {
		return changed("%d bytes modified %s, was %d bytes modified %s",
			fi.Size(), fi.ModTime().UTC().Format(time.RFC3339Nano), was.Size(), was.ModTime().UTC().Format(time.RFC3339Nano))
	}
	sort.Ints(need)
	got := make(map[int][]byte, len(need))
	for _, i := range need {
		h := l.holes[i]
		if got[i] != nil {
			continue
		}
		b := make([]byte, h.n)
		if _, err := f.ReadAt(b, h.off); err != nil {
			return changed("reading %d bytes at %d: %v", h.n, h.off, err)
		}
		if crc32.Checksum(b, castagnoli) != h.crc {
			return changed("the %d bytes at %d differ", h.n, h.off)
		}
		got[i] = b
	}
	for i, b := range got {
		l.data[i] = b
	}
	return nil
}

// contentLen is the length of t's tensor_content, also when it was left
// in the file.
func (m *Model) contentLen(t *tensorpb.TensorProto) int64 {
	if m.lazy != nil {
		if i := markerOf(t); i >= 0 && i < len(m.lazy.holes) {
			return m.lazy.holes[i].n
		}
	}
	return int64(len(t.GetTensorContent()))
}

// loadLazy loads the binary model in f (size bytes, modified at mtime)
// leaving its large tensor contents in the file; errNotLazy (or any other
// error) means that the whole file must be read instead.
func loadLazy(file string, f *os.File, fi os.FileInfo) (*Model, error) {
	for _, kind := range []protoKind{kindSavedModel, kindMetaGraph, kindGraphDef} {
		c := &compactor{f: f, size: fi.Size()}
		err := c.run(kind)
		if errors.Is(err, errWrongKind) {
			continue
		}
		if err != nil {
			return nil, errNotLazy
		}
		if len(c.holes) == 0 {
			continue // nothing to leave in the file, or another kind
		}
		dry := c.holes
		c = &compactor{f: f, size: fi.Size(), out: make([]byte, 0, c.n), want: dry}
		if err := c.run(kind); err != nil || int64(len(c.out)) != int64(cap(c.out)) || len(c.holes) != len(dry) {
			return nil, errNotLazy
		}
		if now, err := f.Stat(); err != nil || now.Size() != fi.Size() || !now.ModTime().Equal(fi.ModTime()) {
			return nil, errNotLazy
		}
		if k, err := sniffBinary(c.out); err != nil || k != kind {
			return nil, errNotLazy
		}
		d := newWireDecoder()
		d.holes = c.holes
		d.claimed = make([]bool, len(c.holes))
		msg, err := d.decode(kind, c.out)
		if err != nil || slices.Contains(d.claimed, false) {
			return nil, errNotLazy
		}
		m, err := fromMessage(msg, false)
		if err != nil {
			return nil, errNotLazy // the whole-file load gives the error
		}
		m.lazy = &lazyContents{file: file, info: fi, holes: c.holes,
			data: make([][]byte, len(c.holes)), used: make([]bool, len(c.holes)), done: map[*gpb.GraphDef]bool{}}
		if len(marked(m)) != len(c.holes) {
			return nil, errNotLazy // a marked tensor the graphs do not hold (a map entry given twice)
		}
		return m, nil
	}
	return nil, errNotLazy
}

// level is the message type the compactor is in.
type level int

const (
	lvNone level = iota
	lvSavedModel
	lvMetaGraph
	lvGraph
	lvLibrary
	lvFunction
	lvNode
	lvAttrEntry
	lvAttrValue
	lvTensor
	lvContent
)

// child is the message type of field num of a message of type lv, on the
// way down to tensor_content; lvNone for every other field.
func (lv level) child(num protowire.Number) level {
	switch {
	case lv == lvSavedModel && num == 2:
		return lvMetaGraph
	case lv == lvMetaGraph && num == 2:
		return lvGraph
	case lv == lvGraph && num == 1:
		return lvNode
	case lv == lvGraph && num == 2:
		return lvLibrary
	case lv == lvLibrary && num == 1:
		return lvFunction
	case lv == lvFunction && num == 3:
		return lvNode
	case lv == lvNode && num == 5:
		return lvAttrEntry
	case lv == lvAttrEntry && num == 2:
		return lvAttrValue
	case lv == lvAttrValue && num == 8:
		return lvTensor
	case lv == lvTensor && num == 4:
		return lvContent
	}
	return lvNone
}

// compactor streams a model file through a small buffer, finding the
// tensor contents of lazyMin bytes or more (the dry pass, out nil) or
// copying the file into out without them (want holds the dry pass's
// holes).
type compactor struct {
	f     *os.File
	r     *bufio.Reader
	pos   int64 // file offset of the next byte r gives
	size  int64
	n     int64  // bytes of output so far
	out   []byte // nil in the dry pass
	want  []hole
	holes []hole
}

var errBadWire = errors.New("bad wire")

func (c *compactor) run(kind protoKind) error {
	if _, err := c.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	c.r = bufio.NewReaderSize(c.f, 256<<10)
	lv := lvGraph
	switch kind {
	case kindSavedModel:
		lv = lvSavedModel
	case kindMetaGraph:
		lv = lvMetaGraph
	}
	return c.message(lv, c.size, true)
}

func (c *compactor) readByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err != nil {
		return 0, errBadWire
	}
	c.pos++
	if c.out != nil {
		if len(c.out) == cap(c.out) {
			return 0, errBadWire
		}
		c.out = append(c.out, b)
	}
	c.n++
	return b, nil
}

// varint reads and copies a varint, returning it and its width.
func (c *compactor) varint() (uint64, int, error) {
	var v uint64
	for i := 0; i < 10; i++ {
		b, err := c.readByte()
		if err != nil {
			return 0, 0, err
		}
		v |= uint64(b&0x7f) << (7 * i)
		if b < 0x80 {
			return v, i + 1, nil
		}
	}
	return 0, 0, errBadWire
}

// copyN copies (or, in the dry pass, skips) n bytes.
func (c *compactor) copyN(n int64) error {
	if c.out == nil {
		return c.skip(n)
	}
	if int64(cap(c.out)-len(c.out)) < n {
		return errBadWire
	}
	k := len(c.out)
	c.out = c.out[:k+int(n)]
	if _, err := io.ReadFull(c.r, c.out[k:]); err != nil {
		return errBadWire
	}
	c.pos += n
	c.n += n
	return nil
}

// skip skips n bytes of the file without copying them.
func (c *compactor) skip(n int64) error {
	if n <= int64(c.r.Buffered()) {
		c.r.Discard(int(n))
		c.pos += n
		c.n += n
		return nil
	}
	if c.pos+n > c.size {
		return errBadWire
	}
	c.pos += n
	c.n += n
	if _, err := c.f.Seek(c.pos, io.SeekStart); err != nil {
		return err
	}
	c.r.Reset(c.f)
	return nil
}

// hash reads n bytes and returns their CRC-32C.
func (c *compactor) hash(n int64) (uint32, error) {
	var crc uint32
	for n > 0 {
		k := int(min(n, int64(c.r.Size())))
		b, _ := c.r.Peek(k)
		if len(b) == 0 {
			return 0, errBadWire
		}
		crc = crc32.Update(crc, castagnoli, b)
		c.r.Discard(len(b))
		c.pos += int64(len(b))
		n -= int64(len(b))
	}
	return crc, nil
}

// message copies the n bytes of a message of type lv (the file's message
// when root), descending into the fields on the way to tensor_content
// that can hold lazyMin bytes.
func (c *compactor) message(lv level, n int64, root bool) error {
	end := c.pos + n
	if end > c.size {
		return errBadWire
	}
	var seen map[protowire.Number]bool
	if root {
		seen = map[protowire.Number]bool{}
	}
	dtype := -1 // a TensorProto's dtype, once read
	for c.pos < end {
		tagAt := c.n
		v, _, err := c.varint()
		if err != nil {
			return err
		}
		num, typ := protowire.DecodeTag(v)
		if num < protowire.MinValidNumber {
			return errBadWire
		}
		if root {
			if !rootAllows(lv, num, typ, seen[num]) {
				return errWrongKind
			}
			seen[num] = true
		}
		switch typ {
		case protowire.VarintType:
			var v uint64
			v, _, err = c.varint()
			if lv == lvTensor && num == 1 {
				dtype = int(int32(v))
			}
		case protowire.Fixed32Type:
			err = c.copyN(4)
		case protowire.Fixed64Type:
			err = c.copyN(8)
		case protowire.BytesType:
			err = c.field(lv, num, tagAt, end, dtype)
		default:
			return errBadWire // groups: rare, left to proto.Unmarshal
		}
		if err != nil {
			return err
		}
	}
	if c.pos != end {
		return errBadWire
	}
	if root {
		for _, r := range rootSchema(lv).required {
			if !seen[r] {
				return errWrongKind
			}
		}
	}
	return nil
}

// field copies a bytes field of a message of type lv whose tag began at
// output offset tagAt, after its tag; dtype is a TensorProto's dtype read
// so far (-1: none).
func (c *compactor) field(lv level, num protowire.Number, tagAt, end int64, dtype int) error {
	l, w, err := c.varint()
	if err != nil {
		return err
	}
	if l > uint64(end-c.pos) {
		return errBadWire
	}
	n := int64(l)
	child := lv.child(num)
	switch {
	case child == lvNone || n < lazyMin:
		return c.copyN(n)
	case child == lvContent:
		if n <= keptInt && !(dtype >= 0 && dtype != int(tpb.DataType_DT_INT32) && dtype != int(tpb.DataType_DT_INT64)) {
			return c.copyN(n) // an integer tensor (or one of no dtype yet) shape inference may read
		}
		return c.cut(tagAt, n)
	}
	lenAt, start := c.n-int64(w), c.n
	if err := c.message(child, n, false); err != nil {
		return err
	}
	if c.out != nil {
		putPadded(c.out[lenAt:start], uint64(c.n-start))
	}
	return nil
}

// cut leaves out the tensor_content record that began at output offset
// tagAt, whose n-byte payload is next, and writes its marker instead.
func (c *compactor) cut(tagAt, n int64) error {
	idx := len(c.holes)
	h := hole{off: c.pos, n: n}
	marker := protowire.AppendTag(nil, holeField, protowire.BytesType)
	marker = protowire.AppendBytes(marker, protowire.AppendVarint(nil, uint64(idx)))
	if c.out == nil {
		if err := c.skip(n); err != nil {
			return err
		}
	} else {
		if idx >= len(c.want) || c.want[idx].off != h.off || c.want[idx].n != n {
			return errBadWire
		}
		var err error
		if h.crc, err = c.hash(n); err != nil {
			return err
		}
		c.out = c.out[:tagAt]
		if cap(c.out)-len(c.out) < len(marker) {
			return errBadWire
		}
		c.out = append(c.out, marker...)
	}
	c.n = tagAt + int64(len(marker))
	c.holes = append(c.holes, h)
	return nil
}

// putPadded writes v as a varint filling b exactly (a longer encoding
// than needed is valid wire format); v fits, being at most the length it
// replaces.
func putPadded(b []byte, v uint64) {
	for i := 0; i < len(b)-1; i++ {
		b[i] = byte(v&0x7f) | 0x80
		v >>= 7
	}
	b[len(b)-1] = byte(v)
}

// rootAllows reports whether the file's message of type lv may have field
// num with wire type typ, again when seen (the sniffer's schemas, top
// level only: the sniffer decides).
func rootAllows(lv level, num protowire.Number, typ protowire.Type, seen bool) bool {
	f, ok := rootSchema(lv).fields[num]
	return ok && f.typ == typ && !(seen && f.singular)
}

func rootSchema(lv level) *msgSchema {
	switch lv {
	case lvSavedModel:
		return savedModelSchema
	case lvMetaGraph:
		return metaGraphSchema
	}
	return graphDefSchema
}
