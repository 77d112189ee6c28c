package savedmodel

import (
	"bufio"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	fpb "github.com/wamuir/graft/tensorflow/core/framework/function_go_proto"
	gpb "github.com/wamuir/graft/tensorflow/core/framework/graph_go_proto"
	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"
)

// A large binary file is decoded as it is read, through a small buffer,
// never whole. The messages around the graph (SavedModel, MetaGraphDef,
// GraphDef, FunctionDefLibrary, FunctionDef) are walked field by field:
// the fields the wire decoder decodes by hand are followed, the others
// read whole and merged by proto.Unmarshal, as wire.go does. Each NodeDef
// is read into a reused buffer and decoded there by the wire decoder;
// a large one is copied without its large tensor contents (lazy.go), each
// replaced by a marker, with the lengths of the messages around it
// rewritten in place (padded varints). While walking, the sniffer's
// schema checks (sniff.go) are applied to the same first occurrences that
// sniffBinary checks, so that the file is decoded as the kind sniffBinary
// gives: the kinds are tried in its order, and one that does not fit
// starts the walk again as the next.
//
// Anything the walk does not follow exactly (bad wire, groups, a NodeDef
// the wire decoder would hand to proto.Unmarshal, a second graph_def, a
// file that changes under the walk) makes the load read the whole file
// and decode it as before, so that the result and the errors stay
// proto.Unmarshal's.

var errBadWire = errors.New("bad wire")

// loadStream decodes the binary model file f (as fi describes it) while
// reading it; an error means that the whole file must be read instead.
func loadStream(file string, f *os.File, fi os.FileInfo) (*Model, error) {
	for _, kind := range []protoKind{kindSavedModel, kindMetaGraph, kindGraphDef} {
		// holes stays non-nil: the wire decoder then aliases nothing and
		// leaves nothing to proto.Unmarshal.
		s := &streamer{compactor: compactor{f: f, size: fi.Size(), holes: []hole{}}, d: newWireDecoder()}
		msg, err := s.run(kind)
		if errors.Is(err, errWrongKind) {
			continue
		}
		if err != nil || slices.Contains(s.d.claimed, false) {
			return nil, errNotLazy
		}
		if now, err := f.Stat(); err != nil || now.Size() != fi.Size() || !now.ModTime().Equal(fi.ModTime()) {
			return nil, errNotLazy
		}
		m, err := fromMessage(msg, false)
		if err != nil {
			return nil, errNotLazy // the whole-file load gives the error
		}
		m.setDecoded(s.d.counted())
		if len(s.holes) == 0 {
			return m, nil
		}
		m.lazy = &lazyContents{file: file, info: fi, holes: s.holes,
			data: make([][]byte, len(s.holes)), used: make([]bool, len(s.holes)), done: map[*gpb.GraphDef]bool{}}
		if len(marked(m)) != len(s.holes) {
			return nil, errNotLazy // a marked tensor the graphs do not hold (a map entry given twice)
		}
		return m, nil
	}
	return nil, errNotLazy
}

// streamer decodes a file while reading it (see above).
type streamer struct {
	compactor
	d *wireDecoder
}

func (s *streamer) run(kind protoKind) (proto.Message, error) {
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	s.r = bufio.NewReaderSize(s.f, 256<<10)
	switch kind {
	case kindSavedModel:
		m := &mgpb.SavedModel{}
		return m, s.savedModel(s.size, m, &check{s: savedModelSchema})
	case kindMetaGraph:
		m := &mgpb.MetaGraphDef{}
		return m, s.metaGraph(s.size, m, 0, &check{s: metaGraphSchema})
	}
	m := &gpb.GraphDef{}
	return m, s.graphDef(s.size, m, 0, &check{s: graphDefSchema})
}

func (s *streamer) savedModel(n int64, m *mgpb.SavedModel, k *check) error {
	return s.message(n, m, 0, k, func(num protowire.Number, l int64, nested *check) (bool, error) {
		if num != 2 {
			return false, nil
		}
		mg := &mgpb.MetaGraphDef{}
		m.MetaGraphs = append(m.MetaGraphs, mg)
		return true, s.metaGraph(l, mg, 1, nested)
	})
}

func (s *streamer) metaGraph(n int64, m *mgpb.MetaGraphDef, depth int, k *check) error {
	return s.message(n, m, depth, k, func(num protowire.Number, l int64, nested *check) (bool, error) {
		if num != 2 {
			return false, nil
		}
		if m.GraphDef != nil {
			return true, errFallback // a second graph_def merges into the first
		}
		m.GraphDef = &gpb.GraphDef{}
		return true, s.graphDef(l, m.GraphDef, depth+1, nested)
	})
}

