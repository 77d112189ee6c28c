package tfenv

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"
)

// BenchServer is one tools/tf/bench_exec.py process: TensorFlow imported
// and models loaded once, so that a Go benchmark can alternate its own
// rounds with TensorFlow's (or NumPy's) in the same run.
type BenchServer struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

// BenchConfig is how the server's TensorFlow and OpenBLAS run.
type BenchConfig struct {
	// Threads is TensorFlow's intra-op and inter-op pool size and
	// OpenBLAS's thread count; 0 leaves TensorFlow's default (the
	// machine's cores) and OpenBLAS's.
	Threads int
	// OneDNN turns TensorFlow's oneDNN kernels on, as a plain install runs
	// them on x86; off, TensorFlow runs its Eigen kernels, which the
	// conformance tests compare with (Env).
	OneDNN bool
}

// StartBench starts a server for b, stopped when b ends. It skips b where
// the pinned TensorFlow is not installed (Python).
func StartBench(b testing.TB, cfg BenchConfig) *BenchServer {
	b.Helper()
	py := Python(b)
	cmd := exec.Command(py, filepath.Join(RepoRoot(), "tools", "tf", "bench_exec.py"), "--threads", strconv.Itoa(cfg.Threads))
	env := Env()
	if cfg.OneDNN {
		env = append(env, "TF_ENABLE_ONEDNN_OPTS=1")
	}
	if cfg.Threads > 0 {
		env = append(env, "OPENBLAS_NUM_THREADS="+strconv.Itoa(cfg.Threads), "OMP_NUM_THREADS="+strconv.Itoa(cfg.Threads))
	}
	cmd.Env = env
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	s := &BenchServer{cmd: cmd, in: in, out: bufio.NewScanner(out)}
	s.out.Buffer(nil, 16<<20)
	b.Cleanup(s.close)
	var ready struct{ Ready bool }
	if err := s.ask(nil, &ready); err != nil || !ready.Ready {
		b.Fatalf("tools/tf/bench_exec.py did not start: %v", err)
	}
	return s
}

// Timing is one request's repetitions: wall and process CPU time of each.
type Timing struct {
	Wall, CPU []time.Duration
}

// Model times reps calls of the zoo model in dir (its SavedModel's
// signature on its inputs.npz); the first request for a model also loads
// it and runs it once untimed.
func (s *BenchServer) Model(dir string, reps int) (Timing, error) {
	return s.timing(map[string]any{"model": dir, "reps": reps})
}

// MatMul times reps NumPy products of two n×n float32 matrices.
func (s *BenchServer) MatMul(n, reps int) (Timing, error) {
	return s.timing(map[string]any{"matmul": n, "reps": reps})
}

func (s *BenchServer) timing(req map[string]any) (Timing, error) {
	var res struct {
		Wall, CPU []float64
		Error     string
	}
	if err := s.ask(req, &res); err != nil {
		return Timing{}, err
	}
	if res.Error != "" {
		return Timing{}, fmt.Errorf("tools/tf/bench_exec.py: %s", res.Error)
	}
	sec := func(v []float64) []time.Duration {
		d := make([]time.Duration, len(v))
		for i, x := range v {
			d[i] = time.Duration(x * float64(time.Second))
		}
		return d
	}
	return Timing{Wall: sec(res.Wall), CPU: sec(res.CPU)}, nil
}

// ask sends req (none when nil) and decodes the answer line into res.
func (s *BenchServer) ask(req any, res any) error {
	if req != nil {
		line, err := json.Marshal(req)
		if err != nil {
			return err
		}
		if _, err := s.in.Write(append(line, '\n')); err != nil {
			return err
		}
	}
	if !s.out.Scan() {
		if err := s.out.Err(); err != nil {
			return err
		}
		return io.ErrUnexpectedEOF
	}
	return json.Unmarshal(s.out.Bytes(), res)
}

func (s *BenchServer) close() {
	s.in.Close()
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
}

// Median is the median of d (0 for none).
func Median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
