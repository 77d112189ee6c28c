package opdefs

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	opdefpb "github.com/wamuir/graft/tensorflow/core/framework/op_def_go_proto"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// The index decodes, op by op, exactly what Load decodes whole.
func TestEmbeddedMatchesLoad(t *testing.T) {
	list, err := Load()
	require.NoError(t, err)
	x, err := Embedded()
	require.NoError(t, err)
	require.Equal(t, len(list.Op), x.Len())
	for _, want := range list.Op {
		require.True(t, x.Has(want.Name), want.Name)
		got, err := x.Lookup(want.Name)
		require.NoError(t, err)
		require.True(t, proto.Equal(want, got), want.Name)
	}
	got, err := x.Lookup("NoSuchOp")
	assert.NoError(t, err)
	assert.Nil(t, got)
	assert.False(t, x.Has("NoSuchOp"))
}

// An op is decoded once: lookups at the same time get the same OpDef
// (make test runs this under the race detector too).
func TestEmbeddedOpsDecodeOnceAtTheSameTime(t *testing.T) {
	x, err := NewIndex(encode(t, &opdefpb.OpDef{Name: "A"}, &opdefpb.OpDef{Name: "B"}))
	require.NoError(t, err)
	const n = 8
	got := make([]*opdefpb.OpDef, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			d, err := x.Lookup("B")
			assert.NoError(t, err)
			got[i] = d
		})
	}
	wg.Wait()
	require.NotNil(t, got[0])
	assert.Equal(t, "B", got[0].Name)
	for _, d := range got {
		assert.Same(t, got[0], d)
	}
}

func TestNewIndex(t *testing.T) {
	named := func(name string) []byte { return encode(t, &opdefpb.OpDef{Name: name})[2:] }
	tests := []struct {
		name    string
		b       []byte
		ops     []string
		summary map[string]string // op → its OpDef's summary
		err     string
	}{
		{name: "empty", b: nil},
		{name: "ops", b: encode(t, &opdefpb.OpDef{Name: "A"}, &opdefpb.OpDef{Name: "B"}), ops: []string{"A", "B"}},
		{name: "a name given twice keeps the last OpDef",
			b:       encode(t, &opdefpb.OpDef{Name: "A", Summary: "first"}, &opdefpb.OpDef{Name: "A", Summary: "last"}),
			ops:     []string{"A"},
			summary: map[string]string{"A": "last"}},
		{name: "an OpDef's name given twice is its last",
			b:   protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), append(named("A"), named("B")...)),
			ops: []string{"B"}},
		{name: "another field of the list is skipped",
			b:   append(protowire.AppendVarint(protowire.AppendTag(nil, 2, protowire.VarintType), 7), encode(t, &opdefpb.OpDef{Name: "A"})...),
			ops: []string{"A"}},
		{name: "an OpDef without a name", b: encode(t, &opdefpb.OpDef{Summary: "s"}), err: "without a name"},
		{name: "truncated", b: encode(t, &opdefpb.OpDef{Name: "A"})[:3], err: "unexpected EOF"},
		{name: "bad tag", b: []byte{0x80}, err: "unexpected EOF"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x, err := NewIndex(tc.b)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, len(tc.ops), x.Len())
			for _, op := range tc.ops {
				d, err := x.Lookup(op)
				require.NoError(t, err)
				require.NotNil(t, d, op)
				assert.Equal(t, op, d.Name)
				if s, ok := tc.summary[op]; ok {
					assert.Equal(t, s, d.Summary)
				}
			}
		})
	}
}

func TestNilIndex(t *testing.T) {
	var x *Index
	assert.Zero(t, x.Len())
	assert.False(t, x.Has("A"))
	d, err := x.Lookup("A")
	assert.NoError(t, err)
	assert.Nil(t, d)
}

// FuzzNewIndex: the index never panics, and where proto.Unmarshal reads
// the bytes as an OpList too, each name's OpDef is the list's last of that
// name.
func FuzzNewIndex(f *testing.F) {
	f.Add(encode(f, &opdefpb.OpDef{Name: "A", Summary: "s"}, &opdefpb.OpDef{Name: "B"}))
	f.Add(encode(f, &opdefpb.OpDef{Name: "A", Summary: "first"}, &opdefpb.OpDef{Name: "A", Summary: "last"}))
	f.Add([]byte{0x0a, 0x02, 0x0a, 0x00})
	f.Fuzz(func(t *testing.T, b []byte) {
		x, err := NewIndex(b)
		list := &opdefpb.OpList{}
		if err != nil || proto.Unmarshal(b, list) != nil {
			return
		}
		last := map[string]*opdefpb.OpDef{}
		for _, op := range list.Op {
			last[op.Name] = op
		}
		require.Equal(t, len(last), x.Len())
		for name, want := range last {
			got, err := x.Lookup(name)
			require.NoError(t, err, name)
			require.True(t, proto.Equal(want, got), name)
		}
	})
}

// encode is the OpList of ops, encoded.
func encode(t testing.TB, ops ...*opdefpb.OpDef) []byte {
	t.Helper()
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(&opdefpb.OpList{Op: ops})
	require.NoError(t, err)
	return b
}

// BenchmarkEmbedded measures what a command pays for the embedded ops
// before it reads a model, indexed (Embedded's work, with the few dozen
// lookups of a small model) against decoded whole (Load).
func BenchmarkEmbedded(b *testing.B) {
	list, err := Load()
	require.NoError(b, err)
	var some []string
	for i, op := range list.Op {
		if i%40 == 0 {
			some = append(some, op.Name)
		}
	}
	b.Run("Load", func(b *testing.B) {
		for b.Loop() {
			if _, err := Load(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Index", func(b *testing.B) {
		for b.Loop() {
			x, err := NewIndex(opsPb)
			if err != nil {
				b.Fatal(err)
			}
			for _, op := range some {
				if _, err := x.Lookup(op); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