func (s *streamer) graphDef(n int64, g *gpb.GraphDef, depth int, k *check) error {
	return s.message(n, g, depth, k, func(num protowire.Number, l int64, nested *check) (bool, error) {
		switch num {
		case 1:
			nd, err := s.nodeDef(l, depth+1, nested)
			g.Node = appendNode(g.Node, nd)
			return true, err
		case 2:
			if g.Library != nil {
				return true, errFallback
			}
			g.Library = &fpb.FunctionDefLibrary{}
			return true, s.library(l, g.Library, depth+1, nested)
		}
		return false, nil
	})
}

func (s *streamer) library(n int64, lib *fpb.FunctionDefLibrary, depth int, k *check) error {
	return s.message(n, lib, depth, k, func(num protowire.Number, l int64, nested *check) (bool, error) {
		if num != 1 {
			return false, nil
		}
		fd := &fpb.FunctionDef{}
		lib.Function = append(lib.Function, fd)
		return true, s.functionDef(l, fd, depth+1, nested)
	})
}

func (s *streamer) functionDef(n int64, fd *fpb.FunctionDef, depth int, k *check) error {
	return s.message(n, fd, depth, k, func(num protowire.Number, l int64, nested *check) (bool, error) {
		if num != 3 {
			return false, nil
		}
		nd, err := s.nodeDef(l, depth+1, nested)
		fd.NodeDef = appendNode(fd.NodeDef, nd)
		return true, err
	})
}

// nodeDef reads the NodeDef of n bytes that is next, without its large
// tensor contents, and decodes it; k checks it as the sniffer does when
// set.
func (s *streamer) nodeDef(n int64, depth int, k *check) (*nodepb.NodeDef, error) {
	s.out, s.copying = s.out[:0], true
	var err error
	if n < lazyMin {
		err = s.copyN(n)
	} else {
		err = s.compact(lvNode, n)
	}
	s.copying = false
	if err != nil {
		return nil, err
	}
	if k != nil && !k.s.matches(s.out) {
		return nil, errWrongKind
	}
	s.d.holes = s.holes
	for len(s.d.claimed) < len(s.holes) {
		s.d.claimed = append(s.d.claimed, false)
	}
	return s.d.nodeDef(s.out, depth)
}

// message walks the n bytes of a message at nesting level depth that are
// next: take decodes the bytes fields it follows (and says so), the others
// are read and merged into m by proto.Unmarshal; k, when set, checks the
// fields as the sniffer does and gives take the check of a first
// occurrence.
func (s *streamer) message(n int64, m proto.Message, depth int, k *check, take func(num protowire.Number, l int64, nested *check) (bool, error)) error {
	r := rest{depth: depth}
	var err error
	if r.buf, err = s.fields(r.buf, n, k, take); err != nil {
		return err
	}
	return r.into(m)
}

// appendN appends the next n bytes of the file to b.
func (s *streamer) appendN(b []byte, n int64) ([]byte, error) {
	out, copying := s.out, s.copying
	s.out, s.copying = b, true
	err := s.copyN(n)
	b = s.out
	s.out, s.copying = out, copying
	return b, err
}

