package scan

import (
	"testing"
	"time"

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
	// The delta against --from costs one more coverage and placement
	// (without the wishlist) per model, shared by every target. Goal:
	// Scan/from-cuda takes at most (targets+1)/targets of Scan/from-none
	// (here 3/2), reported as the ratio "delta-cost" of the last two runs.
	var none time.Duration
	for _, from := range []string{"none", "cuda"} {
		b.Run("Scan/from-"+from, func(b *testing.B) {
			ts, err := ResolveTargets([]string{"intel-xpu", "musa"}, nil)
			if err != nil {
				b.Fatal(err)
			}
			if err := ts.SetFrom(from); err != nil {
				b.Fatal(err)
			}
			counted, _ := ParsePhases(nil)
			b.ReportAllocs()
			defer benchmodel.ReportCPU(b)()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				if _, err := scanModel(dir, ts, counted, Options{}, nil); err != nil {
					b.Fatal(err)
				}
			}
			per := time.Since(start) / time.Duration(b.N)
			if from == "none" {
				none = per
			} else if none > 0 {
				b.ReportMetric(float64(per)/float64(none), "delta-cost")
			}
		})
	}
}
