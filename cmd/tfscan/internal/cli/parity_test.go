package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/tfscan/tfscan/internal/testutil"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/kernels"
	"github.com/tfscan/tfscan/kernels/npz"
	"github.com/tfscan/tfscan/kernels/precision"
)

// parityTestdata is the repository's testdata/parity.
func parityTestdata(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "..", "testdata", "parity")
}

// parityCorpus is ../shared/corpus; tests fail without it under CI=true.
func parityCorpus(t *testing.T) string {
	t.Helper()
	return testutil.Corpus(t)
}

func runParityCLI(t *testing.T, wd string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Run(context.Background(), args, strings.NewReader(""), &out, &errb, func(string) string { return "" }, wd)
	return code, out.String(), errb.String()
}

// parityJSON is the part of a JSON report these tests read.
type parityJSON struct {
	Models []struct {
		Targets []struct {
			Target string                     `json:"target"`
			Parity map[string]json.RawMessage `json:"parity"`
		} `json:"targets"`
	} `json:"models"`
}

type parityOut struct {
	Name        string  `json:"name"`
	MaxAbsError float64 `json:"max_abs_error"`
	MaxRelError float64 `json:"max_rel_error"`
	MaxULP      uint64  `json:"max_ulp"`
	Mismatches  int     `json:"mismatches"`
	Pass        bool    `json:"pass"`
	Stats       *struct {
		Max       float64           `json:"max"`
		Histogram []json.RawMessage `json:"histogram"`
	} `json:"stats"`
}

func decodeParity(t *testing.T, stdout string) map[string]json.RawMessage {
	t.Helper()
	var r parityJSON
	require.NoError(t, json.Unmarshal([]byte(stdout), &r), stdout)
	require.Len(t, r.Models, 1)
	require.Len(t, r.Models[0].Targets, 1)
	p := r.Models[0].Targets[0].Parity
	require.NotNil(t, p)
	return p
}

// npzFiles writes an empty .npz and one keyed "nosuch".
func npzFiles(t *testing.T) (empty, nosuch string) {
	dir := t.TempDir()
	empty, nosuch = filepath.Join(dir, "empty.npz"), filepath.Join(dir, "nosuch.npz")
	require.NoError(t, npz.Write(empty, map[string]*kernels.Tensor{}))
	require.NoError(t, npz.Write(nosuch, map[string]*kernels.Tensor{"nosuch": kernels.ScalarFloat(1)}))
	return empty, nosuch
}

