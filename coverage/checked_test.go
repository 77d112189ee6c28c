package coverage

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"
)

func TestKernelKey(t *testing.T) {
	k := &kdpb.KernelDef{Op: "Sum", DeviceType: "GPU", Label: "x", Priority: 2,
		Constraint:    []*kdpb.KernelDef_AttrConstraint{typeConstraint("T", 3, 1, 1), typeConstraint("Tidx", 3)},
		HostMemoryArg: []string{"reduction_indices", "input", "input"}}
	assert.Equal(t, `Sum GPU label="x" priority=2 T={float32, int32} Tidx={int32} host=input,reduction_indices`, KernelKey(k))
	assert.Equal(t, []string{"reduction_indices", "input", "input"}, k.HostMemoryArg, "the kernel itself is not changed")
	assert.Equal(t, "NoOp DEFAULT", KernelKey(&kdpb.KernelDef{Op: "NoOp", DeviceType: "DEFAULT"}))
}

func TestCompareKernels(t *testing.T) {
	pack := &Pack{Name: "p", Kernels: []*kdpb.KernelDef{
		{Op: "A", DeviceType: "CPU"},
		{Op: "B", DeviceType: "CPU", Constraint: []*kdpb.KernelDef_AttrConstraint{typeConstraint("T", 1, 2)}},
		{Op: "C", DeviceType: "CPU", Label: "l"},
		{Op: "D", DeviceType: "GPU"}, // another device type: not compared
	}}
	binary := []*kdpb.KernelDef{
		{Op: "A", DeviceType: "CPU"},
		{Op: "B", DeviceType: "CPU", Constraint: []*kdpb.KernelDef_AttrConstraint{typeConstraint("T", 2, 1)}}, // same set
		{Op: "C", DeviceType: "CPU"}, // label differs
		{Op: "E", DeviceType: "CPU", HostMemoryArg: []string{"x"}},
	}
	c := CompareKernels(pack, binary, "CPU")
	assert.Equal(t, 4, c.Binary)
	assert.Equal(t, 3, c.PackKernels)
	assert.Equal(t, 2, c.Agree)
	assert.Equal(t, []string{"C CPU", "E CPU host=x"}, c.Missing)
	assert.Equal(t, []string{`C CPU label="l"`}, c.Extra)
	assert.InDelta(t, 0.5, c.Recall(), 1e-9)
	assert.InDelta(t, 2.0/3, c.Precision(), 1e-9)
}

func TestKnownDifferencesParse(t *testing.T) {
	known, err := KnownDifferences()
	require.NoError(t, err)
	for _, k := range known {
		c := CheckedAgainst(k.Pack)
		assert.True(t, c != nil && c.Conformance, "%s: not a pack conformance checks", k.Pack)
	}
	for _, c := range binaryChecks {
		p, err := BuiltinPack(c.Pack)
		require.NoError(t, err, c.Pack)
		assert.Equal(t, c.DeviceType, p.DeviceType, c.Pack)
		if c.Conformance {
			assert.Equal(t, c.TFVersion, p.TFVersion, c.Pack)
		} else {
			assert.NotEmpty(t, c.Setting, "%s: a check made once says how", c.Pack)
		}
		assert.Len(t, c.SHA256, 64, c.Pack)
	}
	assert.Nil(t, CheckedAgainst("musa"))
}

// A dump that the built-in packs cannot be checked against says why in one
// line.
func TestCheckDumpRefuses(t *testing.T) {
	kernels := []*kdpb.KernelDef{{Op: "NoOp", DeviceType: "CPU"}, {Op: "NoOp", DeviceType: "GPU"}, {Op: "NoOp", DeviceType: "DEFAULT"}}
	tests := []struct {
		name string
		d    *Dump
		want string
	}{
		{"another version", &Dump{Header: DumpHeader{TFVersion: "2.16.1"}, Kernels: kernels},
			"a dump of TensorFlow 2.16.1, but the built-in packs are checked against TensorFlow 2.15.0"},
		{"no version", &Dump{Kernels: kernels}, "the dump's header does not say its TensorFlow version"},
		{"no GPU kernels", &Dump{Header: DumpHeader{TFVersion: "2.15.0"}, Kernels: kernels[:1]},
			"the dump has no GPU kernels (it has CPU), so the cuda pack cannot be checked"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := CheckDump(tc.d)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "\n")
		})
	}
}

// CheckDump flags what the explained list does not cover: a dump equal to
// the built-in packs but for one kernel more has exactly that one
// unexplained difference, and every listed difference is stale.
func TestCheckDumpUnexplainedAndStale(t *testing.T) {
	d := &Dump{Header: DumpHeader{TFVersion: "2.15.0"}}
	for _, c := range BinaryChecks() {
		p, err := BuiltinPack(c.Pack)
		require.NoError(t, err)
		d.Kernels = append(d.Kernels, p.OwnKernels()...)
	}
	d.Kernels = append(d.Kernels, &kdpb.KernelDef{Op: "NotAnOp", DeviceType: "GPU"})
	known, err := KnownDifferences()
	require.NoError(t, err)
	checks, err := CheckDump(d)
	require.NoError(t, err)
	var unexplained, stale []string
	for _, c := range checks {
		for _, u := range c.Unexplained {
			unexplained = append(unexplained, c.Pack+" "+u)
		}
		for _, s := range c.Stale {
			stale = append(stale, fmt.Sprintf("%s %s %s", s.Pack, s.Side, s.Kernel))
		}
		assert.Equal(t, c.Pack != "cuda" && len(c.Stale) == 0, c.OK(), c.Pack)
	}
	assert.Equal(t, []string{"cuda - NotAnOp GPU"}, unexplained)
	assert.Len(t, stale, len(known))
}

func TestDumpTruncated(t *testing.T) {
	head := "# tfscan live dump (tools/dump_registry.py)\n# tf_version: 2.15.0\n# kernels: 3\n# op_defs: 1\n"
	full := head + `kernel { op: "A" device_type: "CPU" }
kernel { op: "B" device_type: "CPU" }
kernel { op: "C" device_type: "CPU" }

# tfscan: op_list
op { name: "A" }
`
	_, err := ReadDumpFile(writeFile(t, "full.pbtxt", []byte(full)))
	require.NoError(t, err)
	tests := []struct{ name, data, want string }{
		{"empty", "", "empty file"},
		{"header only", head, "KernelList has no kernels"},
		{"cut at a kernel", full[:strings.Index(full, `kernel { op: "C"`)], "truncated dump: its header says 3 kernels and 1 OpDefs, the file holds 2 and 0"},
		{"cut in a kernel", full[:strings.Index(full, `kernel { op: "C"`)+12], "not a KernelList in text form"},
		{"OpList lost", full[:strings.Index(full, "op {")], "truncated dump: its header says 3 kernels and 1 OpDefs, the file holds 3 and 0"},
		{"json", `{"tfscan_dump": {"tf_version": "2.15.0", "kernels": 2}, "kernel": [{"op": "A", "device_type": "CPU"}]}`,
			"truncated dump: its header says 2 kernels"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, "dump.pbtxt", []byte(tc.data))
			_, err := ReadDumpFile(path)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.True(t, strings.HasPrefix(err.Error(), path+": "), "names the file: %v", err)
			assert.NotContains(t, err.Error(), "\n")
		})
	}
}
