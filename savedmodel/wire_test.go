package savedmodel

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	gpb "github.com/wamuir/graft/tensorflow/core/framework/graph_go_proto"
	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"
	tensorpb "github.com/wamuir/graft/tensorflow/core/framework/tensor_go_proto"
	shapepb "github.com/wamuir/graft/tensorflow/core/framework/tensor_shape_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/savedmodel/modelgen"
)

// sameAsUnmarshal checks the wire decoder against proto.Unmarshal on b as
// each message kind (default: all three): the same message, or the same
// error.
func sameAsUnmarshal(t *testing.T, b []byte, kinds ...protoKind) {
	t.Helper()
	if len(kinds) == 0 {
		kinds = []protoKind{kindSavedModel, kindMetaGraph, kindGraphDef}
	}
	for _, kind := range kinds {
		want := newMessage(kind)
		wantErr := proto.Unmarshal(b, want)
		got, _, err := decodeProto(kind, b)
		if wantErr != nil {
			require.EqualError(t, err, wantErr.Error(), "%s", kind)
			continue
		}
		require.NoError(t, err, "%s", kind)
		if !proto.Equal(want, got) {
			t.Fatalf("%s: the wire decoder and proto.Unmarshal differ on %x", kind, b)
		}
	}
}

// canonicalFiles are the binary models the project has: generated, the
// hostile ones and every corpus model, the text and TF.js ones marshaled
// to binary. (The benchmark model, which takes seconds to generate, is
// decoded by the benchmarks, and Ratio fails on an error.)
func canonicalFiles(t *testing.T) map[string][]byte {
	files := map[string][]byte{}
	gen, err := modelgen.Files()
	require.NoError(t, err)
	for _, f := range gen {
		files[f.Path] = asBinary(t, f.Path, f.Data)
	}
	for _, h := range modelgen.HostileModels() {
		b, err := h.Bytes()
		require.NoError(t, err)
		files["hostile/"+h.Name] = b
	}
	chain, err := modelgen.CallChainBytes(300)
	require.NoError(t, err)
	files["chain"] = chain
	for _, p := range corpusModels(t) {
		if filepath.Base(p) == "model.json" {
			m, err := Load(p)
			require.NoError(t, err, p)
			b, err := proto.Marshal(m.MetaGraphs[0].Def.GetGraphDef())
			require.NoError(t, err, p)
			files[p] = b
			continue
		}
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		if kind, _ := sniffText(b); isText(b) && kind == kindUnknown {
			continue // gd_malformed: not a model (TestWireDecodeCorpusBytes)
		}
		files[p] = asBinary(t, p, b)
	}
	return files
}

// corpusModels is every model file of the shared corpus (README.md there
// lists them): TensorFlow's and TF.js's.
func corpusModels(t *testing.T) []string {
	tf, tfjs := sharedDir(t, "corpus", "tf"), sharedDir(t, "corpus", "tfjs")
	var paths []string
	for _, pat := range []string{filepath.Join(tf, "*", "*.pb"), filepath.Join(tf, "*", "*.pbtxt"), filepath.Join(tfjs, "*", "model.json")} {
		m, _ := filepath.Glob(pat)
		paths = append(paths, m...)
	}
	require.GreaterOrEqual(t, len(paths), 16, "the corpus README lists 16 models")
	return paths
}

// asBinary is b, a binary or text model, as binary.
func asBinary(t *testing.T, name string, b []byte) []byte {
	if !isText(b) {
		return b
	}
	kind, _ := sniffText(b)
	msg := newMessage(kind)
	require.NoError(t, prototext.Unmarshal(b, msg), name)
	out, err := proto.Marshal(msg)
	require.NoError(t, err, name)
	return out
}

// The corpus files' own bytes, text and JSON included, give the same
// message or the same error as proto.Unmarshal gives.
func TestWireDecodeCorpusBytes(t *testing.T) {
	for _, p := range corpusModels(t) {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		t.Run(filepath.Base(filepath.Dir(p)), func(t *testing.T) { sameAsUnmarshal(t, b) })
	}
}

