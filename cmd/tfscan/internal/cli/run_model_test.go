package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tfscan/tfscan/internal/testutil"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/kernels"
	"github.com/tfscan/tfscan/kernels/npz"
	"github.com/tfscan/tfscan/reports"
)

// sharedCorpus returns ../shared/corpus relative to the repo root; missing
// it fails under CI=true and skips otherwise.
func sharedCorpus(t testing.TB) string {
	t.Helper()
	return testutil.Corpus(t)
}

// runCLI runs tfscan in-process and returns its exit code and stderr.
func runCLI(t *testing.T, wd string, args ...string) (int, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := Run(context.Background(), args, strings.NewReader(""), &stdout, &stderr, func(string) string { return "" }, wd)
	return code, stderr.String()
}

// TestRunMatchesOracle runs every TF.js corpus model with seeded inputs and
// compares the outputs with the TF.js CPU oracle's (testdata/oracle, made by
// make_goldens.py): floats as assertClose says, and the generated inputs bit
// for bit.
func TestRunMatchesOracle(t *testing.T) {
	corpus := sharedCorpus(t)
	for _, m := range []string{"emotion", "meet", "mobilefacenet", "centernet"} {
		t.Run(m, func(t *testing.T) {
			if m == "centernet" && testing.Short() {
				t.Skip("centernet takes seconds; skipped with -short")
			}
			golden, err := npz.Read(filepath.Join("testdata", "oracle", m+".npz"))
			require.NoError(t, err)
			runMatchesOracle(t, t.TempDir(), filepath.Join(corpus, "tfjs", m), golden)
		})
	}
}

// checkOracle compares a run's outputs (and, when in is not nil, its
// generated inputs) with the TF.js oracle's golden: floats as assertClose
// says, inputs bit for bit.
func checkOracle(t *testing.T, golden, out, in map[string]*kernels.Tensor) {
	t.Helper()
	checked := 0
	for key, want := range golden {
		switch {
		case strings.HasPrefix(key, "in/") && strings.HasSuffix(key, ".head"):
			if in == nil {
				continue
			}
			name := strings.TrimSuffix(strings.TrimPrefix(key, "in/"), ".head")
			got := in[name]
			if got == nil {
				got = in[name+":0"]
			}
			require.NotNil(t, got, "input %s (have %v)", name, npz.SortedKeys(in))
			assert.Equal(t, want.Data, got.Data.([]float32)[:want.NumElements()], "input %s", name)
			checked++
		case strings.HasPrefix(key, "out/") && !strings.Contains(key, ":0."):
			name := strings.TrimPrefix(key, "out/")
			got := out[name]
			if got == nil {
				got = out[strings.TrimSuffix(name, ":0")]
			}
			require.NotNil(t, got, "output %s (have %v)", name, npz.SortedKeys(out))
			assert.Equal(t, want.Shape, got.Shape, name)
			assertClose(t, name, want.Data.([]float32), got.Data.([]float32), nil)
			checked++
		case strings.HasSuffix(key, ".index"):
			name := strings.TrimSuffix(strings.TrimPrefix(key, "out/"), ".index")
			got := out[name]
			if got == nil {
				got = out[strings.TrimSuffix(name, ":0")]
			}
			require.NotNil(t, got, "output %s (have %v)", name, npz.SortedKeys(out))
			shape := golden["out/"+name+".shape"].Data.([]int64)
			require.Len(t, got.Shape, len(shape), name)
			for i, d := range shape {
				require.Equal(t, int(d), got.Shape[i], name)
			}
			assertClose(t, name, golden["out/"+name+".values"].Data.([]float32), got.Data.([]float32), want.Data.([]int64))
			checked++
		}
	}
	least := 2
	if in == nil {
		least = 1
	}
	assert.GreaterOrEqual(t, checked, least)
}

// assertClose compares got (at index, or all) with the oracle's values:
// each within rtol 1e-4 of the oracle value or, for values far below the
// tensor's magnitude (where float32 cancellation in a deep network makes
// relative error meaningless), within 1e-4 of the tensor's largest |value|.
func assertClose(t *testing.T, name string, want, got []float32, index []int64) {
	t.Helper()
	const rtol = 1e-4
	scale := 0.0
	for _, w := range want {
		scale = math.Max(scale, math.Abs(float64(w)))
	}
	atol := rtol * scale
	bad, worst, worstRel := 0, 0.0, 0.0
	for i, w := range want {
		j := i
		if index != nil {
			j = int(index[i])
		}
		require.Less(t, j, len(got), name)
		g := got[j]
		d := math.Abs(float64(g) - float64(w))
		if d > atol && d > rtol*math.Abs(float64(w)) || math.IsNaN(float64(g)) != math.IsNaN(float64(w)) {
			if bad < 5 {
				t.Errorf("%s[%d]: got %g, oracle %g", name, j, g, w)
			}
			bad++
		}
		worst = math.Max(worst, d)
		if w != 0 {
			worstRel = math.Max(worstRel, d/math.Abs(float64(w)))
		}
	}
	t.Logf("%s: %d values, max abs diff %.3g, max rel diff %.3g, max |oracle| %.3g", name, len(want), worst, worstRel, scale)
	if bad > 0 {
		t.Errorf("%s: %d of %d values differ from the oracle", name, bad, len(want))
	}
}

