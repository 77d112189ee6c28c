package scan

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/coverage/placement"
	"github.com/tfscan/tfscan/internal/benchmodel"
	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/reports/jsonout"
	"github.com/tfscan/tfscan/reports/table"
)

// BenchmarkCoverage200k measures matching a 210,000-node model against every
// built-in pack at once, beside loading the same model in the same run:
// "Coverage/all-packs" lists the nodes that need attention (a scan's
// default, --nodes attention), "Coverage/all-packs-all-nodes" lists every
// node of every target (--nodes all). Goal: all-packs takes less than
// Load; a node class is matched once and only the nodes needing attention
// are listed. With every node listed it is above Load: twelve lists of
// 210,000 entries. docs/performance.md has the figures.
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
	for _, all := range []bool{false, true} {
		name := "Coverage/all-packs"
		if all {
			name += "-all-nodes"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			defer benchmodel.ReportCPU(b)()
			for i := 0; i < b.N; i++ {
				var targets []Target
				for _, p := range packs {
					targets = append(targets, Target{Name: p.Name, Index: coverage.NewIndex(p, defaults)})
				}
				nodes := PrepareNodes(g, nil, targets)
				for _, t := range targets {
					if all {
						Coverage(nodes, t)
					} else {
						coverageInto(nodes, t, nil, attentionKeep(nodes, t, nil, nil, nil))
					}
				}
			}
			b.ReportMetric(float64(len(packs)), "packs")
		})
	}
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

// BenchmarkPlacement200k measures, for each target, the placement
// simulation with its what-if wishlist on the 210,000-node model (as a
// scan runs it: the step's nodes counted), against loading the same model
// (reading, decoding and building its graph: what `tfscan inspect` costs)
// in the same run. Goal: placement within 1x the load's CPU time and 1.5x
// its peak heap per target.
//
// What does not depend on the target a scan computes once per model: the
// shapes ("Shapes"), and the flattened graph (the placement nodes, their
// inputs, instances and frames) and the CPU's kernel lookups ("Share",
// placement.Scratch.Prepare), which every later simulation reads.
// "Place-TARGET" is a target's simulation as one of several: with the
// model's shapes, flattened graph and CPU lookups. "Alone-TARGET" is a
// scan's only simulation (no --from source): nothing shared, all of it
// computed and allocated afresh. "PerTarget/Load-cpu" is a scan of the
// three targets: the shapes, the shared part and the three simulations,
// divided by three. NoWishlist is a
// simulation without the wishlist, so that the wishlist's share shows.
// Run: go test -bench '^BenchmarkPlacement200k$' -run '^$' -benchtime 8x ./cmd/tfscan/internal/scan/
func BenchmarkPlacement200k(b *testing.B) {
	dir := b.TempDir()
	if err := benchmodel.WriteDir(dir); err != nil {
		b.Fatal(err)
	}
	ts, err := ResolveTargets([]string{"intel-xpu", "musa", "cuda"}, nil)
	if err != nil {
		b.Fatal(err)
	}
	counted, _ := ParsePhases(nil)
	_, g, err := Load(dir, nil)
	if err != nil {
		b.Fatal(err)
	}
	nodes := PrepareNodes(g, nil, ts.List).WithPhases(g.Phases(""), counted)
	nodes.shapes = placement.InferShapes(g, placement.Options{})
	steps := []benchmodel.Step{loadStep(b, "Load", dir), {Name: "Shapes", Run: func() {
		// What place infers for the first target with Options{}.
		placement.InferShapes(g, placement.Options{})
	}}, {Name: "Share", Run: func() {
		// What the first simulation prepares for the others, with
		// place's options and matchers.
		cpu, err := ts.CPUFor(ts.List[0])
		if err != nil {
			b.Fatal(err)
		}
		var sc placement.Scratch
		if err := sc.Prepare(g, nodes.keyed(g, ts.List[0].Index, nil), nodes.keyed(g, cpu, nil), placement.Options{}); err != nil {
			b.Fatal(err)
		}
	}}}
	placeStep := func(name string, t Target, ns func() *Nodes, noWishlist bool) benchmodel.Step {
		return benchmodel.Step{Name: name, Run: func() {
			res, err := place(g, ns(), t, ts, Options{}, nil, noWishlist)
			if err != nil || res == nil {
				b.Fatalf("%s: %v", name, err)
			}
			// What a scan reads of every node (applyPlacement): a lazy
			// result works each out when asked.
			for _, n := range g.Nodes {
				if nr, ok := res.NodeOf(n.ID); ok && nr.Device == "" {
					b.Fatalf("%s: %s has no device", name, nr.Path)
				}
			}
		}}
	}
	shared := func() *Nodes { return nodes }
	// The first simulation of the scan prepares what the others share.
	if _, err := place(g, nodes, ts.List[0], ts, Options{}, nil, false); err != nil {
		b.Fatal(err)
	}
	alone := func() *Nodes {
		ns := *nodes
		ns.shapes, ns.scratch = nil, new(placement.Scratch)
		return &ns
	}
	for _, t := range ts.List {
		steps = append(steps, placeStep("Place-"+t.Name, t, shared, false))
	}
	steps = append(steps, placeStep("NoWishlist-"+ts.List[0].Name, ts.List[0], shared, true))
	for _, t := range ts.List {
		steps = append(steps, placeStep("Alone-"+t.Name, t, alone, false))
	}
	med := benchmodel.Compare(b, steps...)
	load, all := float64(med[0].CPU), float64(med[1].CPU+med[2].CPU)
	for i := range ts.List {
		all += float64(med[3+i].CPU)
	}
	b.ReportMetric(all/float64(len(ts.List))/load, "PerTarget/Load-cpu")
}