// Every binary model the project has decodes to exactly what
// proto.Unmarshal gives, without falling back on any NodeDef.
func TestWireDecodeCanonical(t *testing.T) {
	for name, b := range canonicalFiles(t) {
		kind, err := sniffBinary(b)
		require.NoError(t, err, name)
		got, d, err := fastDecode(kind, b)
		require.NoError(t, err, name)
		assert.Zero(t, d.fallbacks, name)
		want := newMessage(kind)
		require.NoError(t, proto.Unmarshal(b, want))
		assert.True(t, proto.Equal(want, got), name)
	}
}

// A large tensor_content stays in the file's buffer; a small one is a
// copy, so that a model of small constants does not pin its file.
func TestWireDecodeAliasesLargeContent(t *testing.T) {
	big, small := make([]byte, aliasMin), make([]byte, aliasMin-1)
	gd := &gpb.GraphDef{Node: []*nodepb.NodeDef{constOf("big", big), constOf("small", small)}}
	b, err := proto.Marshal(gd)
	require.NoError(t, err)
	msg, _, err := fastDecode(kindGraphDef, b)
	require.NoError(t, err)
	nodes := msg.(*gpb.GraphDef).GetNode()
	within := func(c []byte) bool {
		start, end := uintptr(unsafe.Pointer(&b[0])), uintptr(unsafe.Pointer(&b[len(b)-1]))
		return len(c) > 0 && uintptr(unsafe.Pointer(&c[0])) >= start && uintptr(unsafe.Pointer(&c[0])) <= end
	}
	assert.True(t, within(nodes[0].GetAttr()["value"].GetTensor().GetTensorContent()))
	assert.False(t, within(nodes[1].GetAttr()["value"].GetTensor().GetTensorContent()))
	c := nodes[0].GetAttr()["value"].GetTensor().GetTensorContent()
	assert.Equal(t, len(c), cap(c), "an append must not write into the file's buffer")
}

func constOf(name string, content []byte) *nodepb.NodeDef {
	return &nodepb.NodeDef{Name: name, Op: "Const", Attr: map[string]*attrpb.AttrValue{
		"dtype": {Value: &attrpb.AttrValue_Type{Type: tpb.DataType_DT_UINT8}},
		"value": {Value: &attrpb.AttrValue_Tensor{Tensor: &tensorpb.TensorProto{
			Dtype:         tpb.DataType_DT_UINT8,
			TensorShape:   &shapepb.TensorShapeProto{Dim: []*shapepb.TensorShapeProto_Dim{{Size: int64(len(content))}}},
			TensorContent: content,
		}}},
	}}
}

// rec and the helpers below write wire records by hand, for encodings no
// marshaler produces.
func rec(num protowire.Number, payload []byte) []byte {
	return protowire.AppendBytes(protowire.AppendTag(nil, num, protowire.BytesType), payload)
}

func varintRec(num protowire.Number, v uint64) []byte {
	return protowire.AppendVarint(protowire.AppendTag(nil, num, protowire.VarintType), v)
}

// node is a NodeDef record of a GraphDef (field 1) from its fields.
func nodeRec(fields ...[]byte) []byte { return rec(1, cat(fields...)) }

// attrRec is a NodeDef attr entry (field 5).
func attrRec(key string, value []byte) []byte {
	return rec(5, cat(rec(1, []byte(key)), rec(2, value)))
}

// nestedFuncAttr is an AttrValue holding a func whose attr holds a func...
// depth times: 3 levels of messages each (NameAttrList, map entry,
// AttrValue), so that the innermost one of a GraphDef's node is at level
// 3+3*depth, and proto.Unmarshal's limit (level 9,999) falls between 3332
// and 3333.
func nestedFuncAttr(depth int) []byte {
	// Built back to front (each wrapping prepends a tag and a length), so
	// that thousands of levels take linear time.
	var rev []byte
	prepend := func(b []byte) {
		for k := len(b) - 1; k >= 0; k-- {
			rev = append(rev, b[k])
		}
	}
	wrap := func(num protowire.Number) {
		prepend(protowire.AppendVarint(protowire.AppendTag(nil, num, protowire.BytesType), uint64(len(rev))))
	}
	prepend(varintRec(6, 1)) // type: DT_FLOAT
	for i := 0; i < depth; i++ {
		wrap(2) // the entry's value
		prepend(rec(1, []byte("a")))
		wrap(2) // the NameAttrList's attr entry
		prepend(rec(1, []byte("f")))
		wrap(10) // the AttrValue's func
	}
	out := make([]byte, len(rev))
	for k := range rev {
		out[k] = rev[len(rev)-1-k]
	}
	return out
}

