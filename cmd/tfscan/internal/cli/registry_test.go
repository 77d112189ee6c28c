package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/coverage"
)

var updateRegistryGolden = flag.Bool("update-registry", false, "rewrite testdata/registry/*.golden")

func runRegistryCLI(t *testing.T, wd string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(context.Background(), append([]string{"registry"}, args...), strings.NewReader(""), &out, &errb, func(string) string { return "" }, wd)
	return code, out.String(), errb.String()
}

// fixtures copies testdata/registry into a temp dir used as the working
// directory, so that commands can write files next to the fixtures.
func fixtures(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir(filepath.Join("testdata", "registry"))
	require.NoError(t, err)
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join("testdata", "registry", e.Name()))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644))
	}
	return dir
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "registry", name)
	if *updateRegistryGolden {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -run Registry -update-registry")
	assert.Equal(t, string(want), got)
}

func TestRegistryList(t *testing.T) {
	code, out, _ := runRegistryCLI(t, t.TempDir(), "list")
	require.Equal(t, ExitOK, code)
	for _, name := range []string{"cpu", "cuda", "rocm", "default", "xla", "intel-xpu", "directml", "musa", "ascend", "cambricon-mlu", "hygon-dcu", "dump required"} {
		assert.Contains(t, out, name)
	}

	code, out, _ = runRegistryCLI(t, t.TempDir(), "list", "--format", "json")
	require.Equal(t, ExitOK, code)
	var got struct {
		Packs        []packSummary            `json:"packs"`
		DumpRequired []coverage.DumpOnlyStack `json:"dump_required"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	require.NotEmpty(t, got.Packs)
	for _, p := range got.Packs {
		assert.Positive(t, p.Kernels, p.Name)
		assert.Positive(t, p.Ops, p.Name)
		assert.NotEmpty(t, p.Source, p.Name)
		assert.NotEmpty(t, p.Confidence, p.Name)
	}
	assert.Len(t, got.DumpRequired, len(coverage.DumpOnlyStacks()))

	code, _, _ = runRegistryCLI(t, t.TempDir(), "list", "--format", "xml")
	assert.Equal(t, ExitUsage, code)
}

func TestRegistryShow(t *testing.T) {
	wd := fixtures(t)
	code, out, errs := runRegistryCLI(t, wd, "show", "a.pbtxt")
	require.Equal(t, ExitOK, code, errs)
	golden(t, "show_a.golden", out)

	code, out, _ = runRegistryCLI(t, wd, "show", "cuda", "--op", "Conv2D")
	require.Equal(t, ExitOK, code)
	assert.Contains(t, out, "T in {float16}")
	assert.Contains(t, out, "source:     tensorflow/tensorflow@")

	code, out, _ = runRegistryCLI(t, wd, "show", "--format", "json", "default", "--op", "Identity")
	require.Equal(t, ExitOK, code)
	var shown struct {
		Name       string      `json:"name"`
		KernelList []kernelRow `json:"kernel_list"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &shown))
	assert.Equal(t, "default", shown.Name)
	assert.NotEmpty(t, shown.KernelList)

	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"show"}, ExitUsage, "one pack name or file"},
		{[]string{"show", "nosuchpack"}, ExitUsage, `no built-in pack "nosuchpack"`},
		{[]string{"show", "dir/missing.json"}, ExitInput, "missing.json: no such file"},
		{[]string{"show", "cuda", "--op", "StringJoin"}, ExitUsage, `no kernel for op "StringJoin"`},
		{[]string{"show", "garbage.pbtxt"}, ExitInput, "garbage.pbtxt"},
		{[]string{"frobnicate"}, ExitUsage, "unknown subcommand"},
		{nil, ExitUsage, "no subcommand"},
	}
	require.NoError(t, os.WriteFile(filepath.Join(wd, "garbage.pbtxt"), []byte("kernel { op: "), 0o644))
	for _, tc := range tests {
		code, _, errs := runRegistryCLI(t, wd, tc.args...)
		assert.Equal(t, tc.code, code, tc.args)
		assert.Contains(t, errs, tc.want, tc.args)
	}
}

