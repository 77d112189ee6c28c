package savedmodel

import (
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"sort"
	"sync"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	gpb "github.com/wamuir/graft/tensorflow/core/framework/graph_go_proto"
	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"
	tensorpb "github.com/wamuir/graft/tensorflow/core/framework/tensor_go_proto"
)

// A large binary model is loaded without reading its large constants: a
// Const's tensor_content of lazyMin bytes or more stays in the file, and
// only its place (offset, length, CRC-32C) is kept, as a marker in the
// TensorProto (see lazyContents). inspect and scan never read those bytes
// (shape inference decodes the values of integer tensors of at most
// KeptIntContent bytes, which stay in memory, and validation needs only
// the length). Whatever needs them calls Model.Materialize first: the
// executor, Write, and graph's comparison of duplicate library functions;
// rewrite's clones of the messages carry the markers, and the executor
// and Write complete them.
//
// stream.go reads the file and leaves the contents out.

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

// holeField is the field number of the marker that stands for a
// tensor_content left in the file; no TensorFlow message uses it.
const holeField = protowire.MaxValidNumber

// errNotLazy makes the load read the whole file instead.
var errNotLazy = errors.New("not loaded lazily")

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
// before or after) is completed the same way. Safe for concurrent calls,
// but it writes the TensorProtos it completes: a goroutine that reads the
// model's messages whole (proto.Clone, Marshal, Equal) calls it first. A
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

// Unread reports whether t's tensor_content was left in its model's file
// and not read yet: Materialize the model that holds t. Its
// TensorContent is nil meanwhile, which no reader may take for the
// value; the executor and Write refuse such a tensor.
func Unread(t *tensorpb.TensorProto) bool { return markerOf(t) >= 0 }

// marked is every TensorProto of m's graphs holding a marker.
func marked(m *Model) []*tensorpb.TensorProto {
	var out []*tensorpb.TensorProto
	none := attrMaps{} // maps without tensors
	visit := func(nodes []*nodepb.NodeDef) {
		for _, n := range nodes {
			if len(n.GetAttr()) == 0 || none.met(n.GetAttr()) {
				continue
			}
			tensors := false
			for _, a := range n.GetAttr() {
				tensors = tensors || !Shareable(a)
				if t := a.GetTensor(); t != nil && markerOf(t) >= 0 {
					out = append(out, t)
				}
			}
			if !tensors {
				none.add(n.GetAttr())
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
