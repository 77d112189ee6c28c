package executor_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/tfscan/tfscan/executor"
	"github.com/tfscan/tfscan/kernels"
)

// BenchmarkModel times one whole-model run of each TF.js corpus model on
// the oracle's seeded inputs. With ORACLE_DIR set to a prepared oracle
// (cp -r ../shared/oracle /tmp/oracle && cd /tmp/oracle && npm ci) and node
// on PATH, it also runs the TF.js CPU oracle on the same model and inputs
// and reports its warm run time as oracle-ms, for comparison:
//
//	ORACLE_DIR=/tmp/oracle go test ./executor -run '^$' -bench Model -benchtime 3x
func BenchmarkModel(b *testing.B) {
	for _, m := range []string{"emotion", "meet", "mobilefacenet", "centernet"} {
		b.Run(m, func(b *testing.B) {
			e := loadExecutor(b, "tfjs/"+m, executor.Options{})
			feeds, fetches := seededRun(b, e)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := e.Run(context.Background(), feeds, fetches); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			if ms, ok := oracleTime(b, m); ok {
				b.ReportMetric(ms, "oracle-ms")
			}
		})
	}
}

// seededRun returns the oracle's seeded feeds and the default fetches.
func seededRun(t testing.TB, e *executor.Executor) (map[string]*kernels.Tensor, []string) {
	g := e.Graph()
	ins := executor.PlaceholderInputs(g)
	fetches := executor.SinkOutputs(g)
	if sig := executor.FindSignature(g.Signatures, "serving_default"); sig != nil {
		ins, fetches = sig.Inputs, nil
		for _, o := range sig.Outputs {
			fetches = append(fetches, o.Name)
		}
	}
	feeds := map[string]*kernels.Tensor{}
	for _, in := range ins {
		node, _, err := executor.ParseTensorName(in.Name)
		if err != nil {
			t.Fatal(err)
		}
		x, err := executor.SeededInput(node, 1, in.DType, executor.InputShape(in.Shape, in.UnknownRank, 128), nil)
		if err != nil {
			t.Fatal(err)
		}
		feeds[in.Name] = x
	}
	return feeds, fetches
}

func oracleTime(b *testing.B, m string) (float64, bool) {
	dir := os.Getenv("ORACLE_DIR")
	if dir == "" {
		return 0, false
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return 0, false
	}
	out := b.TempDir()
	model, err := filepath.Abs(filepath.Join(sharedDir(b), "corpus", "tfjs", m))
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(node, filepath.Join(dir, "run_model.js"), "--model", model, "--out", out, "--seed", "1", "--repeat", "2", "--no-json-values")
	if msg, err := cmd.CombinedOutput(); err != nil {
		b.Logf("oracle failed: %v\n%s", err, msg)
		return 0, false
	}
	var res struct {
		Timings map[string]float64 `json:"timings_ms"`
	}
	raw, err := os.ReadFile(filepath.Join(out, "result.json"))
	if err != nil || json.Unmarshal(raw, &res) != nil {
		return 0, false
	}
	return res.Timings["run2"], true
}
