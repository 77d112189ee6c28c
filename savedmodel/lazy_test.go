package savedmodel

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	fpb "github.com/wamuir/graft/tensorflow/core/framework/function_go_proto"
	gpb "github.com/wamuir/graft/tensorflow/core/framework/graph_go_proto"
	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"
	opdefpb "github.com/wamuir/graft/tensorflow/core/framework/op_def_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"

	"github.com/tfscan/tfscan/dtype"
)

// lazyThresholds sets lazyMin, keptInt and lazyFileMin for one test.
func lazyThresholds(tb testing.TB, content, kept, file int64) {
	oldMin, oldFile, oldInt := lazyMin, lazyFileMin, keptInt
	lazyMin, lazyFileMin, keptInt = content, file, kept
	tb.Cleanup(func() { lazyMin, lazyFileMin, keptInt = oldMin, oldFile, oldInt })
}

// sameAsWhole loads file lazily (as Load does) and from its bytes b as a
// whole: the same error, or, once materialized, the same messages as
// proto.Unmarshal gives. It returns how many contents the load left in
// the file.
func sameAsWhole(t *testing.T, file string, b []byte) int {
	t.Helper()
	want, wantErr := decodeFile(file, b)
	got, err := loadFile(file)
	if wantErr != nil {
		require.EqualError(t, err, wantErr.Error())
		return 0
	}
	require.NoError(t, err)
	lazy := got.LazyContents()
	require.NoError(t, got.Materialize())
	assert.Zero(t, got.LazyContents())
	require.Equal(t, want.Format, got.Format)
	require.Equal(t, want.SchemaVersion, got.SchemaVersion)
	require.Len(t, got.MetaGraphs, len(want.MetaGraphs))
	// Against proto.Unmarshal of the whole file, and against the eager
	// load (whose own differential tests are in wire_test.go).
	kind, err := sniffBinary(b)
	require.NoError(t, err)
	whole := newMessage(kind)
	require.NoError(t, proto.Unmarshal(b, whole))
	for i, mg := range got.MetaGraphs {
		require.True(t, proto.Equal(want.MetaGraphs[i].Def, mg.Def), "meta graph %d", i)
		require.Equal(t, want.MetaGraphs[i].Signatures, mg.Signatures)
		var u proto.Message
		switch w := whole.(type) {
		case *mgpb.SavedModel:
			u = w.MetaGraphs[i]
		case *mgpb.MetaGraphDef:
			u = w
		case *gpb.GraphDef:
			u = &mgpb.MetaGraphDef{GraphDef: w}
		}
		require.True(t, proto.Equal(u, mg.Def), "meta graph %d against proto.Unmarshal", i)
	}
	return lazy
}

// Every binary model the project has, loaded with its contents of 8
// bytes or more left in the file, is what proto.Unmarshal gives once
// materialized.
func TestLazyLoadCanonical(t *testing.T) {
	lazyThresholds(t, 8, 8, 0)
	dir := t.TempDir()
	total := 0
	for name, b := range canonicalFiles(t) {
		file := filepath.Join(dir, "m.pb")
		require.NoError(t, os.WriteFile(file, b, 0o644))
		t.Run(name, func(t *testing.T) { total += sameAsWhole(t, file, b) })
	}
	assert.Greater(t, total, 50, "contents left in the file")
}

// bigConstGraph is a GraphDef of n Consts of size bytes each (distinct
// contents), at top level and in a function.
func bigConstGraph(n, size int) *gpb.GraphDef {
	gd := &gpb.GraphDef{Library: &fpb.FunctionDefLibrary{}}
	fd := &fpb.FunctionDef{Signature: &opdefpb.OpDef{Name: "f"}}
	for i := 0; i < n; i++ {
		c := make([]byte, size)
		for k := range c {
			c[k] = byte(i*7 + k)
		}
		node := constOf(fmt.Sprintf("c%d", i), c)
		if i%2 == 0 {
			gd.Node = append(gd.Node, node)
		} else {
			fd.NodeDef = append(fd.NodeDef, node)
		}
	}
	gd.Library.Function = append(gd.Library.Function, fd)
	return gd
}

// writeBig writes a SavedModel of 12 Consts of 128 KiB into dir and
// returns its saved_model.pb and bytes.
func writeBig(t *testing.T, dir string) (string, []byte) {
	sm := &mgpb.SavedModel{SavedModelSchemaVersion: 1, MetaGraphs: []*mgpb.MetaGraphDef{{
		MetaInfoDef: &mgpb.MetaGraphDef_MetaInfoDef{Tags: []string{"serve"}},
		GraphDef:    bigConstGraph(12, 128<<10),
	}}}
	b := marshalT(t, sm)
	return writeFile(t, dir, "saved_model.pb", b), b
}

