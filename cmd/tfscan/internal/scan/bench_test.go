package scan

import (
	"testing"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/internal/benchmodel"
)

// BenchmarkCoverage200k measures matching a 210,000-node model against every
// built-in pack at once, beside loading the same model in the same run.
// Goal: Coverage/all-packs takes less than Load.
// Run: go test -bench Coverage200k -run '^$' -benchmem ./cmd/tfscan/internal/scan/
func BenchmarkCoverage200k(b *testing.B) {
	dir := b.TempDir()
	if err := benchmodel.WriteDir(dir); err != nil {
		b.Fatal(err)
	}
	b.Run("Load", func(b *testing.B) {
		b.ReportAllocs()
		defer benchmodel.ReportCPU(b)()
		for i := 0; i < b.N; i++ {
			if _, _, err := Load(dir, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	_, g, err := Load(dir, nil)
	if err != nil {
		b.Fatal(err)
	}
	packs, err := coverage.BuiltinPacks()
	if err != nil {
		b.Fatal(err)
	}
	defaults, err := coverage.BuiltinPack("default")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("Coverage/all-packs", func(b *testing.B) {
		b.ReportAllocs()
		defer benchmodel.ReportCPU(b)()
		for i := 0; i < b.N; i++ {
			var targets []Target
			for _, p := range packs {
				targets = append(targets, Target{Name: p.Name, Index: coverage.NewIndex(p, defaults)})
			}
			nodes := PrepareNodes(g, nil, targets)
			for _, t := range targets {
				Coverage(nodes, t)
			}
		}
		b.ReportMetric(float64(len(packs)), "packs")
	})
}
