package bundle

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/tfscan/tfscan/internal/testutil"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	tspb "github.com/wamuir/graft/tensorflow/core/framework/tensor_shape_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"
	"google.golang.org/protobuf/proto"
)

// corpusDir returns ../shared/corpus/tf relative to the repo root; it fails
// under CI=true and skips otherwise when the shared folder is missing.
func corpusDir(t testing.TB) string {
	t.Helper()
	return filepath.Join(testutil.Corpus(t), "tf")
}

func TestHalfPlusTwo(t *testing.T) {
	for _, m := range []string{"sm_half_plus_two_v1", "sm_half_plus_two_pbtxt"} {
		t.Run(m, func(t *testing.T) {
			r, err := Open(filepath.Join(corpusDir(t), m, "variables", "variables"))
			require.NoError(t, err)
			assert.Equal(t, []string{"a", "b", "c"}, r.Keys())
			assert.Equal(t, 1, r.NumShards())
			want := map[string]float32{"a": 0.5, "b": 2, "c": 3}
			for k, v := range want {
				dt, shape, raw, err := r.Read(k)
				require.NoError(t, err)
				assert.Equal(t, tpb.DataType_DT_FLOAT, dt)
				assert.Empty(t, shape)
				assert.Equal(t, v, math.Float32frombits(binary.LittleEndian.Uint32(raw)), k)
			}
		})
	}
}

func TestCorpusBundles(t *testing.T) {
	tests := []struct {
		model string
		keys  int
		check string // a key whose shape we check
		shape []int64
	}{
		{"sm_simple_while_loop", 1, "_CHECKPOINTABLE_OBJECT_GRAPH", []int64{}},
		{"sm_static_hashtable", 1, "_CHECKPOINTABLE_OBJECT_GRAPH", []int64{}},
		{"sm_x_plus_y_debuginfo", 1, "_CHECKPOINTABLE_OBJECT_GRAPH", []int64{}},
		{"sm_fuzz_const_no_value", 20, "layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE", []int64{784, 128}},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			r, err := Open(filepath.Join(corpusDir(t), tt.model, "variables", "variables"))
			require.NoError(t, err)
			assert.Len(t, r.Keys(), tt.keys)
			for _, k := range r.Keys() {
				e, ok := r.Entry(k)
				require.True(t, ok)
				if e.GetDtype() == tpb.DataType_DT_STRING {
					shape, s, err := r.ReadStrings(k)
					require.NoError(t, err, k)
					assert.Len(t, s, 1)
					assert.Empty(t, shape)
					continue
				}
				_, _, raw, err := r.Read(k)
				require.NoError(t, err, k)
				assert.Len(t, raw, int(e.GetSize()))
			}
			e, ok := r.Entry(tt.check)
			require.True(t, ok)
			assert.Equal(t, tt.shape, Shape(e))
		})
	}
}

// copyBundle copies a corpus bundle into a temp dir and returns the new prefix.
func copyBundle(t *testing.T, model string) string {
	t.Helper()
	src := filepath.Join(corpusDir(t), model, "variables")
	dst := t.TempDir()
	ents, err := os.ReadDir(src)
	require.NoError(t, err)
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644))
	}
	return filepath.Join(dst, "variables")
}

func TestCorruptBundles(t *testing.T) {
	tests := []struct {
		name    string
		mutate  func(t *testing.T, prefix string)
		openErr string // error from Open, or "" when Open succeeds
		readErr string // error from Read("a")
	}{
		{"flipped data byte", func(t *testing.T, p string) { flip(t, ShardPath(p, 0, 1), 1) }, "", "checksum mismatch"},
		{"truncated shard", func(t *testing.T, p string) { require.NoError(t, os.Truncate(ShardPath(p, 0, 1), 2)) }, "", "past the end"},
		{"missing shard", func(t *testing.T, p string) { require.NoError(t, os.Remove(ShardPath(p, 0, 1))) }, "", "data shard is missing"},
		{"flipped index byte", func(t *testing.T, p string) { flip(t, IndexPath(p), 10) }, "checksum mismatch", ""},
		{"bad magic", func(t *testing.T, p string) { flip(t, IndexPath(p), -1) }, "bad table magic", ""},
		{"truncated index", func(t *testing.T, p string) { require.NoError(t, os.Truncate(IndexPath(p), 20)) }, "too short", ""},
		{"missing index", func(t *testing.T, p string) { require.NoError(t, os.Remove(IndexPath(p))) }, "no such file", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prefix := copyBundle(t, "sm_half_plus_two_v1")
			tt.mutate(t, prefix)
			r, err := Open(prefix)
			if tt.openErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.openErr)
				assert.Contains(t, err.Error(), "variables.index")
				return
			}
			require.NoError(t, err)
			_, _, _, err = r.Read("a")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.readErr)
			assert.Contains(t, err.Error(), "variables.data-00000-of-00001")
		})
	}
}

