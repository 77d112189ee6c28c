package coverage

import (
	"bytes"
	"compress/gzip"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

func typeConstraint(name string, types ...tpb.DataType) *kdpb.KernelDef_AttrConstraint {
	return &kdpb.KernelDef_AttrConstraint{
		Name:          name,
		AllowedValues: &attrpb.AttrValue{Value: &attrpb.AttrValue_List{List: &attrpb.AttrValue_ListValue{Type: types}}},
	}
}

func samplePack() *Pack {
	return &Pack{
		Name: "sample", Vendor: "Test", DeviceType: "GPU", Mechanism: MechanismKernel,
		TFVersion: "2.15.0", Source: "example/repo@abc", Method: MethodSourceExtraction,
		Date: "2023-11-10", Confidence: "test data",
		Kernels: []*kdpb.KernelDef{
			{Op: "Relu", DeviceType: "GPU", Constraint: []*kdpb.KernelDef_AttrConstraint{typeConstraint("T", tpb.DataType_DT_HALF, tpb.DataType_DT_FLOAT, tpb.DataType_DT_HALF)}},
			{Op: "Const", DeviceType: "DEFAULT", HostMemoryArg: []string{"output"}, Constraint: []*kdpb.KernelDef_AttrConstraint{typeConstraint("dtype", tpb.DataType_DT_INT32)}},
			{Op: "Add", DeviceType: "GPU", Label: "x", Priority: 1},
			{Op: "Relu", DeviceType: "GPU", Constraint: []*kdpb.KernelDef_AttrConstraint{typeConstraint("T", tpb.DataType_DT_FLOAT, tpb.DataType_DT_HALF)}},
		},
	}
}

func TestWritePackDeterministicAndRoundTrips(t *testing.T) {
	var a, b bytes.Buffer
	require.NoError(t, WritePack(&a, samplePack()))
	require.NoError(t, WritePack(&b, samplePack()))
	assert.Equal(t, a.String(), b.String(), "same pack, same bytes")
	// The duplicate Relu (same dtypes in another order) collapses to one.
	assert.Equal(t, 3, strings.Count(a.String(), `"op":`))
	assert.Contains(t, a.String(), `{"op":"Add","device_type":"GPU","label":"x","priority":1}`)

	p, err := ReadPack(bytes.NewReader(a.Bytes()))
	require.NoError(t, err)
	assert.Equal(t, "sample", p.Name)
	assert.Equal(t, "example/repo@abc", p.Source)
	require.Len(t, p.Kernels, 3)
	assert.Equal(t, []string{"Add", "Const", "Relu"}, []string{p.Kernels[0].Op, p.Kernels[1].Op, p.Kernels[2].Op})
	assert.Equal(t, []tpb.DataType{tpb.DataType_DT_FLOAT, tpb.DataType_DT_HALF}, p.Kernels[2].Constraint[0].AllowedValues.GetList().Type)

	var c bytes.Buffer
	require.NoError(t, WritePack(&c, p))
	assert.Equal(t, a.String(), c.String(), "read then write is byte-stable")
}

func TestWritePackGzipIsReproducibleAndReadable(t *testing.T) {
	var a, b bytes.Buffer
	require.NoError(t, WritePackGzip(&a, samplePack()))
	require.NoError(t, WritePackGzip(&b, samplePack()))
	assert.Equal(t, a.Bytes(), b.Bytes())
	p, err := ReadPack(&a)
	require.NoError(t, err)
	assert.Equal(t, "sample", p.Name)
}

func TestReadPackErrors(t *testing.T) {
	var good bytes.Buffer
	require.NoError(t, WritePack(&good, samplePack()))
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", "not a tfscan pack"},
		{"not json", "op { name: 'x' }", "not a tfscan pack"},
		{"wrong format", `{"format":"other","name":"x"}`, `format is "other"`},
		{"unknown field", strings.Replace(good.String(), `"vendor"`, `"vendr"`, 1), "unknown field"},
		{"no name", strings.Replace(good.String(), `"name": "sample"`, `"name": ""`, 1), "no name"},
		{"bad mechanism", strings.Replace(good.String(), `"mechanism": "kernel"`, `"mechanism": "magic"`, 1), `unknown mechanism "magic"`},
		{"kernel without op", strings.Replace(good.String(), `{"op":"Add",`, `{`, 1), "kernel 0: kernel has no op"},
		{"kernel bad field", strings.Replace(good.String(), `"label":"x"`, `"labl":"x"`, 1), "kernel 0"},
		{"truncated gzip", "\x1f\x8b\x08\x00", "gzip"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadPack(strings.NewReader(tc.in))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestReadPackRefusesHugeExpansion(t *testing.T) {
	old := maxPackBytes
	maxPackBytes = 4 << 20
	t.Cleanup(func() { maxPackBytes = old })
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	chunk := bytes.Repeat([]byte(" "), 1<<20)
	for i := 0; i < 6; i++ {
		_, _ = zw.Write(chunk)
	}
	require.NoError(t, zw.Close())
	_, err := ReadPack(&buf)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "larger than")
}

func FuzzReadPack(f *testing.F) {
	var good bytes.Buffer
	_ = WritePack(&good, samplePack())
	f.Add(good.Bytes())
	f.Add([]byte(`{"format":"tfscan-pack/v1","kernels":[{}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ReadPack(bytes.NewReader(data))
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := WritePack(&out, p); err != nil {
			t.Fatalf("a pack that reads must write: %v", err)
		}
	})
}
