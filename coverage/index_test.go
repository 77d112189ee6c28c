package coverage

import (
	"slices"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"
)

// plainIndex is what NewIndex groups, built one kernel at a time: the
// reference its runs of kernels are checked against.
func plainIndex(p, defaults *Pack) (byOp, dflt map[string][]*kdpb.KernelDef, constrained map[string][]string) {
	byOp, dflt, constrained = map[string][]*kdpb.KernelDef{}, map[string][]*kdpb.KernelDef{}, map[string][]string{}
	own := false
	for _, k := range p.Kernels {
		switch k.GetDeviceType() {
		case p.DeviceType:
			byOp[k.GetOp()] = append(byOp[k.GetOp()], k)
		case DeviceDefault:
			dflt[k.GetOp()] = append(dflt[k.GetOp()], k)
			own = true
		}
	}
	if !own && defaults != nil && p.DeviceType != DeviceDefault {
		for _, k := range defaults.Kernels {
			if k.GetDeviceType() == DeviceDefault {
				dflt[k.GetOp()] = append(dflt[k.GetOp()], k)
			}
		}
	}
	for _, m := range []map[string][]*kdpb.KernelDef{byOp, dflt} {
		for op, ks := range m {
			for _, k := range ks {
				for _, c := range k.GetConstraint() {
					if !slices.Contains(constrained[op], c.GetName()) {
						constrained[op] = append(constrained[op], c.GetName())
					}
				}
			}
		}
	}
	for _, l := range constrained {
		slices.Sort(l)
	}
	return byOp, dflt, constrained
}

// assertIndexes checks ix against the plain grouping of p and defaults, op
// by op (and an op of neither).
func assertIndexes(t *testing.T, ix *Index, p, defaults *Pack) {
	t.Helper()
	byOp, dflt, constrained := plainIndex(p, defaults)
	ops := []string{"NoSuchOp"}
	for _, m := range []map[string][]*kdpb.KernelDef{byOp, dflt} {
		for op := range m {
			ops = append(ops, op)
		}
	}
	for _, op := range ops {
		e := ix.kernelsOf(op)
		require.Equal(t, byOp[op], e.own, "%s kernels", op)
		require.Equal(t, dflt[op], e.dflt, "%s DEFAULT kernels", op)
		require.Equal(t, constrained[op], ix.ConstrainedAttrs(op), op)
		require.Equal(t, len(byOp[op]) > 0, ix.HasOp(op), op)
	}
}

func TestNewIndexGroupsEveryBuiltinPack(t *testing.T) {
	defaults, err := BuiltinPack(DefaultPackName)
	require.NoError(t, err)
	packs, err := BuiltinPacks()
	require.NoError(t, err)
	for _, p := range packs {
		t.Run(p.Name, func(t *testing.T) { assertIndexes(t, NewIndex(p, defaults), p, defaults) })
	}
}

func TestNewIndexGroupsKernelsOutOfOrder(t *testing.T) {
	k := func(op, dev string, attrs ...string) *kdpb.KernelDef {
		kd := &kdpb.KernelDef{Op: op, DeviceType: dev}
		for _, a := range attrs {
			kd.Constraint = append(kd.Constraint, &kdpb.KernelDef_AttrConstraint{Name: a})
		}
		return kd
	}
	p := &Pack{Name: "x", DeviceType: "XPU", Kernels: []*kdpb.KernelDef{
		k("Add", "XPU", "T"), k("Add", "CPU", "T"), k("Add", "XPU", "T"),
		k("Relu", "XPU"), k("Add", "DEFAULT", "U", "T"), k("Relu", "XPU", "T"),
		k("Add", "XPU", "Tidx"), k("Const", "DEFAULT", "dtype"),
	}}
	ix := NewIndex(p, nil)
	assertIndexes(t, ix, p, nil)
	require.Len(t, ix.kernelsOf("Add").own, 3)
	// A run is a slice of the pack's own array: what is appended to an op
	// found again later must not overwrite the kernels after its run.
	assert.Same(t, p.Kernels[3], ix.kernelsOf("Relu").own[0])
	assert.Equal(t, []string{"T", "Tidx", "U"}, ix.ConstrainedAttrs("Add"))
	assert.Equal(t, "Relu", p.Kernels[3].GetOp())

	withDefaults := &Pack{Name: "y", DeviceType: "YPU", Kernels: []*kdpb.KernelDef{k("Add", "YPU")}}
	assertIndexes(t, NewIndex(withDefaults, p), withDefaults, p)
}