func flip(t *testing.T, path string, at int) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	if at < 0 {
		at += len(b)
	}
	b[at] ^= 0x40
	require.NoError(t, os.WriteFile(path, b, 0o644))
}

func entryBytes(t testing.TB, e *mgpb.BundleEntryProto) []byte {
	b, err := proto.Marshal(e)
	require.NoError(t, err)
	return b
}

// writeBundle writes a bundle of float32 vectors and strings with a
// hand-built index (optionally snappy-compressed, several blocks).
func writeBundle(t *testing.T, compress bool) string {
	dir := t.TempDir()
	prefix := filepath.Join(dir, "ckpt")
	var data []byte
	hdr, err := proto.Marshal(&mgpb.BundleHeaderProto{NumShards: 1})
	require.NoError(t, err)
	entries := []tableEntry{{key: []byte(""), value: hdr}}
	for i := 0; i < 20; i++ {
		var raw []byte
		for j := 0; j <= i; j++ {
			raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(float32(i*100+j)))
		}
		e := &mgpb.BundleEntryProto{
			Dtype:  tpb.DataType_DT_FLOAT,
			Shape:  &tspb.TensorShapeProto{Dim: []*tspb.TensorShapeProto_Dim{{Size: int64(i + 1)}}},
			Offset: int64(len(data)), Size: int64(len(raw)),
			Crc32C: maskedCRC(crc32.Checksum(raw, castagnoli)),
		}
		data = append(data, raw...)
		entries = append(entries, tableEntry{key: []byte(fmt.Sprintf("layer/var_%02d", i)), value: entryBytes(t, e)})
	}
	// A string tensor in WriteStringTensor's layout.
	strs := []string{"hello", "", "world!"}
	var body, lens []byte
	crc := uint32(0)
	for _, s := range strs {
		lens = putUvarint(lens, uint64(len(s)))
		crc = crc32.Update(crc, castagnoli, binary.LittleEndian.AppendUint32(nil, uint32(len(s))))
	}
	lenCRC := binary.LittleEndian.AppendUint32(nil, maskedCRC(crc))
	crc = crc32.Update(crc, castagnoli, lenCRC)
	body = append(append(lens, lenCRC...), []byte("helloworld!")...)
	crc = crc32.Update(crc, castagnoli, []byte("helloworld!"))
	se := &mgpb.BundleEntryProto{
		Dtype:  tpb.DataType_DT_STRING,
		Shape:  &tspb.TensorShapeProto{Dim: []*tspb.TensorShapeProto_Dim{{Size: 3}}},
		Offset: int64(len(data)), Size: int64(len(body)), Crc32C: maskedCRC(crc),
	}
	data = append(data, body...)
	entries = append(entries, tableEntry{key: []byte("vocab"), value: entryBytes(t, se)})
	require.NoError(t, os.WriteFile(IndexPath(prefix), buildTable(entries, 4, compress), 0o644))
	require.NoError(t, os.WriteFile(ShardPath(prefix, 0, 1), data, 0o644))
	return prefix
}

