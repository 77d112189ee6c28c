package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/prototext"

	"github.com/tfscan/tfscan/cmd/tfscan/internal/registry"
	"github.com/tfscan/tfscan/coverage"
)

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
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./cmd/tfscan/internal/cli -run Registry -update")
	assert.Equal(t, string(want), got)
}

func TestRegistryList(t *testing.T) {
	code, out, _ := runRegistryCLI(t, t.TempDir(), "list")
	require.Equal(t, ExitOK, code)
	// Every stack with a built-in pack, with its mechanism.
	for _, want := range []string{
		`(?m)^musa +Moore Threads +MUSA +kernel +high`,
		`(?m)^ascend +Huawei +NPU +graph_offload +low`,
		`(?m)^xla +Google +XLA_GPU_JIT +xla_cluster +medium`,
		`(?m)^iluvatar-corex +Iluvatar CoreX +GPU +derived +low`,
		`(?m)^hygon-dcu +Hygon +GPU +derived +medium`,
		`(?m)^enflame-gcu +Enflame +XLA_DTU +derived +low`,
		`(?m)^cambricon-mlu +Cambricon +MLU +dump_required .*docs/registries.md#cambricon-mlu`,
		`(?m)^kunlunxin +Kunlunxin +- +dump_required`,
		`(?m)^biren +Biren +- +dump_required`,
	} {
		assert.Regexp(t, want, out)
	}

	code, out, _ = runRegistryCLI(t, t.TempDir(), "list", "--format", "json")
	require.Equal(t, ExitOK, code)
	var got struct {
		Packs        []registry.PackSummary  `json:"packs"`
		DumpRequired []registry.DumpRequired `json:"dump_required"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	require.NotEmpty(t, got.Packs)
	prev := 4
	for _, p := range got.Packs {
		assert.Positive(t, p.Kernels, p.Name)
		assert.Positive(t, p.Ops, p.Name)
		assert.NotEmpty(t, p.Source, p.Name)
		assert.NotEmpty(t, p.Confidence, p.Name)
		assert.NotEmpty(t, p.NextStep, p.Name)
		r := coverage.Level(p.ConfidenceLevel).Rank()
		assert.Positive(t, r, "%s has a confidence level", p.Name)
		assert.LessOrEqual(t, r, prev, "packs are sorted by confidence, high first (%s)", p.Name)
		prev = r
		if p.Mechanism == string(coverage.MechanismDerived) {
			assert.NotEmpty(t, p.Base, p.Name)
		}
	}
	require.Len(t, got.DumpRequired, len(coverage.DumpOnlyStacks()))
	for _, d := range got.DumpRequired {
		assert.Equal(t, "dump_required", d.Mechanism)
		assert.Contains(t, d.NextStep, "tools/dump_registry.py")
	}

	code, _, _ = runRegistryCLI(t, t.TempDir(), "list", "--format", "xml")
	assert.Equal(t, ExitUsage, code)
}

func TestRegistryShowBuildFlagsAndDerivation(t *testing.T) {
	code, out, _ := runRegistryCLI(t, t.TempDir(), "show", "cpu", "--op", "QuantizedConv2DAndRelu")
	require.Equal(t, ExitOK, code)
	assert.Regexp(t, `(?m)^build: .*INTEL_MKL.*ENABLE_ONEDNN_V3`, out, "the CPU pack says it is the oneDNN build")
	assert.Regexp(t, `(?m)^QuantizedConv2DAndRelu +CPU `, out)

	code, out, _ = runRegistryCLI(t, t.TempDir(), "show", "enflame-gcu", "--op", "Relu")
	require.Equal(t, ExitOK, code)
	assert.Regexp(t, `(?m)^base: +xla \(xla_cluster, TensorFlow 2.15.0; the vendor ships 1.x\)`, out)
	assert.Regexp(t, `(?m)^evidence: +EnflameTechnology/ModelZoo training/tensorflow/vision/resnet/run_classify.py`, out)
	assert.Regexp(t, `(?m)^newer than TensorFlow 1.x \(op_newer_than_stack\): \d+ ops: .*BatchMatMulV3`, out)
}

func TestRegistryDerive(t *testing.T) {
	wd := t.TempDir()
	code, _, errs := runRegistryCLI(t, wd, "derive", "--base", "cuda", "--name", "corex-test", "--vendor", "Iluvatar CoreX",
		"--device-type", "GPU", "--tf-version", "2.6.5", "--confidence-level", "low", "--rule", "TF's CUDA kernels",
		"--evidence", "Deep-Spark/DeepSparkHub README.md: tensorflow-2.6.5+corex", "--version-check", "none possible", "-o", "corex.json")
	require.Equal(t, ExitOK, code, errs)
	assert.Contains(t, errs, "corex-test derived from cuda")
	packs, err := coverage.LoadRegistryFile(filepath.Join(wd, "corex.json"))
	require.NoError(t, err)
	assert.Equal(t, coverage.MechanismDerived, packs[0].Mechanism)
	assert.Equal(t, "cuda", packs[0].Derived.Base)

	hist := filepath.Join(wd, "hist")
	require.NoError(t, os.MkdirAll(filepath.Join(hist, "v1"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(hist, "v2"), 0o755))
	for _, f := range []string{"v1/Relu.pbtxt", "v2/Relu.pbtxt", "v2/BatchMatMulV3.pbtxt"} {
		require.NoError(t, os.WriteFile(filepath.Join(hist, f), []byte("op { name: \"x\" }\n"), 0o644))
	}
	code, _, errs = runRegistryCLI(t, wd, "derive", "--base", "cuda", "--name", "old", "--vendor", "v", "--device-type", "GPU",
		"--tf-version", "1.15", "--confidence-level", "low", "--rule", "r", "--evidence", "e", "--version-check", "v1 history",
		"--known-ops", "hist/v1", "--recorded-ops", "hist/v2", "-o", "old.json")
	require.Equal(t, ExitOK, code, errs)
	packs, err = coverage.LoadRegistryFile(filepath.Join(wd, "old.json"))
	require.NoError(t, err)
	assert.Equal(t, []string{"BatchMatMulV3"}, packs[0].NewerThanStack)

	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"derive", "--base", "cuda"}, ExitUsage, "needs --base, --name"},
		{[]string{"derive", "--base", "cuda", "--name", "x", "--vendor", "v", "--device-type", "GPU", "--tf-version", "1", "--rule", "r", "--evidence", "e", "--confidence-level", "high", "--version-check", "v", "-o", "x.json"}, ExitUsage, "low or medium"},
		{[]string{"derive", "--base", "hygon-dcu", "--name", "x", "--vendor", "v", "--device-type", "GPU", "--tf-version", "1", "--rule", "r", "--evidence", "e", "--confidence-level", "low", "--version-check", "v", "-o", "x.json"}, ExitUsage, "is itself derived"},
		{[]string{"derive", "--base", "cuda", "--name", "x", "--vendor", "v", "--device-type", "GPU", "--tf-version", "1", "--rule", "r", "--evidence", "e", "--confidence-level", "low", "--version-check", "v", "--known-ops", "hist/v1", "-o", "x.json"}, ExitUsage, "go together"},
		{[]string{"derive", "--base", "cuda", "--name", "x", "--vendor", "v", "--device-type", "GPU", "--tf-version", "1", "--rule", "r", "--evidence", "e", "--confidence-level", "low", "--version-check", "v", "--known-ops", "nope", "--recorded-ops", "hist/v2", "-o", "x.json"}, ExitInput, "nope"},
	} {
		code, _, errs := runRegistryCLI(t, wd, tc.args...)
		assert.Equal(t, tc.code, code, tc.args)
		assert.Contains(t, errs, tc.want, tc.args)
	}
}

func TestRegistryAudit(t *testing.T) {
	wd := t.TempDir()
	src := filepath.Join(wd, "src", "tensorflow", "core", "kernels")
	require.NoError(t, os.MkdirAll(src, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(src, "a.cc"), []byte(`REGISTER_KERNEL_BUILDER(Name("Relu").Device(DEVICE_CPU), X);
REGISTER_KERNEL_BUILDER(Name("NoSuchKernelAnywhere").Device(DEVICE_CPU), X);
`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(wd, "excl.txt"), []byte("# none\n"), 0o644))
	code, out, errs := runRegistryCLI(t, wd, "audit", "--source", "src", "--exclusions", "excl.txt", "--pack", "CPU=cpu")
	assert.Equal(t, ExitGate, code)
	assert.Contains(t, out, "audit: 2 literal registrations in 1 files: 1 in a pack, 0 excluded, 1 missing")
	assert.Contains(t, out, "missing: tensorflow/core/kernels/a.cc:2: NoSuchKernelAnywhere on CPU")
	assert.Contains(t, errs, "1 registrations in no pack")

	require.NoError(t, os.WriteFile(filepath.Join(wd, "excl.txt"), []byte("op=NoSuchKernelAnywhere : a test\n"), 0o644))
	code, _, errs = runRegistryCLI(t, wd, "audit", "--source", "src", "--exclusions", "excl.txt", "--pack", "CPU=cpu")
	assert.Equal(t, ExitOK, code, errs)

	code, _, errs = runRegistryCLI(t, wd, "audit", "--source", "src", "--exclusions", "excl.txt", "--pack", "cpu")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errs, "want DEVICE=PACKFILE")
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
		Name       string               `json:"name"`
		KernelList []registry.KernelRow `json:"kernel_list"`
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
	assert.Contains(t, errs, "3 kernels for 3 ops on XPU (+1 DEFAULT kernels, 1 CPU kernels of this build, 0 vendor OpDefs)")
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

// Dumps that cannot be imported or checked give one line naming the file
// and exit 3; a dump of another TensorFlow version imports (vendor builds
// are other versions) but cannot be checked against the built-in packs.
func TestRegistryBadDumps(t *testing.T) {
	wd := t.TempDir()
	head := func(version string, kernels int) string {
		return "# tfscan live dump (tools/dump_registry.py)\n# tf_version: " + version + "\n# kernels: " + strconv.Itoa(kernels) + "\n"
	}
	body := `kernel { op: "NoOp" device_type: "CPU" }
kernel { op: "NoOp" device_type: "GPU" }
kernel { op: "NoOp" device_type: "DEFAULT" }
`
	files := map[string]string{
		"empty.pbtxt":     "",
		"truncated.pbtxt": head("2.15.0", 5) + body,
		"cut.pbtxt":       head("2.15.0", 3) + body[:20],
		"tf216.pbtxt":     head("2.16.1", 3) + body,
	}
	for name, data := range files {
		require.NoError(t, os.WriteFile(filepath.Join(wd, name), []byte(data), 0o644))
	}
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"import", "empty.pbtxt", "--name", "n", "--vendor", "v", "--device-type", "GPU", "-o", "x.json"}, ExitInput, "empty.pbtxt: empty file"},
		{[]string{"import", "truncated.pbtxt", "--name", "n", "--vendor", "v", "--device-type", "GPU", "-o", "x.json"}, ExitInput, "truncated.pbtxt: truncated dump: its header says 5 kernels"},
		{[]string{"import", "cut.pbtxt", "--name", "n", "--vendor", "v", "--device-type", "GPU", "-o", "x.json"}, ExitInput, "cut.pbtxt: not a KernelList in text form"},
		{[]string{"check", "empty.pbtxt"}, ExitInput, "empty.pbtxt: empty file"},
		{[]string{"check", "truncated.pbtxt"}, ExitInput, "truncated dump"},
		{[]string{"check", "tf216.pbtxt"}, ExitInput, "tf216.pbtxt: a dump of TensorFlow 2.16.1, but the built-in packs are checked against TensorFlow 2.15.0"},
		{[]string{"check"}, ExitUsage, "takes one dump file"},
		{[]string{"import", "tf216.pbtxt", "--name", "n", "--vendor", "v", "--device-type", "GPU", "-o", "x.json"}, ExitOK, "wrote x.json"},
	}
	for _, tc := range tests {
		code, _, errs := runRegistryCLI(t, wd, tc.args...)
		assert.Equal(t, tc.code, code, tc.args)
		assert.Contains(t, errs, tc.want, tc.args)
		assert.Equal(t, 1, strings.Count(errs, "\n"), "one line: %q", errs)
	}
	packs, err := coverage.LoadRegistryFile(filepath.Join(wd, "x.json"))
	require.NoError(t, err)
	assert.Equal(t, "2.16.1", packs[0].TFVersion)
}

// registry check fails (exit 1) on a difference the explained list does
// not cover, and names it.
func TestRegistryCheckUnexplained(t *testing.T) {
	var b strings.Builder
	b.WriteString("# tf_version: 2.15.0\n")
	for _, c := range coverage.BinaryChecks() {
		p, err := coverage.BuiltinPack(c.Pack)
		require.NoError(t, err)
		for _, k := range p.OwnKernels() {
			text, err := prototext.Marshal(k)
			require.NoError(t, err)
			fmt.Fprintf(&b, "kernel { %s }\n", text)
		}
	}
	b.WriteString(`kernel { op: "NotAnOp" device_type: "GPU" }` + "\n")
	wd := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(wd, "d.pbtxt"), []byte(b.String()), 0o644))
	code, out, errs := runRegistryCLI(t, wd, "check", "d.pbtxt")
	assert.Equal(t, ExitGate, code)
	assert.Contains(t, out, "cuda: unexplained - NotAnOp GPU\n")
	assert.Contains(t, errs, "d.pbtxt: a built-in pack disagrees")
}

// registry show says which built-in packs are checked against a binary,
// and against which; a pack file of the same name is not.
func TestRegistryShowChecked(t *testing.T) {
	wd := fixtures(t)
	code, _, errs := runRegistryCLI(t, wd, "import", "a.pbtxt", "--name", "cpu", "--vendor", "x", "--device-type", "CPU", "-o", "cpu.json")
	require.Equal(t, ExitOK, code, errs)
	tests := []struct {
		arg, want string
	}{
		{"cpu", "checked:    kernel by kernel against the CPU registry of TensorFlow 2.15.0 (tensorflow-2.15.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl, sha256 dee8ec2b"},
		{"intel-xpu", "checked:    kernel by kernel, once, against the XPU registry of intel_extension_for_tensorflow_lib-2.15.0.3.2"},
		{"musa", ""},
		{"cpu.json", ""},
	}
	for _, tc := range tests {
		code, out, errs := runRegistryCLI(t, wd, "show", tc.arg, "--op", "Relu")
		require.Equal(t, ExitOK, code, errs)
		if tc.want == "" {
			assert.NotContains(t, out, "checked:", tc.arg)
		} else {
			assert.Contains(t, out, tc.want, tc.arg)
		}
	}
}