// TestLazyPacksReadAsBuiltinPack checks every built-in pack read lazily
// against the pack BuiltinPack decodes: what it says besides its kernels,
// and each op's kernels, as an Index of either groups them (kernel by
// kernel: proto.Equal), with the default pack's DEFAULT kernels (read
// whole or lazily) or not.
func TestLazyPacksReadAsBuiltinPack(t *testing.T) {
	defaults, err := BuiltinPack(DefaultPackName)
	require.NoError(t, err)
	lazyDefaults, err := BuiltinPackLazy(DefaultPackName)
	require.NoError(t, err)
	names, err := builtinNames()
	require.NoError(t, err)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			whole, err := BuiltinPack(name)
			require.NoError(t, err)
			lazy, err := BuiltinPackLazy(name)
			require.NoError(t, err)
			require.NotNil(t, lazy.lazy, "read lazily")
			assert.Nil(t, lazy.Kernels)
			info := *lazy
			info.lazy, info.Kernels = nil, whole.Kernels
			assert.Equal(t, whole, &info, "all but the kernels as BuiltinPack reads them")

			for _, ds := range [][2]*Pack{{defaults, defaults}, {defaults, lazyDefaults}, {nil, nil}} {
				d := ds[0]
				want, got := NewIndex(whole, d), NewIndex(lazy, ds[1])
				if ds[1] != nil {
					assertIndexes(t, NewIndex(whole, ds[1]), whole, d)
				}
				assert.Same(t, whole, got.Pack(), "Pack has every kernel")
				assert.Same(t, lazy, got.Info())
				ops := append(whole.Ops(), "NoSuchOp")
				if d != nil {
					for _, k := range d.Kernels {
						ops = append(ops, k.GetOp())
					}
				}
				for _, op := range ops {
					w, g := want.kernelsOf(op), got.kernelsOf(op)
					requireSameKernels(t, w.own, g.own, op)
					requireSameKernels(t, w.dflt, g.dflt, op)
					require.Equal(t, w.constrained, g.constrained, op)
					require.Same(t, g, got.kernelsOf(op), "decoded once")
				}
			}
		})
	}
}

func requireSameKernels(t *testing.T, want, got []*kdpb.KernelDef, op string) {
	t.Helper()
	require.Len(t, got, len(want), op)
	for i := range want {
		require.True(t, proto.Equal(want[i], got[i]), "%s kernel %d: %v, want %v", op, i, got[i], want[i])
	}
}

// TestLazyPackIsDecodedWholeWhereItMustBe checks what reads every kernel
// of a lazily read pack: MergeLearned with a learned pack that corrects
// it.
func TestLazyPackIsDecodedWholeWhereItMustBe(t *testing.T) {
	lazy, err := BuiltinPackLazy("musa")
	require.NoError(t, err)
	whole, err := BuiltinPack("musa")
	require.NoError(t, err)
	learned := &Pack{Name: "learned", DeviceType: "MUSA", Method: MethodLearnedFromLog, Source: "log",
		Complete: []CompleteOp{{Op: "Relu", DeviceTypes: []string{"MUSA"}}},
		Kernels:  []*kdpb.KernelDef{{Op: "Relu", DeviceType: "MUSA"}}}
	want := MergeLearned(whole, []*Pack{learned}, nil)
	got := MergeLearned(lazy, []*Pack{learned}, nil)
	require.NotNil(t, got.Kernels)
	require.Len(t, got.Kernels, len(want.Kernels))
	assert.Nil(t, got.lazy)
}

// TestLazyKernelsDecodeOnceAtTheSameTime: indexes of one lazily read pack
// asked for an op at the same time (a scan's source and target placed side
// by side) decode its kernels once, and each index keeps one entry an op.
func TestLazyKernelsDecodeOnceAtTheSameTime(t *testing.T) {
	p, err := BuiltinPackLazy("cuda")
	require.NoError(t, err)
	defaults, err := BuiltinPackLazy(DefaultPackName)
	require.NoError(t, err)
	indexes := []*Index{NewIndex(p, defaults), NewIndex(p, defaults)}
	const n = 8
	got := make([]*opKernels, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { got[i] = indexes[i%2].kernelsOf("MatMul") })
	}
	wg.Wait()
	require.NotEmpty(t, got[0].own)
	for i, e := range got {
		assert.Same(t, got[i%2], e, "one entry an index")
		assert.Same(t, got[0].own[0], e.own[0], "decoded once")
	}
}
