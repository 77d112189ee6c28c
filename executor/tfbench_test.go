package executor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/tfscan/tfscan/executor"
	"github.com/tfscan/tfscan/internal/testmodel/testexec"
	"github.com/tfscan/tfscan/internal/tfenv"
	"github.com/tfscan/tfscan/kernels/npz"
)

// BenchmarkTensorFlowCPU times the executor against TensorFlow's own CPU
// runtime on every model of a zoo (tools/tfmodels/README.md) that both run:
// the SavedModel's signature on the zoo's inputs, the outputs brought to
// the host. TensorFlow runs in tools/tf/bench_exec.py, one process per
// configuration, and the rounds alternate (Go then TensorFlow, TensorFlow
// then Go) so that both see the same machine load. Configurations:
//
//   - 1thread: TensorFlow with one intra-op and one inter-op thread and its
//     default oneDNN kernels, Go with GOMAXPROCS=1; CPU time.
//   - 1thread-eigen: the same with oneDNN off (TF_ENABLE_ONEDNN_OPTS=0:
//     TensorFlow's Eigen kernels, which the conformance tests compare with).
//   - cores: both with the machine's cores (TensorFlow's default pools, Go's
//     default GOMAXPROCS); wall time.
//
// Each sub-benchmark reports go-ms and tf-ms, the medians of every
// repetition, and go/tf, their ratio (1thread: CPU time; cores: wall time),
// and the other measure's ratio as go/tf-wall or go/tf-cpu.
//
//	make bench-exec                          # the small zoo (make zoo)
//	make bench-exec ZOO=$(make -s zoo-full)  # and the 224x224 CNNs
//
// TFSCAN_BENCH_ROUNDS sets the rounds (default 5), each about
// TFSCAN_BENCH_ROUND_MS of each side (default 300).
func BenchmarkTensorFlowCPU(b *testing.B) {
	zoo := os.Getenv("TFSCAN_ZOO")
	if zoo == "" {
		b.Skip("TFSCAN_ZOO names no zoo (make bench-exec sets it)")
	}
	models := zooModels(b, zoo)
	configs := []struct {
		name   string
		cfg    tfenv.BenchConfig
		procs  int
		useCPU bool
	}{
		{"1thread", tfenv.BenchConfig{Threads: 1, OneDNN: true}, 1, true},
		{"1thread-eigen", tfenv.BenchConfig{Threads: 1}, 1, true},
		{"cores", tfenv.BenchConfig{OneDNN: true}, runtime.NumCPU(), false},
	}
	rounds := envInt("TFSCAN_BENCH_ROUNDS", 5)
	roundTime := time.Duration(envInt("TFSCAN_BENCH_ROUND_MS", 300)) * time.Millisecond
	for _, c := range configs {
		b.Run(c.name, func(b *testing.B) {
			srv := tfenv.StartBench(b, c.cfg)
			for _, m := range models {
				b.Run(m, func(b *testing.B) {
					dir := filepath.Join(zoo, m)
					run, err := zooRunner(dir, true, true)
					if err != nil {
						b.Skipf("the executor does not run %s: %v", m, err)
					}
					defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(c.procs))
					if err := run(); err != nil { // warm: pools, lazily read constants
						b.Skipf("the executor does not run %s: %v", m, err)
					}
					t0 := time.Now()
					if err := run(); err != nil {
						b.Fatal(err)
					}
					reps := max(1, min(200, int(roundTime/max(time.Since(t0), time.Microsecond))))
					if _, err := srv.Model(dir, 1); err != nil { // load and warm TensorFlow's side
						b.Skipf("TensorFlow: %v", err)
					}
					var goT, tfT tfenv.Timing
					goRound := func() {
						for r := 0; r < reps; r++ {
							w, p := time.Now(), tfenv.CPUTime()
							if err := run(); err != nil {
								b.Fatal(err)
							}
							goT.Wall = append(goT.Wall, time.Since(w))
							goT.CPU = append(goT.CPU, tfenv.CPUTime()-p)
						}
					}
					tfRound := func() {
						t, err := srv.Model(dir, reps)
						if err != nil {
							b.Fatal(err)
						}
						tfT.Wall = append(tfT.Wall, t.Wall...)
						tfT.CPU = append(tfT.CPU, t.CPU...)
					}
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						for r := 0; r < rounds; r++ {
							if r%2 == 0 {
								goRound()
								tfRound()
							} else {
								tfRound()
								goRound()
							}
						}
					}
					b.StopTimer()
					other := "cpu"
					gm, tm := tfenv.Median(goT.Wall), tfenv.Median(tfT.Wall)
					go2, tf2 := tfenv.Median(goT.CPU), tfenv.Median(tfT.CPU)
					if c.useCPU && go2 > 0 {
						other = "wall"
						gm, tm, go2, tf2 = go2, tf2, gm, tm
					}
					b.ReportMetric(ms(gm), "go-ms")
					b.ReportMetric(ms(tm), "tf-ms")
					b.ReportMetric(float64(gm)/float64(tm), "go/tf")
					if go2 > 0 && tf2 > 0 {
						b.ReportMetric(float64(go2)/float64(tf2), "go/tf-"+other)
					}
				})
			}
		})
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// zooModels lists the zoo's models (index.json) in name order.
func zooModels(b *testing.B, zoo string) []string {
	raw, err := os.ReadFile(filepath.Join(zoo, "index.json"))
	if err != nil {
		b.Fatal(err)
	}
	var index struct {
		Models map[string]json.RawMessage `json:"models"`
	}
	if err := json.Unmarshal(raw, &index); err != nil {
		b.Fatalf("%s: %v", filepath.Join(zoo, "index.json"), err)
	}
	var names []string
	for n := range index.Models {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// zooRunner loads a zoo model's SavedModel into an executor and returns one
// run of its signature on the zoo's inputs, as `tfscan run` does it;
// reuse false turns buffer reuse off, and with it the pack cache
// (no-reuse); packs false the pack cache alone.
func zooRunner(dir string, reuse, packs bool) (func() error, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil {
		return nil, err
	}
	var meta struct {
		Signature string `json:"signature"`
	}
	if err := json.Unmarshal(raw, &meta); err != nil {
		return nil, err
	}
	ex, g, err := testexec.Executor(filepath.Join(dir, "saved_model"))
	if err != nil {
		return nil, err
	}
	if !reuse {
		executor.DisableBufferReuse(ex)
	}
	if !reuse || !packs {
		executor.DisablePackCache(ex)
	}
	inputs, err := npz.Read(filepath.Join(dir, "inputs.npz"))
	if err != nil {
		return nil, err
	}
	sig := executor.FindSignature(g.Signatures, meta.Signature)
	if sig == nil {
		return nil, fmt.Errorf("no signature %q", meta.Signature)
	}
	feeds, _, err := executor.FeedsFrom(g, sig, inputs)
	if err != nil {
		return nil, err
	}
	names, _ := executor.Outputs(g, sig)
	return func() error {
		_, err := ex.Run(context.Background(), feeds, names)
		return err
	}, nil
}

// BenchmarkZooGo times the executor alone on every model of a zoo
// (TFSCAN_ZOO), without TensorFlow: what a profile of the Go side runs on.
//
//	TFSCAN_ZOO=$(make -s zoo) go test ./executor -run '^$' -bench ZooGo/mobilenetv2_a035_32/reuse -cpu 1 -cpuprofile cpu.out
//
// Each model runs as the executor runs it (reuse: dead tensors' buffers
// recycled, stable operands' packed panels kept), without the pack cache
// (no-packs) and without either (no-reuse); cpu-ms/op is the process CPU
// time per run.
func BenchmarkZooGo(b *testing.B) {
	zoo := os.Getenv("TFSCAN_ZOO")
	if zoo == "" {
		b.Skip("TFSCAN_ZOO names no zoo")
	}
	for _, m := range zooModels(b, zoo) {
		for _, v := range []struct {
			name         string
			reuse, packs bool
		}{{"reuse", true, true}, {"no-packs", true, false}, {"no-reuse", false, false}} {
			b.Run(m+"/"+v.name, func(b *testing.B) {
				benchZooGo(b, filepath.Join(zoo, m), v.reuse, v.packs)
			})
		}
	}
}

func benchZooGo(b *testing.B, dir string, reuse, packs bool) {
	m := filepath.Base(dir)
	run, err := zooRunner(dir, reuse, packs)
	if err != nil {
		b.Skipf("the executor does not run %s: %v", m, err)
	}
	if err := run(); err != nil {
		b.Skipf("the executor does not run %s: %v", m, err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu := tfenv.CPUTime()
	for i := 0; i < b.N; i++ {
		if err := run(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(ms(tfenv.CPUTime()-cpu)/float64(b.N), "cpu-ms/op")
}
