package coverage

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
)

// sampleDump is a KernelList like get_all_registered_kernels() returns on
// an ITEX install: CPU, XPU and DEFAULT kernels.
func sampleDump() *kdpb.KernelList {
	return &kdpb.KernelList{Kernel: []*kdpb.KernelDef{
		{Op: "Relu", DeviceType: "CPU"},
		{Op: "Relu", DeviceType: "XPU", Constraint: []*kdpb.KernelDef_AttrConstraint{typeConstraint("T", 1, 19)}},
		{Op: "Identity", DeviceType: "DEFAULT", Constraint: []*kdpb.KernelDef_AttrConstraint{typeConstraint("T", 1)}},
		{Op: "MatMul", DeviceType: "XPU", Priority: 1},
	}}
}

func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, data, 0o644))
	return p
}

func TestLoadRegistryFileDumpEncodings(t *testing.T) {
	text, err := prototext.Marshal(sampleDump())
	require.NoError(t, err)
	js, err := protojson.Marshal(sampleDump())
	require.NoError(t, err)
	bin, err := proto.Marshal(sampleDump())
	require.NoError(t, err)
	header := "# tfscan live dump\n# tf_version: 2.15.0\n# host: box1\n# plugins: intel_extension_for_tensorflow, none\n# date: 2024-05-01\n"
	jsonWithHeader := `{"tfscan_dump":{"tf_version":"2.15.0","host":"box1","plugins":["intel_extension_for_tensorflow"],"date":"2024-05-01"},` + string(js)[1:]

	tests := []struct {
		name, file string
		data       []byte
		sidecar    string
		wantSource string
	}{
		{"text with header", "dump.pbtxt", append([]byte(header), text...), "", "live dump from host box1; TensorFlow 2.15.0; plugins intel_extension_for_tensorflow"},
		{"json with header", "dump.json", []byte(jsonWithHeader), "", "live dump from host box1; TensorFlow 2.15.0; plugins intel_extension_for_tensorflow"},
		{"plain json", "dump.json", js, "", "live dump from an unrecorded host/stack"},
		{"binary", "dump.pb", bin, "", "live dump from an unrecorded host/stack"},
		{"binary with sidecar", "dump.pb", bin, `{"host":"box2","tf_version":"2.14.1"}`, "live dump from host box2; TensorFlow 2.14.1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, tc.file, tc.data)
			if tc.sidecar != "" {
				require.NoError(t, os.WriteFile(path+".meta.json", []byte(tc.sidecar), 0o644))
			}
			packs, err := LoadRegistryFile(path)
			require.NoError(t, err)
			var names []string
			for _, p := range packs {
				names = append(names, p.Name)
			}
			assert.Equal(t, []string{"CPU", "DEFAULT", "XPU"}, names)
			xpu := packs[2]
			assert.Equal(t, MethodLiveDump, xpu.Method)
			assert.Equal(t, tc.wantSource, xpu.Source)
			assert.Equal(t, []string{"MatMul", "Relu"}, xpu.Ops())
			assert.True(t, xpu.HasDefaultKernels(), "a dump's device packs carry its DEFAULT kernels")
			defs, err := DefaultKernelsFor(xpu)
			require.NoError(t, err)
			require.Len(t, defs, 1)
			assert.Equal(t, "Identity", defs[0].Op)
		})
	}
}

func TestLoadRegistryFileReadsPacks(t *testing.T) {
	var buf strings.Builder
	require.NoError(t, WritePack(&buf, samplePack()))
	packs, err := LoadRegistryFile(writeFile(t, "p.json", []byte(buf.String())))
	require.NoError(t, err)
	require.Len(t, packs, 1)
	assert.Equal(t, "sample", packs[0].Name)
}