// Encodings a canonical marshaler never writes: each decodes as
// proto.Unmarshal decodes it (or fails as it fails).
func TestWireDecodeUnusual(t *testing.T) {
	name := rec(1, []byte("n"))
	op := rec(2, []byte("Const"))
	typeAttr := varintRec(6, 1)
	cases := map[string][]byte{
		"empty":                {},
		"unknown node field":   nodeRec(name, op, varintRec(99, 7), rec(98, []byte("x"))),
		"wrong wire type":      nodeRec(varintRec(1, 3), op),
		"name twice":           nodeRec(name, op, rec(1, []byte("m"))),
		"attr key twice":       nodeRec(name, op, attrRec("T", typeAttr), attrRec("T", varintRec(6, 2))),
		"oneof twice":          nodeRec(name, attrRec("T", cat(typeAttr, rec(2, []byte("s"))))),
		"oneof message twice":  nodeRec(name, attrRec("l", cat(rec(1, cat(varintRec(3, 1))), rec(1, cat(varintRec(3, 2)))))),
		"entry value first":    nodeRec(name, rec(5, cat(rec(2, typeAttr), rec(1, []byte("T"))))),
		"entry without value":  nodeRec(name, rec(5, rec(1, []byte("T")))),
		"entry without key":    nodeRec(name, rec(5, rec(2, typeAttr))),
		"entry extra field":    nodeRec(name, rec(5, cat(rec(1, []byte("T")), rec(2, typeAttr), varintRec(3, 1)))),
		"attr unknown field":   nodeRec(name, attrRec("T", cat(typeAttr, varintRec(77, 1)))),
		"list mixed packing":   nodeRec(name, attrRec("l", rec(1, cat(varintRec(3, 5), rec(3, []byte{1, 2, 3}), varintRec(3, 9))))),
		"list floats unpacked": nodeRec(name, attrRec("l", rec(1, cat(protowire.AppendFixed32(protowire.AppendTag(nil, 4, protowire.Fixed32Type), 0x3f800000), rec(4, []byte{0, 0, 0, 0x40}))))),
		"list floats ragged":   nodeRec(name, attrRec("l", rec(1, rec(4, []byte{0, 0, 0})))),
		"tensor shape twice":   nodeRec(name, attrRec("value", rec(8, cat(rec(2, rec(2, varintRec(1, 2))), rec(2, rec(2, varintRec(1, 3))))))),
		"tensor rare fields":   nodeRec(name, attrRec("value", rec(8, cat(varintRec(1, 22), rec(16, []byte{1, 2}), rec(18, []byte{7}), rec(15, rec(1, []byte("v"))))))),
		"tensor empty content": nodeRec(name, attrRec("value", rec(8, cat(varintRec(1, 4), rec(4, nil))))),
		"tensor content twice": nodeRec(name, attrRec("value", rec(8, cat(rec(4, []byte{1}), rec(4, []byte{2, 3}))))),
		"tensor bad packed":    nodeRec(name, attrRec("value", rec(8, rec(7, []byte{0x80})))),
		"empty bytes attr":     nodeRec(name, attrRec("s", rec(2, nil))),
		"empty list":           nodeRec(name, attrRec("l", rec(1, nil))),
		"dim unknown field":    nodeRec(name, attrRec("shape", rec(7, rec(2, cat(varintRec(1, 4), varintRec(9, 1)))))),
		"negative int32":       nodeRec(name, attrRec("value", rec(8, cat(varintRec(3, ^uint64(0)), varintRec(1, 1<<40))))),
		"invalid utf-8 name":   nodeRec(rec(1, []byte{0xff, 0xfe}), op),
		"invalid utf-8 key":    nodeRec(name, attrRec("\xff", typeAttr)),
		"invalid utf-8 input":  nodeRec(name, rec(3, []byte{'a', 0xc0})),
		"truncated node":       nodeRec(name, op)[:5],
		"truncated tag":        {0x80},
		"end group":            {0x0c},
		"field zero":           {0x00, 0x01},
		"group in node":        nodeRec(name, protowire.AppendTag(nil, 50, protowire.StartGroupType), varintRec(1, 2), protowire.AppendTag(nil, 50, protowire.EndGroupType)),
		"nested":               nodeRec(name, attrRec("f", nestedFuncAttr(10))),
		"nested past fast":     nodeRec(name, attrRec("f", nestedFuncAttr(30))),
		"library twice": cat(rec(2, rec(1, rec(1, rec(1, []byte("f"))))),
			rec(2, rec(1, rec(1, rec(1, []byte("g")))))),
		"library unknown": rec(2, cat(varintRec(9, 1), rec(1, cat(rec(1, rec(1, []byte("f"))), rec(3, cat(name, op)), varintRec(70, 3))))),
	}
	for what, b := range cases {
		t.Run(what, func(t *testing.T) { sameAsUnmarshal(t, b) })
	}
	// At proto.Unmarshal's recursion limit (as a GraphDef: slow to decode).
	sameAsUnmarshal(t, nodeRec(name, attrRec("f", nestedFuncAttr(3332))), kindGraphDef)
	sameAsUnmarshal(t, nodeRec(name, attrRec("f", nestedFuncAttr(3333))), kindGraphDef)
	// The same graphs inside a MetaGraphDef and a SavedModel, where
	// graph_def may also come twice.
	mg := cat(rec(2, nodeRec(name, op)), rec(1, rec(4, []byte("serve"))), rec(2, nodeRec(rec(1, []byte("m")))))
	sameAsUnmarshal(t, mg)
	sameAsUnmarshal(t, cat(varintRec(1, 1), rec(2, mg), rec(2, rec(2, nodeRec(name)))))
}