func TestParityExitCodes(t *testing.T) {
	td := parityTestdata(t)
	empty, nosuch := npzFiles(t)
	tests := []struct {
		name string
		args []string
		want int
		msg  string
	}{
		{"fp32 matches", []string{"matmul.pbtxt", "--target", "cpu", "--inputs", "matmul_inputs.npz"}, ExitOK, ""},
		{"tf32 error over a tight tolerance gates", []string{"matmul.pbtxt", "--target", "cuda", "--inputs", "matmul_inputs.npz", "--atol", "1e-6", "--rtol", "0"}, ExitGate, ""},
		{"tf32 within the default tolerance", []string{"matmul.pbtxt", "--target", "cuda", "--inputs", "matmul_inputs.npz"}, ExitOK, ""},
		{"fp16 overflow gates", []string{"sum_ones.pbtxt", "--target", "cpu", "--precision", "fp16"}, ExitGate, ""},
		{"bf16 within 1%", []string{"sum_ones.pbtxt", "--target", "cpu", "--precision", "bf16"}, ExitOK, ""},
		{"golden that agrees", []string{"matmul.pbtxt", "--target", "cpu", "--inputs", "matmul_inputs.npz", "--golden", "matmul_golden_pass.npz"}, ExitOK, ""},
		{"golden that does not", []string{"matmul.pbtxt", "--target", "cpu", "--inputs", "matmul_inputs.npz", "--golden", "matmul_golden_fail.npz"}, ExitGate, ""},
		{"missing model", []string{"nope.pbtxt", "--target", "cpu"}, ExitInput, "nope.pbtxt"},
		{"malformed model", []string{"bad.pbtxt", "--target", "cpu"}, ExitInput, "bad.pbtxt"},
		{"key that names no input", []string{"matmul.pbtxt", "--target", "cpu", "--inputs", nosuch}, ExitInput, `key "nosuch" is no input`},
		{"unfed placeholder", []string{"matmul.pbtxt", "--target", "cpu", "--inputs", empty}, ExitInput, "x"},
		{"missing inputs file", []string{"matmul.pbtxt", "--target", "cpu", "--inputs", "none.npz"}, ExitInput, "none.npz"},
		{"golden without the output", []string{"matmul.pbtxt", "--target", "cpu", "--inputs", "matmul_inputs.npz", "--golden", "matmul_inputs.npz"}, ExitInput, "no recorded array"},
		{"unknown profile", []string{"sum_ones.pbtxt", "--target", "cpu", "--precision", "fp8"}, ExitUsage, "fp8"},
		{"no target", []string{"sum_ones.pbtxt"}, ExitUsage, "--target"},
		{"unknown target", []string{"sum_ones.pbtxt", "--target", "nosuch"}, ExitUsage, "nosuch"},
		{"negative tolerance", []string{"sum_ones.pbtxt", "--target", "cpu", "--atol", "-2"}, ExitUsage, "negative"},
		{"two models", []string{"sum_ones.pbtxt", "matmul.pbtxt", "--target", "cpu"}, ExitUsage, "one model"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"parity"}, tt.args...)
			args = append(args, "--format", "json")
			code, stdout, stderr := runParityCLI(t, td, args...)
			require.Equal(t, tt.want, code, "stderr: %s", stderr)
			if tt.msg != "" {
				assert.Contains(t, stderr, tt.msg)
				assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %s", stderr)
				assert.Empty(t, stdout)
			}
			if tt.want == ExitOK || tt.want == ExitGate {
				decodeParity(t, stdout)
			}
		})
	}
}

func TestParityReportSumOverflow(t *testing.T) {
	td := parityTestdata(t)
	code, stdout, stderr := runParityCLI(t, td, "parity", "sum_ones.pbtxt", "--target", "cpu", "--precision", "fp16", "--format", "json")
	require.Equal(t, ExitGate, code, stderr)
	p := decodeParity(t, stdout)
	var keys []string
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	assert.Equal(t, []string{"atol", "first_divergence", "nodes", "outputs", "profile", "rtol"}, keys)
	assert.JSONEq(t, `"fp16"`, string(p["profile"]))
	assert.JSONEq(t, `"sum"`, string(p["first_divergence"]))
	var nodes []map[string]any
	require.NoError(t, json.Unmarshal(p["nodes"], &nodes))
	require.NotEmpty(t, nodes)
	assert.Equal(t, "sum", nodes[0]["path"])
	assert.Equal(t, "Sum", nodes[0]["op"])
	assert.Equal(t, 1.0, nodes[0]["overflow"])
	assert.Equal(t, true, nodes[0]["nan_inf_introduced"])
	var outs []parityOut
	require.NoError(t, json.Unmarshal(p["outputs"], &outs))
	require.Len(t, outs, 1)
	assert.Equal(t, "sum:0", outs[0].Name)
	assert.False(t, outs[0].Pass)
	require.NotNil(t, outs[0].Stats)
	assert.NotEmpty(t, outs[0].Stats.Histogram)
}