func TestRunHalfPlusTwo(t *testing.T) {
	corpus := sharedCorpus(t)
	dir := t.TempDir()
	x := kernels.FloatTensor([]int{4, 1}, []float32{0, 1, 2, -4})
	require.NoError(t, npz.Write(filepath.Join(dir, "in.npz"), map[string]*kernels.Tensor{"x": x}))
	code, stderr := runCLI(t, dir, "run", filepath.Join(corpus, "tf", "sm_half_plus_two_v1"), "--inputs", "in.npz", "--outputs", "out.npz")
	require.Equal(t, ExitOK, code, stderr)
	out, err := npz.Read(filepath.Join(dir, "out.npz"))
	require.NoError(t, err)
	assert.Equal(t, []float32{2, 2.5, 3, 0}, out["y"].Data)

	// The same by tensor name, and a --fetch keyed as given.
	require.NoError(t, npz.Write(filepath.Join(dir, "in2.npz"), map[string]*kernels.Tensor{"x:0": x}))
	code, stderr = runCLI(t, dir, "run", filepath.Join(corpus, "tf", "sm_half_plus_two_v1"), "--inputs", "in2.npz", "--outputs", "out2.npz", "--fetch", "y")
	require.Equal(t, ExitOK, code, stderr)
	out, err = npz.Read(filepath.Join(dir, "out2.npz"))
	require.NoError(t, err)
	assert.Equal(t, []float32{2, 2.5, 3, 0}, out["y"].Data)
}

func TestRunIfOpSinks(t *testing.T) {
	corpus := sharedCorpus(t)
	dir := t.TempDir()
	require.NoError(t, npz.Write(filepath.Join(dir, "in.npz"), map[string]*kernels.Tensor{"a": kernels.ScalarFloat(1), "b": kernels.ScalarFloat(2)}))
	code, stderr := runCLI(t, dir, "run", filepath.Join(corpus, "tf", "gd_if_op", "if_op.pbtxt"), "--inputs", "in.npz", "--outputs", "out.npz")
	require.Equal(t, ExitOK, code, stderr)
	out, err := npz.Read(filepath.Join(dir, "out.npz"))
	require.NoError(t, err)
	assert.Equal(t, []float32{6, 8, 10, 12}, out["StatefulIf:0"].Data)
	assert.Equal(t, []float32{0.5}, out["StatelessIf:0"].Data)
}