// FuzzWireDecode checks the wire decoder against proto.Unmarshal on any
// bytes: the same message or the same error.
func FuzzWireDecode(f *testing.F) {
	gen, err := modelgen.Files()
	if err != nil {
		f.Fatal(err)
	}
	for _, g := range gen {
		if !strings.HasSuffix(g.Path, "txt") {
			f.Add(g.Data)
		}
	}
	for _, h := range modelgen.HostileModels() {
		if b, err := h.Bytes(); err == nil && len(b) < 16<<10 {
			f.Add(b)
		}
	}
	f.Add(nodeRec(rec(1, []byte("n")), attrRec("l", rec(1, cat(varintRec(3, 5), rec(3, []byte{1, 2, 3}))))))
	f.Add(nodeRec(rec(1, []byte("n")), attrRec("f", nestedFuncAttr(3))))
	f.Add(cat(rec(2, rec(1, rec(1, rec(1, []byte("f"))))), rec(2, rec(1, rec(1, rec(1, []byte("g")))))))
	corpus := filepath.Join("..", "..", "shared", "corpus", "tf")
	addFileSeeds(f, 64<<10, filepath.Join(corpus, "*", "saved_model.pb"))
	f.Fuzz(func(t *testing.T, b []byte) { sameAsUnmarshal(t, b) })
}

// The wire decoder's own messages are the generated ones: they marshal
// back to the same bytes as proto.Unmarshal's (what Write relies on).
func TestWireDecodeMarshalsBack(t *testing.T) {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(modelgen.KerasSavedModel())
	require.NoError(t, err)
	msg, _, err := decodeProto(kindSavedModel, b)
	require.NoError(t, err)
	again, err := proto.MarshalOptions{Deterministic: true}.Marshal(msg)
	require.NoError(t, err)
	assert.Equal(t, b, again)
}