func TestParityTF32Default(t *testing.T) {
	// cuda's default profile is tf32: the known TF32 error shows up.
	td := parityTestdata(t)
	code, stdout, stderr := runParityCLI(t, td, "parity", "matmul.pbtxt", "--target", "cuda", "--inputs", "matmul_inputs.npz", "--format", "json")
	require.Equal(t, ExitOK, code, stderr)
	p := decodeParity(t, stdout)
	assert.JSONEq(t, `"tf32"`, string(p["profile"]))
	assert.JSONEq(t, `0.001`, string(p["atol"]))
	var outs []parityOut
	require.NoError(t, json.Unmarshal(p["outputs"], &outs))
	require.Len(t, outs, 1)
	assert.Equal(t, 0x1p-12, outs[0].MaxAbsError)
	assert.Equal(t, uint64(2048), outs[0].MaxULP)
}

func TestParityPackPrecisionAndCPUFallback(t *testing.T) {
	// The pack names bf16 as its profile; it has no kernels, so soft
	// placement puts Fill and Sum on the CPU, where they stay float32.
	td := parityTestdata(t)
	code, stdout, stderr := runParityCLI(t, td, "parity", "sum_ones.pbtxt", "--target", "nokernels", "--registry", "empty_pack.json", "--format", "json")
	require.Equal(t, ExitOK, code, stderr)
	p := decodeParity(t, stdout)
	assert.JSONEq(t, `"bf16"`, string(p["profile"]))
	assert.JSONEq(t, `null`, string(p["first_divergence"]))
}

func TestParityGolden(t *testing.T) {
	td := parityTestdata(t)
	code, stdout, stderr := runParityCLI(t, td, "parity", "matmul.pbtxt", "--target", "cpu", "--inputs", "matmul_inputs.npz",
		"--golden", "matmul_golden_fail.npz", "--format", "json")
	require.Equal(t, ExitGate, code, stderr)
	p := decodeParity(t, stdout)
	var gold []parityOut
	require.NoError(t, json.Unmarshal(p["golden"], &gold))
	require.Len(t, gold, 1)
	assert.Equal(t, "mm:0", gold[0].Name)
	assert.False(t, gold[0].Pass)
	assert.Equal(t, 1, gold[0].Mismatches)
	assert.InDelta(t, 1.01-(1+3*0x1p-12), gold[0].MaxAbsError, 1e-7)
	require.NotNil(t, gold[0].Stats)
	assert.Equal(t, gold[0].MaxAbsError, gold[0].Stats.Max)
}

// TestParityCorpus runs corpus models under every profile: no error, and
// the same JSON bytes twice (checked under fp16). -short keeps the small
// models; centernet (about a minute per run) runs under fp16 only.
func TestParityCorpus(t *testing.T) {
	corpus := parityCorpus(t)
	models := []string{"tf/sm_half_plus_two_v1", "tf/gd_if_op/if_op.pbtxt", "tfjs/emotion"}
	if !testing.Short() {
		models = append(models, "tfjs/meet", "tfjs/mobilefacenet", "tfjs/centernet")
	}
	for _, m := range models {
		profiles := precision.Names()
		if m == "tfjs/centernet" {
			profiles = []string{precision.FP16}
		}
		for _, prof := range profiles {
			t.Run(m+"/"+prof, func(t *testing.T) {
				run := func() string {
					code, stdout, stderr := runParityCLI(t, corpus, "parity", m, "--target", "cuda", "--precision", prof, "--format", "json")
					require.Contains(t, []int{ExitOK, ExitGate}, code, stderr)
					decodeParity(t, stdout)
					return stdout
				}
				first := run()
				if prof == precision.FP16 && m != "tfjs/centernet" {
					assert.Equal(t, first, run(), "byte-identical JSON")
				}
			})
		}
	}
}