func TestBuiltBundles(t *testing.T) {
	for _, compress := range []bool{false, true} {
		t.Run(fmt.Sprintf("snappy=%v", compress), func(t *testing.T) {
			r, err := Open(writeBundle(t, compress))
			require.NoError(t, err)
			require.Len(t, r.Keys(), 21)
			dt, shape, raw, err := r.Read("layer/var_07")
			require.NoError(t, err)
			assert.Equal(t, tpb.DataType_DT_FLOAT, dt)
			assert.Equal(t, []int64{8}, shape)
			assert.Equal(t, float32(707), math.Float32frombits(binary.LittleEndian.Uint32(raw[28:])))
			shape, s, err := r.ReadStrings("vocab")
			require.NoError(t, err)
			assert.Equal(t, []int64{3}, shape)
			assert.Equal(t, [][]byte{[]byte("hello"), {}, []byte("world!")}, s)
			_, _, _, err = r.Read("nope")
			assert.ErrorContains(t, err, `no tensor "nope"`)
			_, _, _, err = r.Read("vocab")
			assert.ErrorContains(t, err, "ReadStrings")
		})
	}
}

func TestStringChecksum(t *testing.T) {
	prefix := writeBundle(t, false)
	b, err := os.ReadFile(ShardPath(prefix, 0, 1))
	require.NoError(t, err)
	b[len(b)-1] ^= 1
	require.NoError(t, os.WriteFile(ShardPath(prefix, 0, 1), b, 0o644))
	r, err := Open(prefix)
	require.NoError(t, err)
	_, _, err = r.ReadStrings("vocab")
	assert.ErrorContains(t, err, "checksum mismatch")
}

func TestSnappyDecode(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want string
		err  string
	}{
		{"literal", []byte{3, 2 << 2, 'a', 'b', 'c'}, "abc", ""},
		// "abcd" then copy-1 length 4 offset 4, then copy-2 length 3 offset 2.
		{"copies", []byte{11, 3 << 2, 'a', 'b', 'c', 'd', 1 | 0<<2, 4, 2 | 2<<2, 2, 0}, "abcdabcdcdc", ""},
		{"run length overlap", []byte{6, 0, 'x', 1 | 1<<2, 1}, "xxxxxx", ""},
		{"long literal length", append([]byte{61, 60 << 2, 60}, []byte("0123456789012345678901234567890123456789012345678901234567890")...), "0123456789012345678901234567890123456789012345678901234567890", ""},
		{"bad offset", []byte{5, 0, 'x', 1 | 0<<2, 9}, "", "corrupt input"},
		{"length too big", []byte{0xff, 0xff, 0xff, 0xff, 0x0f}, "", "too large"},
		{"short output", []byte{4, 0, 'x'}, "", "corrupt input"},
		{"literal past end", []byte{4, 3 << 2, 'x'}, "", "corrupt input"},
		{"impossible length", []byte{0x80, 0x40, 0}, "", "impossible"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := snappyDecode(tt.in)
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
		})
	}
}

// FuzzIndex feeds arbitrary bytes to the index parser; it must return an
// error or a reader, never panic or allocate without bound.
func FuzzIndex(f *testing.F) {
	for _, m := range []string{"sm_half_plus_two_v1", "sm_fuzz_const_no_value"} {
		if b, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "corpus", "tf", m, "variables", "variables.index")); err == nil {
			f.Add(b)
		}
	}
	hdr, _ := proto.Marshal(&mgpb.BundleHeaderProto{NumShards: 1})
	f.Add(buildTable([]tableEntry{{key: nil, value: hdr}, {key: []byte("k"), value: []byte{8, 1}}}, 1, true))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := parseIndex(b)
		if err == nil {
			for _, k := range r.Keys() {
				if _, ok := r.Entry(k); !ok {
					t.Fatal("key without entry")
				}
			}
		}
	})
}

// FuzzBlock fuzzes the block and Snappy decoders directly, below the
// checksums that stop most FuzzIndex inputs early.
func FuzzBlock(f *testing.F) {
	f.Add(buildBlock([]tableEntry{{key: []byte("ab"), value: []byte("1")}, {key: []byte("ac"), value: []byte("2")}}, 1))
	f.Add(snappyLiteral([]byte("hello hello hello")))
	f.Add([]byte{11, 3 << 2, 'a', 'b', 'c', 'd', 1, 4, 2 | 2<<2, 2, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = blockEntries(b)
		if out, err := snappyDecode(b); err == nil {
			if n, _ := binary.Uvarint(b); uint64(len(out)) != n {
				t.Fatalf("decoded %d bytes, header %d", len(out), n)
			}
		}
	})
}
