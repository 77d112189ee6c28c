package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/tfscan/tfscan/internal/benchmodel"
)

// BenchmarkProcessNodeHeavy measures tfscan as a user runs it, in whole
// processes (benchmodel.CompareProcesses): the default scan (`tfscan scan
// --target musa`: the cuda source, placement, table output) against
// `tfscan inspect` of the same model, on benchmodel.NodeHeavy's shapes.
// Beside the in-process BenchmarkScanNodeHeavy, it counts what every
// process pays: starting, and decoding the packs it reads. Goal: Scan at
// most 1.5x Inspect (docs/performance.md).
// Run: go test -bench ProcessNodeHeavy -run '^$' ./cmd/tfscan/
func BenchmarkProcessNodeHeavy(b *testing.B) {
	bin := buildTfscan(b)
	for _, s := range benchmodel.NodeHeavy() {
		b.Run(s.Name, func(b *testing.B) {
			path, _, err := s.Write(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			benchmodel.CompareProcesses(b,
				benchmodel.Process{Name: "Inspect", Args: []string{bin, "inspect", path}},
				benchmodel.Process{Name: "Scan", Args: []string{bin, "scan", "--target", "musa", path}},
			)
		})
	}
}

// BenchmarkProcessTargetsNodeHeavy measures, in whole processes, a scan of
// the flat 1,000,000-node GraphDef against 7 targets with placement and
// the cuda source, its JSON report written to a file, against `tfscan
// inspect` of the same file. Goal: at most 3x Inspect's time and 2x its
// peak memory (docs/performance.md).
// Run: go test -bench ProcessTargetsNodeHeavy -run '^$' ./cmd/tfscan/
func BenchmarkProcessTargetsNodeHeavy(b *testing.B) {
	bin := buildTfscan(b)
	for _, s := range benchmodel.NodeHeavy() {
		if s.Name != "flat1m" {
			continue
		}
		dir := b.TempDir()
		path, _, err := s.Write(dir)
		if err != nil {
			b.Fatal(err)
		}
		benchmodel.CompareProcesses(b,
			benchmodel.Process{Name: "Inspect", Args: []string{bin, "inspect", path}},
			benchmodel.Process{Name: "Scan", Args: []string{bin, "scan", "--target", "ascend,cpu,directml,intel-xpu,musa,rocm,xla",
				"--format", "json=" + filepath.Join(dir, "report.json"), path}},
		)
	}
}

// buildTfscan builds this command into a temporary directory, as the
// Makefile builds it (without cgo).
func buildTfscan(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "tfscan")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// BenchmarkProcessSmall measures what tfscan costs on a small model (the
// bundled convnet_frozen.pb, 14 nodes), where what every process pays
// before it reads its model is most of it: `tfscan inspect` and the
// default scan (`tfscan scan --target musa`, which reads the cuda, musa
// and CPU packs) against starting the binary (`tfscan version`), in
// whole processes (docs/performance.md).
// Run: go test -bench ProcessSmall -run '^$' ./cmd/tfscan/
func BenchmarkProcessSmall(b *testing.B) {
	bin := buildTfscan(b)
	path := filepath.Join("..", "..", "testdata", "models", "convnet_frozen.pb")
	benchmodel.CompareProcesses(b,
		benchmodel.Process{Name: "Version", Args: []string{bin, "version"}},
		benchmodel.Process{Name: "Inspect", Args: []string{bin, "inspect", path}},
		benchmodel.Process{Name: "Scan", Args: []string{bin, "scan", "--target", "musa", path}},
	)
}