func TestVectorsCLI(t *testing.T) {
	td := parityTestdata(t)
	out := t.TempDir()
	code, stdout, stderr := runParityCLI(t, td, "vectors", "twin_matmul.pbtxt", "--target", "nokernels", "--registry", "empty_pack.json",
		"--inputs", "matmul_inputs.npz", "-o", out)
	require.Equal(t, ExitOK, code, stderr)
	assert.Empty(t, stdout, "the vectors go to files; the summary to stderr")
	assert.Contains(t, stderr, "1 vector(s) for 2 uncovered node(s)")
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.Equal(t, []string{"001_MatMul.json", "001_MatMul.npz", "README.md"}, names)

	arrays, err := npz.Read(filepath.Join(out, "001_MatMul.npz"))
	require.NoError(t, err)
	assert.Equal(t, []string{"input_0", "input_1", "output_0"}, npz.SortedKeys(arrays))
	assert.Equal(t, []float32{1 + 3*0x1p-12, 0.5, 0.25, -2}, arrays["input_0"].Data)
	assert.Equal(t, []float32{1, 0, 0, 1}, arrays["input_1"].Data)
	assert.Equal(t, []float32{1 + 3*0x1p-12, 0.5, 0.25, -2}, arrays["output_0"].Data)

	js, err := os.ReadFile(filepath.Join(out, "001_MatMul.json"))
	require.NoError(t, err)
	var vf struct {
		Op     string         `json:"op"`
		Reason string         `json:"reason"`
		DTypes []string       `json:"dtypes"`
		Attrs  map[string]any `json:"attrs"`
		Nodes  []string       `json:"nodes"`
		Inputs []struct {
			Shape []int `json:"shape"`
		} `json:"inputs"`
	}
	require.NoError(t, json.Unmarshal(js, &vf))
	assert.Equal(t, "MatMul", vf.Op)
	assert.Equal(t, "no_kernel", vf.Reason)
	assert.Equal(t, []string{"float32"}, vf.DTypes)
	assert.Equal(t, []string{"mm", "mm2"}, vf.Nodes, "identical nodes share one vector")
	assert.Equal(t, false, vf.Attrs["transpose_a"])
	require.Len(t, vf.Inputs, 2)
	assert.Equal(t, []int{2, 2}, vf.Inputs[0].Shape)

	readme, err := os.ReadFile(filepath.Join(out, "README.md"))
	require.NoError(t, err)
	assert.Contains(t, string(readme), "- `001_MatMul` MatMul [float32] no_kernel")

	// Deterministic: a second run writes the same bytes.
	out2 := t.TempDir()
	code, _, stderr = runParityCLI(t, td, "vectors", "twin_matmul.pbtxt", "--target", "nokernels", "--registry", "empty_pack.json",
		"--inputs", "matmul_inputs.npz", "-o", out2)
	require.Equal(t, ExitOK, code, stderr)
	for _, n := range names {
		a, _ := os.ReadFile(filepath.Join(out, n))
		b, _ := os.ReadFile(filepath.Join(out2, n))
		assert.Equal(t, a, b, n)
	}
}

func TestVectorsCLIErrors(t *testing.T) {
	td := parityTestdata(t)
	empty, _ := npzFiles(t)
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"no output dir", []string{"matmul.pbtxt", "--target", "cpu"}, ExitUsage},
		{"two targets", []string{"matmul.pbtxt", "--target", "cpu,cuda", "-o", "x"}, ExitUsage},
		{"bad model", []string{"bad.pbtxt", "--target", "cpu", "-o", t.TempDir()}, ExitInput},
		{"unfed input", []string{"matmul.pbtxt", "--target", "cpu", "--inputs", empty, "-o", t.TempDir()}, ExitInput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runParityCLI(t, td, append([]string{"vectors"}, tt.args...)...)
			assert.Equal(t, tt.want, code, stderr)
		})
	}
}