func TestLoadRegistryFileErrorsNameTheFile(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "empty file"},
		{"garbage binary", []byte{0xff, 0xfe, 0x00, 0x12, 0x99}, "not a KernelList in binary form"},
		{"bad text", []byte("kernel { opp: 'x' }"), "not a KernelList in text form"},
		{"bad json", []byte(`{"kernel": 3}`), "not a KernelList in JSON form"},
		{"no kernels", []byte("# only a comment\n"), "no kernels"},
		{"kernel without device", []byte(`kernel { op: "X" }`), `no device_type`},
		{"broken pack", []byte(`{"format":"tfscan-pack/v1","name":""}`), "no name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, "reg.bin", tc.data)
			_, err := LoadRegistryFile(path)
			require.Error(t, err)
			assert.Contains(t, err.Error(), path)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	_, err := LoadRegistryFile(filepath.Join(t.TempDir(), "missing.pbtxt"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "missing.pbtxt")
}

func TestDumpPackChoosesDevice(t *testing.T) {
	d := &Dump{Kernels: sampleDump().Kernel, Header: DumpHeader{Host: "h"}}
	p, err := d.Pack(ImportOptions{Name: "itex-live", Vendor: "Intel"})
	require.NoError(t, err)
	assert.Equal(t, "XPU", p.DeviceType, "the only accelerator type is picked")
	assert.Equal(t, "itex-live", p.Name)
	assert.Len(t, p.Kernels, 4, "XPU kernels plus DEFAULT and CPU kernels")
	assert.Len(t, p.OwnKernels(), 2)
	assert.Equal(t, []string{"Relu"}, opsOf(p.HostKernels()), "the dump's CPU kernels are the host fallback")
	assert.Equal(t, LevelHigh, p.ConfidenceLevel)

	p, err = d.Pack(ImportOptions{Name: "cpu-live", Vendor: "x", DeviceType: "CPU", Source: "my box"})
	require.NoError(t, err)
	assert.Equal(t, "my box", p.Source)
	assert.Equal(t, []string{"Relu"}, p.Ops())

	_, err = d.Pack(ImportOptions{Name: "n", DeviceType: "GPU"})
	assert.ErrorContains(t, err, `no kernels for device type "GPU"`)

	two := &Dump{Kernels: append(sampleDump().Kernel, &kdpb.KernelDef{Op: "A", DeviceType: "GPU"})}
	_, err = two.Pack(ImportOptions{Name: "n"})
	assert.ErrorContains(t, err, "choose one with --device-type")
}

func FuzzParseDump(f *testing.F) {
	text, _ := prototext.Marshal(sampleDump())
	bin, _ := proto.Marshal(sampleDump())
	js, _ := protojson.Marshal(sampleDump())
	f.Add(text)
	f.Add(bin)
	f.Add(js)
	f.Add([]byte(mluDump))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := parseDump("fuzz", data)
		if err != nil {
			return
		}
		for _, dt := range d.DeviceTypes() {
			if _, err := d.Pack(ImportOptions{Name: "x", DeviceType: dt}); err != nil {
				t.Fatalf("device type %q from the dump must import: %v", dt, err)
			}
		}
	})
}

func opsOf(ks []*kdpb.KernelDef) []string {
	var out []string
	for _, k := range ks {
		out = append(out, k.GetOp())
	}
	return out
}

// A text dump as tools/dump_registry.py writes it for a Cambricon install:
// header, KernelList, then the OpList after the marker line.
const mluDump = `# tfscan live dump (tools/dump_registry.py)
# tf_version: 2.10.0
# device_types: CPU, DEFAULT, MLU
# packages: tensorflow==2.10.0+mlu1.2.3
# host: box (Linux x86_64, Python 3.8.10)
# plugins: none
# date: 2026-11-30
kernel { op: "Conv2D" device_type: "MLU" constraint { name: "T" allowed_values { list { type: DT_FLOAT } } } }
kernel { op: "MLUFusedAct" device_type: "MLU" }
kernel { op: "Conv2D" device_type: "CPU" }
kernel { op: "Identity" device_type: "DEFAULT" }

# tfscan: op_list
op { name: "Conv2D" attr { name: "T" type: "type" } }
op { name: "MLUFusedAct" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }
`

func TestDumpOpListAndHeader(t *testing.T) {
	d, err := ReadDumpFile(writeFile(t, "mlu.pbtxt", []byte(mluDump)))
	require.NoError(t, err)
	assert.Equal(t, []string{"CPU", "DEFAULT", "MLU"}, d.Header.DeviceTypes)
	assert.Equal(t, []string{"tensorflow==2.10.0+mlu1.2.3"}, d.Header.Packages)
	require.Len(t, d.OpDefs, 2)
	p, err := d.Pack(ImportOptions{Name: "cambricon-mlu", Vendor: "Cambricon"})
	require.NoError(t, err)
	assert.Equal(t, "MLU", p.DeviceType)
	assert.Contains(t, p.Source, "packages tensorflow==2.10.0+mlu1.2.3")
	require.Len(t, p.OpDefs, 1, "only the op tfscan's embedded OpDefs lack is kept")
	assert.Equal(t, "MLUFusedAct", p.OpDefs[0].GetName())
	assert.Equal(t, []string{"Conv2D"}, opsOf(p.HostKernels()))

	// JSON form: "op_list" next to the KernelList.
	js := `{"tfscan_dump": {"tf_version": "2.10.0", "packages": ["tensorflow==2.10.0+mlu1.2.3"]},
	  "kernel": [{"op": "Relu", "device_type": "MLU"}],
	  "op_list": {"op": [{"name": "MLUFusedAct"}]}}`
	d, err = ReadDumpFile(writeFile(t, "mlu.json", []byte(js)))
	require.NoError(t, err)
	require.Len(t, d.OpDefs, 1)

	_, err = ReadDumpFile(writeFile(t, "bad.pbtxt", []byte(`kernel { op: "A" device_type: "MLU" }`+"\n# tfscan: op_list\nop { name: }\n")))
	assert.ErrorContains(t, err, "the OpList after")
}