func TestRunErrors(t *testing.T) {
	corpus := sharedCorpus(t)
	dir := t.TempDir()
	require.NoError(t, npz.Write(filepath.Join(dir, "int.npz"), map[string]*kernels.Tensor{"x": kernels.Int32Tensor([]int{1, 1}, []int32{3})}))
	require.NoError(t, npz.Write(filepath.Join(dir, "unknown.npz"), map[string]*kernels.Tensor{"nope": kernels.ScalarFloat(1)}))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.npz"), []byte("not npz"), 0o644))
	hp := filepath.Join(corpus, "tf", "sm_half_plus_two_v1")
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no outputs flag", []string{"run", hp}, ExitUsage, "--outputs"},
		{"no path", []string{"run", "--outputs", "o.npz"}, ExitUsage, "exactly one model"},
		{"unknown signature", []string{"run", hp, "--outputs", "o.npz", "--signature", "nope"}, ExitUsage, `no signature "nope"`},
		{"dtype mismatch", []string{"run", hp, "--inputs", "int.npz", "--outputs", "o.npz"}, ExitInput, "dtype int32"},
		{"unknown input", []string{"run", hp, "--inputs", "unknown.npz", "--outputs", "o.npz"}, ExitInput, `no node "nope"`},
		{"bad npz", []string{"run", hp, "--inputs", "bad.npz", "--outputs", "o.npz"}, ExitInput, "bad.npz"},
		{"missing model", []string{"run", filepath.Join(dir, "none"), "--outputs", "o.npz"}, ExitInput, "none"},
		{"unknown op", []string{"run", filepath.Join(corpus, "tf", "gd_unknown_op", "test_graph_tfunknownop.pbtxt"), "--outputs", "o.npz"}, ExitInput, "SomeUnknownOp"},
		{"bad fetch", []string{"run", hp, "--outputs", "o.npz", "--fetch", "zzz:0"}, ExitInput, `no node "zzz"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stderr := runCLI(t, dir, tt.args...)
			assert.Equal(t, tt.code, code, stderr)
			assert.Contains(t, stderr, tt.want)
			assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
		})
	}
}

// TestRunSeededInputsDeterministic checks that two runs give byte-identical
// files.
func TestRunSeededInputsDeterministic(t *testing.T) {
	corpus := sharedCorpus(t)
	dir := t.TempDir()
	for _, o := range []string{"a.npz", "b.npz"} {
		code, stderr := runCLI(t, dir, "run", filepath.Join(corpus, "tfjs", "emotion"), "--outputs", o, "--seed", "7")
		require.Equal(t, ExitOK, code, stderr)
	}
	for _, f := range [][2]string{{"a.npz", "b.npz"}, {"a.inputs.npz", "b.inputs.npz"}} {
		a, err := os.ReadFile(filepath.Join(dir, f[0]))
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(dir, f[1]))
		require.NoError(t, err)
		assert.Equal(t, a, b, f[0])
	}
	in, err := npz.Read(filepath.Join(dir, "a.inputs.npz"))
	require.NoError(t, err)
	assert.Equal(t, tpb.DataType_DT_FLOAT, in["input_1"].DType)
	assert.Equal(t, []int{1, 64, 64, 1}, in["input_1"].Shape)
}

// TestRunStaticHashTable feeds a string input (NumPy bytes array) to a
// SavedModel whose init op fills a hash table from an asset file.
func TestRunStaticHashTable(t *testing.T) {
	corpus := sharedCorpus(t)
	dir := t.TempDir()
	words := &kernels.Tensor{DType: tpb.DataType_DT_STRING, Shape: []int{3}, Data: [][]byte{[]byte("baz"), []byte("foo"), []byte("zzz")}}
	require.NoError(t, npz.Write(filepath.Join(dir, "in.npz"), map[string]*kernels.Tensor{"word": words}))
	code, stderr := runCLI(t, dir, "run", filepath.Join(corpus, "tf", "sm_static_hashtable"), "--inputs", "in.npz", "--outputs", "out.npz")
	require.Equal(t, ExitOK, code, stderr)
	out, err := npz.Read(filepath.Join(dir, "out.npz"))
	require.NoError(t, err)
	assert.Equal(t, []int64{2, 0, -1}, out["output_0"].Data)
}

// TestRunFeedsLikeSessionRun: a TF.js graph model whose weights live in a
// shard, as the converter writes them, with constants and a NoOp hanging
// off the input by ^x control edges (the shape of the hand-skeleton, NSFW
// and video-matting models, which need the feed to fire those edges); then
// an intermediate tensor of a signature model fed.
func TestRunFeedsLikeSessionRun(t *testing.T) {
	dir := t.TempDir()
	model := `{"format": "graph-model",
 "signature": {"inputs": {"x:0": {"name": "x:0", "dtype": "DT_FLOAT", "tensorShape": {"dim": [{"size": "2"}]}}},
  "outputs": {"z:0": {"name": "z:0", "dtype": "DT_FLOAT", "tensorShape": {"dim": [{"size": "2"}]}}}},
 "modelTopology": {"node": [
  {"name": "x", "op": "Placeholder", "attr": {"dtype": {"type": "DT_FLOAT"}, "shape": {"shape": {"dim": [{"size": "2"}]}}}},
  {"name": "scale", "op": "Const", "input": ["^x"], "attr": {"dtype": {"type": "DT_FLOAT"}, "value": {"tensor": {"dtype": "DT_FLOAT", "tensorShape": {"dim": [{"size": "2"}]}}}}},
  {"name": "y", "op": "Mul", "input": ["x", "scale"], "attr": {"T": {"type": "DT_FLOAT"}}},
  {"name": "done", "op": "NoOp", "input": ["^x"]},
  {"name": "bias", "op": "Const", "input": ["^done"], "attr": {"dtype": {"type": "DT_FLOAT"}, "value": {"tensor": {"dtype": "DT_FLOAT", "tensorShape": {}}}}},
  {"name": "z", "op": "AddV2", "input": ["y", "bias"], "attr": {"T": {"type": "DT_FLOAT"}}}]},
 "weightsManifest": [{"paths": ["group1-shard1of1.bin"], "weights": [
  {"name": "scale", "shape": [2], "dtype": "float32"}, {"name": "bias", "shape": [], "dtype": "float32"}]}]}`
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "m"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "m", "model.json"), []byte(model), 0o644))
	var shard []byte
	for _, v := range []float32{3, -1, 0.5} {
		shard = append(shard, byte(math.Float32bits(v)), byte(math.Float32bits(v)>>8), byte(math.Float32bits(v)>>16), byte(math.Float32bits(v)>>24))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "m", "group1-shard1of1.bin"), shard, 0o644))
	require.NoError(t, npz.Write(filepath.Join(dir, "in.npz"), map[string]*kernels.Tensor{"x:0": kernels.FloatTensor([]int{2}, []float32{2, 4})}))
	code, stderr := runCLI(t, dir, "run", "m", "--inputs", "in.npz", "--outputs", "out.npz")
	require.Equal(t, ExitOK, code, stderr)
	out, err := npz.Read(filepath.Join(dir, "out.npz"))
	require.NoError(t, err)
	assert.Equal(t, []float32{6.5, -3.5}, out["z:0"].Data)

	// Half plus two's regression signature parses x out of a tf.Example;
	// feeding x:0 cuts the parsing off, so the string input is not needed
	// (y2 = 0.5x + 3).
	corpus := sharedCorpus(t)
	require.NoError(t, npz.Write(filepath.Join(dir, "x.npz"), map[string]*kernels.Tensor{"x:0": kernels.FloatTensor([]int{2, 1}, []float32{0, 4})}))
	code, stderr = runCLI(t, dir, "run", filepath.Join(corpus, "tf", "sm_half_plus_two_v1"), "--signature", "regress_x_to_y2", "--inputs", "x.npz", "--outputs", "y2.npz")
	require.Equal(t, ExitOK, code, stderr)
	out, err = npz.Read(filepath.Join(dir, "y2.npz"))
	require.NoError(t, err)
	assert.Equal(t, []float32{3, 5}, out["outputs"].Data)
}

// TestRewriteMatchesOracle rewrites every TF.js corpus model (for musa,
// whose missing Relu6 and fused convolutions are rewritten, and for rocm
// with --clear-devices, where every fused op is unfused) and runs the
// rewritten model.json with its extra shard: the outputs still match the
// TF.js CPU oracle's goldens of the original model.
func TestRewriteMatchesOracle(t *testing.T) {
	corpus := sharedCorpus(t)
	for _, m := range []string{"emotion", "meet", "mobilefacenet", "centernet"} {
		for _, target := range [][]string{{"--target", "musa"}, {"--target", "rocm", "--clear-devices"}} {
			t.Run(m+"/"+target[1], func(t *testing.T) {
				if m == "centernet" && testing.Short() {
					t.Skip("centernet takes seconds; skipped with -short")
				}
				golden, err := npz.Read(filepath.Join("testdata", "oracle", m+".npz"))
				require.NoError(t, err)
				dir := t.TempDir()
				args := append([]string{"rewrite", filepath.Join(corpus, "tfjs", m), "-o", "rewritten", "--format", "json=report.json"}, target...)
				code, stderr := runCLI(t, dir, args...)
				require.Equal(t, ExitOK, code, stderr)
				rep, err := os.ReadFile(filepath.Join(dir, "report.json"))
				require.NoError(t, err)
				var r reports.Report
				require.NoError(t, json.Unmarshal(rep, &r))
				rw := r.Models[0].Targets[0].Rewrite
				require.NotNil(t, rw)
				if target[1] == "rocm" {
					// TF.js fuses every convolution; rocm has none of the fused kernels.
					require.NotEmpty(t, rw.Rules, "the oracle check must run a rewritten model")
					assert.Zero(t, rw.After.FallbackNodes)
				}
				runMatchesOracle(t, dir, "rewritten", golden)
			})
		}
	}
}

// runMatchesOracle runs model (relative to dir) on seeded inputs and
// compares its outputs with the TF.js oracle's golden.
func runMatchesOracle(t *testing.T, dir, model string, golden map[string]*kernels.Tensor) {
	t.Helper()
	code, stderr := runCLI(t, dir, "run", model, "--outputs", "out.npz", "--seed", "1")
	require.Equal(t, ExitOK, code, stderr)
	out, err := npz.Read(filepath.Join(dir, "out.npz"))
	require.NoError(t, err)
	in, err := npz.Read(filepath.Join(dir, "out.inputs.npz"))
	require.NoError(t, err)
	checkOracle(t, golden, out, in)
}