func TestVectorsCorpus(t *testing.T) {
	corpus := parityCorpus(t)
	out := t.TempDir()
	code, stdout, stderr := runParityCLI(t, corpus, "vectors", "tfjs/emotion", "--target", "rocm", "-o", out)
	require.Equal(t, ExitOK, code, stderr)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "vector(s)")
	readme, err := os.ReadFile(filepath.Join(out, "README.md"))
	require.NoError(t, err)
	lines := 0
	for _, l := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(l, "- `") {
			lines++
			name := strings.SplitN(strings.TrimPrefix(l, "- `"), "`", 2)[0]
			_, err := os.Stat(filepath.Join(out, name+".npz"))
			assert.NoError(t, err)
			_, err = os.Stat(filepath.Join(out, name+".json"))
			assert.NoError(t, err)
		}
	}
	assert.Positive(t, lines)
}

func TestParityMixedFloat16FollowsAMP(t *testing.T) {
	// MatMul is on auto mixed precision's allow list: under mixed_float16
	// it runs in half, and x[0][0] = 1+3·2⁻¹² rounds to 1+2⁻¹⁰.
	td := parityTestdata(t)
	code, stdout, stderr := runParityCLI(t, td, "parity", "matmul.pbtxt", "--target", "cuda", "--precision", "mixed_float16",
		"--inputs", "matmul_inputs.npz", "--format", "json")
	require.Equal(t, ExitOK, code, stderr)
	p := decodeParity(t, stdout)
	assert.JSONEq(t, `"mixed_float16"`, string(p["profile"]))
	var outs []parityOut
	require.NoError(t, json.Unmarshal(p["outputs"], &outs))
	assert.Equal(t, 0x1p-12, outs[0].MaxAbsError)
	var nodes []map[string]any
	require.NoError(t, json.Unmarshal(p["nodes"], &nodes))
	require.Len(t, nodes, 1)
	assert.Equal(t, "mm", nodes[0]["path"])

	// Sum is on the deny list: nothing runs in half.
	code, stdout, stderr = runParityCLI(t, td, "parity", "sum_ones.pbtxt", "--target", "cuda", "--precision", "mixed_float16", "--format", "json")
	require.Equal(t, ExitOK, code, stderr)
	p = decodeParity(t, stdout)
	assert.JSONEq(t, `[]`, string(p["nodes"]))
}

// TestParityJSONMatchesSchema validates parity reports (with golden
// entries and infinite errors) against the embedded report schema.
func TestParityJSONMatchesSchema(t *testing.T) {
	s := reportSchema(t)
	td := parityTestdata(t)
	for _, args := range [][]string{
		{"sum_ones.pbtxt", "--target", "cpu", "--precision", "fp16"},
		{"matmul.pbtxt", "--target", "cuda", "--inputs", "matmul_inputs.npz", "--golden", "matmul_golden_fail.npz"},
	} {
		_, stdout, stderr := runParityCLI(t, td, append(append([]string{"parity"}, args...), "--format", "json")...)
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(stdout))
		require.NoError(t, err, stderr)
		assert.NoError(t, s.Validate(v), args[0])
	}
}

// --emulated writes the outputs as the profile computes them: under bf16
// every value is a bfloat16 stored in float32.
func TestParityEmulated(t *testing.T) {
	td := parityTestdata(t)
	out := filepath.Join(t.TempDir(), "emu.npz")
	code, _, stderr := runParityCLI(t, td, "parity", "matmul.pbtxt", "--target", "cpu", "--precision", "bf16",
		"--inputs", "matmul_inputs.npz", "--emulated", out)
	require.Contains(t, []int{ExitOK, ExitGate}, code, stderr)
	got, err := npz.Read(out)
	require.NoError(t, err)
	mm := got["mm:0"]
	require.NotNil(t, mm, "keys %v", npz.SortedKeys(got))
	for _, v := range mm.Data.([]float32) {
		assert.Equal(t, uint32(0), math.Float32bits(v)&0xffff, "%v is a bfloat16", v)
	}
	code, _, stderr = runParityCLI(t, td, "parity", "matmul.pbtxt", "--target", "cpu,cuda", "--emulated", out)
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, stderr, "--emulated: want exactly one --target")
}