// fields appends the next n bytes, a message's fields, to b, but for the
// bytes fields take (when set) decodes itself and says so; k, when set,
// checks the fields as the sniffer does (msgSchema.matches, field by
// field) and gives take the check of a first occurrence.
func (s *streamer) fields(b []byte, n int64, k *check, take func(num protowire.Number, l int64, nested *check) (bool, error)) ([]byte, error) {
	end := s.pos + n
	if end > s.size {
		return b, errBadWire
	}
	for s.pos < end {
		v, _, err := s.varint()
		if err != nil {
			return b, err
		}
		num, typ := protowire.DecodeTag(v)
		if num < protowire.MinValidNumber {
			return b, errBadWire
		}
		var fs fieldSchema
		first := false
		if k != nil {
			if fs, first, err = k.field(num, typ); err != nil {
				return b, err
			}
		}
		tagAt := len(b)
		b = protowire.AppendTag(b, num, typ)
		switch typ {
		case protowire.VarintType:
			var v uint64
			if v, _, err = s.varint(); err != nil {
				return b, err
			}
			b = protowire.AppendVarint(b, v)
		case protowire.Fixed32Type:
			b, err = s.appendN(b, 4)
		case protowire.Fixed64Type:
			b, err = s.appendN(b, 8)
		case protowire.BytesType:
			var l uint64
			if l, _, err = s.varint(); err != nil {
				return b, err
			}
			if l > uint64(end-s.pos) {
				return b, errBadWire
			}
			var nested *check
			if first && fs.nested != nil {
				nested = &check{s: fs.nested}
			}
			if take != nil {
				taken, err := take(num, int64(l), nested)
				if err != nil {
					return b, err
				}
				if taken {
					b = b[:tagAt]
					continue
				}
			}
			b = protowire.AppendVarint(b, l)
			at := len(b)
			if nested != nil {
				// Checked as it is read: a wrong kind shows in the first
				// fields, before a large payload (a GraphDef's first
				// node, as a MetaGraphDef's meta_info_def) is read.
				b, err = s.fields(b, int64(l), nested, nil)
			} else {
				b, err = s.appendN(b, int64(l))
			}
			if err == nil && first && fs.ident && !isOpName(b[at:]) {
				err = errWrongKind
			}
		default:
			return b, errBadWire // groups: rare, left to proto.Unmarshal
		}
		if err != nil {
			return b, err
		}
	}
	if s.pos != end {
		return b, errBadWire
	}
	return b, k.end()
}

// level is the message type the compactor is in.
type level int

const (
	lvNone level = iota
	lvNode
	lvAttrEntry
	lvAttrValue
	lvTensor
	lvContent
)

// child is the message type of field num of a message of type lv, on the
// way down from a NodeDef to tensor_content; lvNone for every other field.
func (lv level) child(num protowire.Number) level {
	switch {
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

// compactor reads a file through a small buffer and copies what it reads
// into out (the headers only when copying), leaving out the large tensor
// contents of the messages it is asked to compact.
type compactor struct {
	f       *os.File
	r       *bufio.Reader
	pos     int64 // file offset of the next byte r gives
	size    int64
	out     []byte
	copying bool
	holes   []hole
}

func (c *compactor) readByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err != nil {
		return 0, errBadWire
	}
	c.pos++
	if c.copying {
		c.out = append(c.out, b)
	}
	return b, nil
}

// varint reads (and copies) a varint, returning it and its width.
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

// copyN copies the next n bytes to out.
func (c *compactor) copyN(n int64) error {
	if n < 0 || c.pos+n > c.size {
		return errBadWire
	}
	k := len(c.out)
	c.out = slices.Grow(c.out, int(n))[:k+int(n)]
	if _, err := io.ReadFull(c.r, c.out[k:]); err != nil {
		return errBadWire
	}
	c.pos += n
	return nil
}

// hash reads the next n bytes and returns their CRC-32C.
func (c *compactor) hash(n int64) (uint32, error) {
	var crc uint32
	for n > 0 {
		b, _ := c.r.Peek(int(min(n, int64(c.r.Size()))))
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

// compact copies the n bytes of a message of type lv that are next,
// descending into the fields on the way to tensor_content that can hold
// lazyMin bytes.
func (c *compactor) compact(lv level, n int64) error {
	end := c.pos + n
	if end > c.size {
		return errBadWire
	}
	dtype := -1 // a TensorProto's dtype, once read
	for c.pos < end {
		tagAt := len(c.out)
		v, _, err := c.varint()
		if err != nil {
			return err
		}
		num, typ := protowire.DecodeTag(v)
		if num < protowire.MinValidNumber {
			return errBadWire
		}
		switch typ {
		case protowire.VarintType:
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
	return nil
}

// field copies a bytes field of a message of type lv whose tag began at
// tagAt in out, after its tag; dtype is a TensorProto's dtype read so far
// (-1: none).
func (c *compactor) field(lv level, num protowire.Number, tagAt int, end int64, dtype int) error {
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
	lenAt, start := len(c.out)-w, len(c.out)
	if err := c.compact(child, n); err != nil {
		return err
	}
	putPadded(c.out[lenAt:start], uint64(len(c.out)-start))
	return nil
}

// cut leaves out the tensor_content record that began at tagAt in out,
// whose n-byte payload is next, and writes its marker instead.
func (c *compactor) cut(tagAt int, n int64) error {
	h := hole{off: c.pos, n: n}
	var err error
	if h.crc, err = c.hash(n); err != nil {
		return err
	}
	c.out = protowire.AppendTag(c.out[:tagAt], holeField, protowire.BytesType)
	c.out = protowire.AppendBytes(c.out, protowire.AppendVarint(nil, uint64(len(c.holes))))
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