// NodeDefs whose attr entries are the same bytes share one attr map when
// every value in it is shared: small tensors of the same bytes are from
// their second occurrence on, so Consts of the same small value share
// their tensor, and from the second on their map; a NodeDef
// whose entries differ or are not in one run, or whose tensor is larger,
// has a map of its own. Tensors of the same shape share their shape. Each
// decodes to what proto.Unmarshal gives.
func TestWireDecodeSharesAttrMaps(t *testing.T) {
	typeAttr := attrRec("T", varintRec(6, 1))
	strides := attrRec("strides", rec(1, rec(3, []byte{1, 2, 2, 1})))
	tensorOf := func(content []byte) []byte {
		return attrRec("value", rec(8, cat(varintRec(1, 1), rec(2, rec(2, varintRec(1, uint64(len(content)/4)))), rec(4, content))))
	}
	tensor, other, large := tensorOf([]byte{0, 0, 0, 0}), tensorOf([]byte{0, 0, 128, 63}), tensorOf(make([]byte, 4*sharedMax))
	op := rec(2, []byte("Conv2D"))
	gd := cat(
		nodeRec(rec(1, []byte("a")), op, typeAttr, strides),
		nodeRec(rec(1, []byte("b")), op, rec(3, []byte("a")), typeAttr, strides),
		nodeRec(rec(1, []byte("c")), op, typeAttr),
		nodeRec(rec(1, []byte("d")), op, typeAttr, rec(4, []byte("/cpu:0")), strides),
		nodeRec(rec(1, []byte("e")), rec(2, []byte("Const")), typeAttr, tensor),
		nodeRec(rec(1, []byte("f")), rec(2, []byte("Const")), typeAttr, tensor),
		nodeRec(rec(1, []byte("g")), rec(2, []byte("Const")), typeAttr, other),
		nodeRec(rec(1, []byte("h")), rec(2, []byte("Const")), typeAttr, large),
		nodeRec(rec(1, []byte("i")), rec(2, []byte("Const")), typeAttr, large),
		nodeRec(rec(1, []byte("j")), rec(2, []byte("Const")), typeAttr, tensor),
	)
	sameAsUnmarshal(t, gd, kindGraphDef)
	msg, _, err := decodeProto(kindGraphDef, gd)
	require.NoError(t, err)
	nodes := msg.(*gpb.GraphDef).GetNode()
	require.Len(t, nodes, 10)
	same := func(i, j int) bool {
		return reflect.ValueOf(nodes[i].GetAttr()).UnsafePointer() == reflect.ValueOf(nodes[j].GetAttr()).UnsafePointer()
	}
	value := func(i int) *tensorpb.TensorProto { return nodes[i].GetAttr()["value"].GetTensor() }
	assert.True(t, same(0, 1), "a and b")
	assert.False(t, same(0, 2), "a and c")
	assert.False(t, same(0, 3), "a and d, its entries apart")
	assert.Same(t, nodes[0].GetAttr()["T"], nodes[3].GetAttr()["T"], "values are shared still")
	assert.Same(t, value(4), value(5), "Consts of one small value")
	assert.Same(t, value(4), value(9))
	assert.False(t, same(4, 5), "a small tensor's first Const, its map made before the value repeats")
	assert.True(t, same(5, 9), "Consts of one small value")
	assert.False(t, same(4, 6), "Consts of two values")
	assert.NotSame(t, value(4), value(6))
	assert.Same(t, value(4).GetTensorShape(), value(6).GetTensorShape(), "the Consts' shapes")
	assert.False(t, same(7, 8), "Consts of a value over sharedMax")
	assert.NotSame(t, value(7), value(8))
}

// next reads every record as protowire does, its short-record path
// included: one- and two-byte tags, lengths and varints, field number 0,
// truncated payloads and every wire type.
func TestNextMatchesProtowire(t *testing.T) {
	general := func(b []byte) (field, []byte, bool) {
		f, rest, err := nextGeneral(b)
		return f, rest, err == nil
	}
	payload := make([]byte, 300)
	for i := range payload {
		payload[i] = byte(i * 7)
	}
	for first := 0; first < 256; first++ {
		for _, second := range []byte{0, 1, 5, 0x7f, 0x80, 0x81, 0xff} {
			for _, size := range []int{1, 2, 3, 6, 8, 130, 300} {
				b := append([]byte{byte(first), second}, payload[:size-min(size, 2)]...)[:size]
				want, wantRest, ok := general(b)
				got, rest, err := next(b)
				if !ok {
					assert.Error(t, err, "% x", b)
					continue
				}
				require.NoError(t, err, "% x", b)
				assert.Equal(t, want, got, "% x", b)
				assert.Equal(t, wantRest, rest, "% x", b)
			}
		}
	}
}
