package coverage

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
	"google.golang.org/protobuf/proto"
)

// TestParsePackLazyFindsEachOpsKernels reads a pack WritePack writes
// lazily, and refuses the texts whose kernels it cannot find where they
// are (so that the pack is decoded whole): an op's kernels apart, a
// kernel over two lines, a kernel without an op, a third device type.
func TestParsePackLazyFindsEachOpsKernels(t *testing.T) {
	f32 := map[string][]tpb.DataType{"T": {tpb.DataType_DT_FLOAT}}
	i32 := map[string][]tpb.DataType{"T": {tpb.DataType_DT_INT32}}
	p := &Pack{Name: "x", DeviceType: "XPU", Mechanism: MechanismKernel, Source: "s", Method: MethodSourceExtraction,
		Kernels: []*kdpb.KernelDef{kernel("Add", "XPU", f32), kernel("Add", "XPU", i32), kernel("AddN", "XPU", f32),
			kernel("Relu", "DEFAULT", nil), kernel("Relu", "XPU", f32)}}
	var buf bytes.Buffer
	require.NoError(t, WritePack(&buf, p))
	text := buf.String()

	got, ok := parsePackLazy("x", []byte(text))
	require.True(t, ok)
	assert.Equal(t, []string{"XPU", "DEFAULT"}, got.lazy.devices)
	for op, want := range map[string][]*kdpb.KernelDef{
		"Add": p.Kernels[:2], "AddN": p.Kernels[2:3], "Relu": p.Kernels[3:], "Sub": nil,
	} {
		ks := got.lazy.kernels(op)
		require.Len(t, ks, len(want), op)
		for i := range want {
			assert.True(t, proto.Equal(want[i], ks[i]), "%s kernel %d: %v", op, i, ks[i])
		}
	}

	lines := strings.SplitAfter(text, "\n")
	kernelLine := func(op string) int {
		for i, l := range lines {
			if strings.HasPrefix(l, `    {"op":"`+op+`"`) {
				return i
			}
		}
		t.Fatalf("no kernel of %s in\n%s", op, text)
		return -1
	}
	for name, edit := range map[string]func() string{
		"an op's kernels apart": func() string {
			ls := append([]string{}, lines...)
			a, n := kernelLine("Add")+1, kernelLine("AddN")
			ls[a], ls[n] = ls[n], ls[a]
			return strings.Join(ls, "")
		},
		"a kernel over two lines": func() string {
			return strings.Replace(text, `{"op":"AddN","device_type":"XPU",`, "{\"op\":\"AddN\",\"device_type\":\"XPU\",\n", 1)
		},
		"a kernel without an op": func() string {
			return strings.Replace(text, `{"op":"AddN"`, `{"op":""`, 1)
		},
		"a third device type": func() string {
			return strings.Replace(text, `{"op":"AddN","device_type":"XPU"`, `{"op":"AddN","device_type":"CPU"`, 1)
		},
	} {
		t.Run(name, func(t *testing.T) {
			edited := edit()
			require.NotEqual(t, text, edited)
			_, ok := parsePackLazy("x", []byte(edited))
			assert.False(t, ok)
		})
	}
}

// FuzzParsePackLazy reads any bytes lazily, and where they are a pack in
// WritePack's bytes (what the lazy read is for: the built-in packs), gives
// each op the kernels the whole decode gives it.
func FuzzParsePackLazy(f *testing.F) {
	var good bytes.Buffer
	require.NoError(f, WritePack(&good, samplePack()))
	f.Add(good.Bytes())
	for _, p := range builtinPackJSON(f) {
		lines := kernelLines(p)
		f.Add(packWithKernels(f, string(lines[0]), string(lines[len(lines)-1])))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lazy, ok := parsePackLazy("", data)
		if !ok {
			return
		}
		whole, err := parsePack(data)
		if err != nil {
			return
		}
		// WritePack sorts and normalizes the kernels it is given: a
		// second decode's, so that whole's stay as read.
		canon, err := parsePack(data)
		require.NoError(t, err)
		var buf bytes.Buffer
		if WritePack(&buf, canon) != nil || !bytes.Equal(buf.Bytes(), data) {
			return
		}
		for _, op := range whole.Ops() {
			var want []*kdpb.KernelDef
			for _, k := range whole.Kernels {
				if k.GetOp() == op {
					want = append(want, k)
				}
			}
			requireSameKernels(t, want, lazy.lazy.kernels(op), op)
		}
	})
}