func TestRegistryImportAndDiff(t *testing.T) {
	wd := fixtures(t)
	code, _, errs := runRegistryCLI(t, wd, "import", "a.pbtxt", "--name", "itex-live", "--vendor", "Intel", "-o", "a.json")
	require.Equal(t, ExitOK, code, errs)
	assert.Contains(t, errs, "3 kernels for 3 ops on XPU (+1 DEFAULT kernels)")
	packs, err := coverage.LoadRegistryFile(filepath.Join(wd, "a.json"))
	require.NoError(t, err)
	require.Len(t, packs, 1)
	p := packs[0]
	assert.Equal(t, coverage.MethodLiveDump, p.Method)
	assert.Equal(t, "live dump from host ci-box; TensorFlow 2.15.0; plugins example_plugin", p.Source)
	assert.Equal(t, "2024-01-02", p.Date)
	assert.True(t, p.HasDefaultKernels())

	code, _, errs = runRegistryCLI(t, wd, "import", "a.pbtxt", "--name", "cpu-live", "--vendor", "x", "--device-type", "CPU", "--source", "lab host", "-o", "cpu.json.gz")
	require.Equal(t, ExitOK, code, errs)
	packs, err = coverage.LoadRegistryFile(filepath.Join(wd, "cpu.json.gz"))
	require.NoError(t, err)
	assert.Equal(t, "lab host", packs[0].Source)

	code, out, errs := runRegistryCLI(t, wd, "diff", "a.json", "b.pbtxt")
	require.Equal(t, ExitOK, code, errs)
	golden(t, "diff_a_b.golden", out)

	code, out, _ = runRegistryCLI(t, wd, "diff", "cuda", "rocm", "--format", "json")
	require.Equal(t, ExitOK, code)
	var d coverage.PackDiff
	require.NoError(t, json.Unmarshal([]byte(out), &d))
	assert.Contains(t, d.Removed, "MatrixInverse")

	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"import", "a.pbtxt", "-o", "x.json"}, ExitUsage, "needs --name, --vendor and -o"},
		{[]string{"import", "a.pbtxt", "--name", "n", "--vendor", "v", "--device-type", "GPU", "-o", "x.json"}, ExitInput, `no kernels for device type "GPU"`},
		{[]string{"import", "a.json", "--name", "n", "--vendor", "v", "-o", "x.json"}, ExitInput, "already a tfscan pack"},
		{[]string{"import", "nope.pbtxt", "--name", "n", "--vendor", "v", "-o", "x.json"}, ExitInput, "nope.pbtxt"},
		{[]string{"diff", "a.json"}, ExitUsage, "two packs"},
		{[]string{"import", "a.pbtxt", "--name", "my pack", "--vendor", "v", "-o", "x.json"}, ExitUsage, "has spaces"},
		{[]string{"import", "a.pbtxt", "--name", "n", "--vendor", "v", "-o", "a.json/inside"}, ExitUsage, "not a directory"},
		{[]string{"diff", "a.pbtxt", "b.pbtxt"}, ExitUsage, "holds 3 device types"},
	}
	for _, tc := range tests {
		code, _, errs := runRegistryCLI(t, wd, tc.args...)
		assert.Equal(t, tc.code, code, tc.args)
		assert.Contains(t, errs, tc.want, tc.args)
	}
}

func TestRegistryExtract(t *testing.T) {
	if _, err := exec.LookPath("cpp"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("cpp is required in CI")
		}
		t.Skip("no cpp")
	}
	wd := t.TempDir()
	src := filepath.Join(wd, "src", "kernels")
	require.NoError(t, os.MkdirAll(src, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(src, "types.h"), []byte("#define TF_CALL_float(m) m(float)\n#define TF_CALL_half(m) m(Eigen::half)\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(src, "relu_op.cc"), []byte(`#include "types.h"
#define REG(T) REGISTER_KERNEL_BUILDER(Name("Relu").Device(DEVICE_GPU).TypeConstraint<T>("T"), ReluOp<T>);
TF_CALL_float(REG) TF_CALL_half(REG)
#if GOOGLE_CUDA
REGISTER_KERNEL_BUILDER(Name("CudaOnly").Device(DEVICE_GPU), X);
#endif
`), 0o644))
	code, _, errs := runRegistryCLI(t, wd, "extract", "--source", "src", "--name", "mini", "--vendor", "Test", "--device-type", "GPU",
		"--define", "GOOGLE_CUDA=1", "--source-ref", "example/mini@0123456789012345678901234567890123456789", "--date", "2024-02-03", "-o", "mini.json.gz")
	require.Equal(t, ExitOK, code, errs)
	assert.Contains(t, errs, "3 kernels for 2 ops on GPU")
	code, out, errs := runRegistryCLI(t, wd, "show", "mini.json.gz", "--op", "Relu")
	require.Equal(t, ExitOK, code, errs)
	assert.Contains(t, out, "T in {float16}")
	assert.Contains(t, out, "date:       2024-02-03")

	code, _, errs = runRegistryCLI(t, wd, "extract", "--source", "src", "--name", "mini")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errs, "needs --source")
	code, _, errs = runRegistryCLI(t, wd, "extract", "--source", "nowhere", "--name", "m", "--vendor", "v", "--device-type", "GPU", "--source-ref", "r", "-o", "m.json")
	assert.Equal(t, ExitInput, code)
	assert.Contains(t, errs, "not a directory")
	code, _, errs = runRegistryCLI(t, wd, "extract", "--style", "magic", "--source", "src", "--name", "m", "--vendor", "v", "--device-type", "GPU", "--source-ref", "r", "-o", "m.json")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errs, "unknown --style")
}