// Load leaves large constants in a large file by default, and they read
// back as they were.
func TestLazyLoadDefault(t *testing.T) {
	file, b := writeBig(t, t.TempDir())
	m, err := Load(filepath.Dir(file))
	require.NoError(t, err)
	assert.Equal(t, 12, m.LazyContents())
	for _, n := range m.MetaGraphs[0].Def.GetGraphDef().GetNode() {
		assert.Nil(t, n.GetAttr()["value"].GetTensor().GetTensorContent(), "left in the file")
	}
	assert.Equal(t, 12, sameAsWhole(t, file, b))
}

// A file that changed since the load gives one clear error naming it, and
// leaves the contents unset; an unchanged one reads back.
func TestLazyMaterializeChangedFile(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(file string, b []byte) error
		want   string
	}{
		{"same size and time, other bytes", func(file string, b []byte) error {
			fi, err := os.Stat(file)
			if err != nil {
				return err
			}
			c := append([]byte(nil), b...)
			c[len(c)/2] ^= 0xff // inside a content: 12 × 128 KiB are most of the file
			if err := os.WriteFile(file, c, 0o644); err != nil {
				return err
			}
			return os.Chtimes(file, fi.ModTime(), fi.ModTime())
		}, "differ"},
		{"truncated", func(file string, b []byte) error { return os.Truncate(file, int64(len(b)/2)) }, "bytes modified"},
		{"rewritten later", func(file string, b []byte) error {
			return os.Chtimes(file, time.Now().Add(time.Hour), time.Now().Add(time.Hour))
		}, "bytes modified"},
		{"removed", func(file string, b []byte) error { return os.Remove(file) }, "no such file"},
		{"replaced by the same bytes and time", func(file string, b []byte) error {
			fi, err := os.Stat(file)
			if err != nil {
				return err
			}
			tmp := file + ".new"
			if err := os.WriteFile(tmp, b, 0o644); err != nil {
				return err
			}
			if err := os.Chtimes(tmp, fi.ModTime(), fi.ModTime()); err != nil {
				return err
			}
			return os.Rename(tmp, file)
		}, "bytes modified"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file, b := writeBig(t, t.TempDir())
			m, err := Load(file)
			require.NoError(t, err)
			require.Equal(t, 12, m.LazyContents())
			require.NoError(t, tc.change(file, b))
			err = m.Materialize()
			require.Error(t, err)
			var fe *Error
			require.True(t, errors.As(err, &fe))
			assert.Equal(t, file, fe.File)
			assert.Contains(t, err.Error(), "changed since it was loaded")
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "\n")
			assert.Equal(t, err, m.Materialize(), "the same error again")
			for _, n := range m.MetaGraphs[0].Def.GetGraphDef().GetNode() {
				assert.Nil(t, n.GetAttr()["value"].GetTensor().GetTensorContent())
			}
			// Write refuses it too, and writes nothing.
			out := filepath.Join(t.TempDir(), "out")
			require.Error(t, Write(m, out))
			assert.NoDirExists(t, out)
		})
	}
}

// Write materializes first: the written model's constants are the loaded
// file's, byte for byte, and so are those of a copy of the model whose
// messages were cloned before anything was read (the markers go with
// the clones).
func TestLazyWrite(t *testing.T) {
	file, b := writeBig(t, t.TempDir())
	m, err := Load(file)
	require.NoError(t, err)
	require.Equal(t, 12, m.LazyContents())

	cp := *m
	cp.MetaGraphs = []*MetaGraph{{Def: proto.Clone(m.MetaGraphs[0].Def).(*mgpb.MetaGraphDef)}}
	require.Equal(t, 12, cp.LazyContents())
	for i, model := range []*Model{&cp, m} {
		out := filepath.Join(t.TempDir(), "out")
		require.NoError(t, Write(model, out))
		got, err := os.ReadFile(filepath.Join(out, "saved_model.pb"))
		require.NoError(t, err)
		assert.Equal(t, b, got, "deterministic marshaling of the same messages")
		assert.Zero(t, model.LazyContents())
		if i == 0 {
			assert.Equal(t, 12, m.LazyContents(), "the copy's messages only")
		}
	}
}

// FuzzLazyLoad checks the lazy load against the whole-file load on any
// bytes: the same error, or the same messages once materialized.
func FuzzLazyLoad(f *testing.F) {
	gen, err := modelgenBinaries()
	if err != nil {
		f.Fatal(err)
	}
	for _, b := range gen {
		f.Add(b)
	}
	small, err := proto.Marshal(&mgpb.SavedModel{MetaGraphs: []*mgpb.MetaGraphDef{{GraphDef: bigConstGraph(3, 80)}}})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(small)
	gd, err := proto.Marshal(bigConstGraph(2, 100))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(gd)
	lazyThresholds(f, 64, 64, 0)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		file := filepath.Join(dir, "saved_model.pb")
		if err := os.WriteFile(file, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := sniffBinary(b); err != nil || isText(b) || isJSONObject(b) {
			m, err := loadFile(file)
			checkLoadResult(t, file, m, err)
			return
		}
		sameAsWhole(t, file, b)
	})
}