// BenchmarkScanPlacement200k measures placement as a user meets it: a
// whole scan of the 210,000-node model against one target (musa) and its
// JSON report, with placement and without, beside loading the model,
// interleaved. Inside a scan the simulation shares the process's heap
// with the loaded model and the report, so the garbage collector's work
// falls differently than in BenchmarkPlacement200k's isolated steps. The
// metric "placement/Load-cpu" is what placement adds to a scan without a
// --from source ((Scan-placement - Scan-none) / Load): one simulation
// against the load. "cuda-placement/Load-cpu" is what it adds to the same
// scan compared with cuda (--from cuda, the default), which places the
// model on cuda too: two simulations, sharing what does not depend on the
// target.
// Run: go test -bench ScanPlacement200k -run '^$' -benchtime 5x ./cmd/tfscan/internal/scan/
func BenchmarkScanPlacement200k(b *testing.B) {
	dir := b.TempDir()
	if err := benchmodel.WriteDir(dir); err != nil {
		b.Fatal(err)
	}
	scan := func(name, from string, disabled bool) benchmodel.Step {
		return scanStep(b, name, Options{Paths: []string{dir}, Targets: []string{"musa"}, From: from, Version: "bench",
			Placement: PlacementOptions{Disabled: disabled}}, nil)
	}
	med := benchmodel.Compare(b,
		loadStep(b, "Load", dir),
		scan("Scan-none", "none", true),
		scan("Scan-placement", "none", false),
		scan("Scan-none-cuda", "cuda", true),
		scan("Scan-placement-cuda", "cuda", false),
	)
	b.ReportMetric(float64(med[2].CPU-med[1].CPU)/float64(med[0].CPU), "placement/Load-cpu")
	b.ReportMetric(float64(med[4].CPU-med[3].CPU)/float64(med[0].CPU), "cuda-placement/Load-cpu")
}

// BenchmarkReport200k measures what the report of the 210,000-node model
// against 7 targets without placement costs: the whole
// scan (Run: load, coverage of the 7 targets and of the cuda source, the
// delta, the nodes listed) and its JSON, written to a counter, with
// --nodes attention (the default) and --nodes all, interleaved with
// loading the same model (benchmodel.Compare). Metrics: attention/load-heap
// and all/load-heap, the peak heap over the load's; the -cpu ratios; and
// attention-json-MB and all-json-MB, the reports' sizes. Goals with
// attention: at most 10 MB of JSON and 1.5x the load's heap.
// Run: go test -bench Report200k -run '^$' -benchtime 3x ./cmd/tfscan/internal/scan/
func BenchmarkReport200k(b *testing.B) {
	dir := b.TempDir()
	if err := benchmodel.WriteDir(dir); err != nil {
		b.Fatal(err)
	}
	size := map[string]countingWriter{}
	scanJSON := func(nodes string) benchmodel.Step {
		opts := Options{
			Paths:     []string{dir},
			Targets:   []string{"ascend", "cpu", "directml", "intel-xpu", "musa", "rocm", "xla"},
			From:      "cuda",
			Version:   "bench",
			AllNodes:  nodes == reports.NodesAll,
			Placement: PlacementOptions{Disabled: true},
		}
		return scanStep(b, nodes, opts, func(w countingWriter) { size[nodes] = w })
	}
	benchmodel.Compare(b,
		loadStep(b, "load", dir),
		scanJSON(reports.NodesAttention),
		scanJSON(reports.NodesAll),
	)
	for nodes, w := range size {
		b.ReportMetric(float64(w)/1e6, nodes+"-json-MB")
	}
}