// modelgenBinaries are the generated binary models, as fuzz seeds.
func modelgenBinaries() ([][]byte, error) {
	var out [][]byte
	for _, n := range []*nodepb.NodeDef{constOf("a", make([]byte, 70)), constOf("b", make([]byte, 200))} {
		b, err := proto.Marshal(&gpb.GraphDef{Node: []*nodepb.NodeDef{n, n}})
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// At the default thresholds, an int32 or int64 content of up to
// KeptIntContent bytes stays in memory (shape inference decodes it), and
// so does one of less than lazyMin bytes; others are left in the file.
func TestLazyKeepsWhatShapesRead(t *testing.T) {
	lazyThresholds(t, lazyMin, keptInt, 0)
	mk := func(name string, dt tpb.DataType, n int) *nodepb.NodeDef {
		c := constOf(name, make([]byte, n))
		v := c.Attr["value"].GetTensor()
		v.Dtype = dt
		v.TensorShape.Dim[0].Size = int64(n / dtype.Size(dt))
		return c
	}
	gd := &gpb.GraphDef{Node: []*nodepb.NodeDef{
		mk("int32", tpb.DataType_DT_INT32, KeptIntContent),
		mk("int64", tpb.DataType_DT_INT64, KeptIntContent),
		mk("big_int32", tpb.DataType_DT_INT32, KeptIntContent+4),
		mk("float", tpb.DataType_DT_FLOAT, 4<<10),
		mk("small_float", tpb.DataType_DT_FLOAT, 4<<10-4),
	}}
	b := marshalT(t, gd)
	file := writeFile(t, t.TempDir(), "g.pb", b)
	m, err := Load(file)
	require.NoError(t, err)
	kept := map[string]bool{}
	for _, n := range m.MetaGraphs[0].Def.GetGraphDef().GetNode() {
		kept[n.GetName()] = n.GetAttr()["value"].GetTensor().GetTensorContent() != nil
	}
	assert.Equal(t, map[string]bool{"int32": true, "int64": true, "big_int32": false, "float": false, "small_float": true}, kept)
	assert.Equal(t, 2, m.LazyContents())
	sameAsWhole(t, file, b)
}

// NodeDefs of a lazily loaded model put into another Model (which knows
// nothing of the file) are never written without their constants.
func TestLazyWriteRefusesForeignMarkers(t *testing.T) {
	file, _ := writeBig(t, t.TempDir())
	m, err := Load(file)
	require.NoError(t, err)
	other := &Model{Format: FormatGraphDef, MetaGraphs: []*MetaGraph{{Def: &mgpb.MetaGraphDef{GraphDef: m.MetaGraphs[0].Def.GetGraphDef()}}}}
	out := filepath.Join(t.TempDir(), "out.pb")
	err = Write(other, out)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "12 constants were left in the file of the model they came from and not read")
	assert.NoFileExists(t, out)
	for _, n := range m.MetaGraphs[0].Def.GetGraphDef().GetNode() {
		assert.True(t, Unread(n.GetAttr()["value"].GetTensor()))
	}
}

// Loading a model whose first node is a Const of 8 MiB allocates a small
// fraction of that, as a GraphDef (whose first node the walk as a
// MetaGraphDef takes for its meta_info_def, and gives up on before
// reading it) and as a SavedModel.
func TestLazyLoadReadsNoLargeContent(t *testing.T) {
	gd := &gpb.GraphDef{Node: []*nodepb.NodeDef{constOf("big", make([]byte, 8<<20)), constOf("small", make([]byte, 16))}}
	for name, msg := range map[string]proto.Message{
		"graph_def.pb":   gd,
		"saved_model.pb": &mgpb.SavedModel{MetaGraphs: []*mgpb.MetaGraphDef{{GraphDef: gd}}},
	} {
		t.Run(name, func(t *testing.T) {
			b := marshalT(t, msg)
			file := writeFile(t, t.TempDir(), name, b)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			m, err := Load(file)
			runtime.ReadMemStats(&after)
			require.NoError(t, err)
			assert.Equal(t, 1, m.LazyContents())
			assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(2<<20))
			require.NoError(t, m.Materialize())
			assert.Len(t, m.MetaGraphs[0].Def.GetGraphDef().GetNode()[0].GetAttr()["value"].GetTensor().GetTensorContent(), 8<<20)
		})
	}
}