// loadStep is a benchmark step that loads the model in dir (what the
// benchmarks compare with).
func loadStep(b *testing.B, name, dir string) benchmodel.Step {
	return benchmodel.Step{Name: name, Run: func() {
		if _, _, err := Load(dir, nil); err != nil {
			b.Fatal(err)
		}
	}}
}

// scanStep is a benchmark step that scans with opts and writes the JSON
// report to a counter, whose count it gives to size when not nil.
func scanStep(b *testing.B, name string, opts Options, size func(countingWriter)) benchmodel.Step {
	return scanWriteStep(b, name, opts, jsonout.WriteJSON, size)
}

// scanWriteStep is a benchmark step that scans with opts and writes the
// report with write to a counter, whose count it gives to size when not nil.
func scanWriteStep(b *testing.B, name string, opts Options, write func(io.Writer, *reports.Report) error, size func(countingWriter)) benchmodel.Step {
	return benchmodel.Step{Name: name, Run: func() {
		rep, err := Run(context.Background(), opts)
		if err != nil {
			b.Fatal(err)
		}
		if len(rep.Errors) > 0 {
			b.Fatal(rep.Errors[0].Message)
		}
		var w countingWriter
		if err := write(&w, rep); err != nil {
			b.Fatal(err)
		}
		if size != nil {
			size(w)
		}
	}}
}

// countingWriter counts the bytes written to it.
type countingWriter int64

func (w *countingWriter) Write(p []byte) (int, error) {
	*w += countingWriter(len(p))
	return len(p), nil
}

// BenchmarkScanNodeHeavy measures the default scan of node-heavy graphs
// (benchmodel.NodeHeavy: flat GraphDefs of 200,000 and 1,000,000 small
// nodes, a SavedModel of 5,000 functions) against `tfscan inspect` of the
// same model, both with their table output, interleaved in one run
// (benchmodel.Compare). The scan is what a user runs by default: one
// target (musa), the cuda source (--from cuda), placement on. Goal:
// Scan/Inspect at most 1.5 in CPU (docs/performance.md).
// Run: go test -bench ScanNodeHeavy -run '^$' -benchtime 3x ./cmd/tfscan/internal/scan/
func BenchmarkScanNodeHeavy(b *testing.B) {
	for _, s := range benchmodel.NodeHeavy() {
		b.Run(s.Name, func(b *testing.B) {
			path, _, err := s.Write(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			benchmodel.Compare(b,
				benchmodel.Step{Name: "Inspect", Run: func() {
					rep, err := Inspect(context.Background(), InspectOptions{Paths: []string{path}})
					if err != nil || len(rep.Errors) > 0 {
						b.Fatal(err, rep.Errors)
					}
					var w countingWriter
					if err := table.WriteInspectTable(&w, rep); err != nil {
						b.Fatal(err)
					}
				}},
				scanWriteStep(b, "Scan", Options{Paths: []string{path}, Targets: []string{"musa"}, From: "cuda", Version: "bench"}, table.WriteTable, nil),
			)
		})
	}
}

// BenchmarkScanTargetsNodeHeavy measures a scan of the flat 1,000,000-node
// GraphDef (benchmodel.NodeHeavy's flat1m) against 7 targets with
// placement and the cuda source, with its JSON report, against `tfscan
// inspect` of the same file with its table output, interleaved in one run
// (benchmodel.Compare). Goal: Scan/Inspect at most 3 in CPU and 2 in peak
// heap (docs/performance.md); json-MB is the report's size.
// Run: go test -bench ScanTargetsNodeHeavy -run '^$' ./cmd/tfscan/internal/scan/
func BenchmarkScanTargetsNodeHeavy(b *testing.B) {
	var s benchmodel.Shape
	for _, sh := range benchmodel.NodeHeavy() {
		if sh.Name == "flat1m" {
			s = sh
		}
	}
	path, _, err := s.Write(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	var size countingWriter
	benchmodel.Compare(b,
		benchmodel.Step{Name: "Inspect", Run: func() {
			rep, err := Inspect(context.Background(), InspectOptions{Paths: []string{path}})
			if err != nil || len(rep.Errors) > 0 {
				b.Fatal(err, rep.Errors)
			}
			var w countingWriter
			if err := table.WriteInspectTable(&w, rep); err != nil {
				b.Fatal(err)
			}
		}},
		scanStep(b, "Scan", Options{Paths: []string{path}, From: "cuda", Version: "bench",
			Targets: []string{"ascend", "cpu", "directml", "intel-xpu", "musa", "rocm", "xla"}},
			func(w countingWriter) { size = w }),
	)
	b.ReportMetric(float64(size)/1e6, "json-MB")
}
