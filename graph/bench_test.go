package graph_test

import (
	"os"
	"path/filepath"
	"testing"

	gpb "github.com/wamuir/graft/tensorflow/core/framework/graph_go_proto"
	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"
	"google.golang.org/protobuf/proto"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/internal/benchmodel"
	"github.com/tfscan/tfscan/savedmodel"
	"github.com/tfscan/tfscan/savedmodel/modelgen"
)

// BenchmarkLoadBuild compares reading and building a 210,000-node
// SavedModel (64 MiB of Const tensors) with a bare proto.Unmarshal of the
// same bytes. Ratio interleaves the three in one run and reports
// Load/Unmarshal and LoadBuild/Unmarshal, CPU and peak heap (medians);
// goal: Load, and LoadBuild too, below 1 (docs/performance.md).
// Run: go test -bench LoadBuild -run '^$' -benchmem ./graph/
func BenchmarkLoadBuild(b *testing.B) {
	data := benchmodel.SavedModel()
	dir := writeModel(b, data)
	b.Run("Ratio", func(b *testing.B) {
		benchmodel.Compare(b,
			benchmodel.Step{Name: "Unmarshal", Run: func() {
				sm := &mgpb.SavedModel{}
				if err := proto.Unmarshal(data, sm); err != nil {
					b.Fatal(err)
				}
			}},
			benchmodel.Step{Name: "Load", Run: func() {
				if _, err := savedmodel.Load(dir); err != nil {
					b.Fatal(err)
				}
			}},
			benchmodel.Step{Name: "LoadBuild", Run: func() { loadBuild(b, dir) }},
		)
	})
	b.Run("Unmarshal", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		unmarshal(b, data)
	})
	b.Run("LoadBuild", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		defer benchmodel.ReportCPU(b)()
		for i := 0; i < b.N; i++ {
			if g := loadBuild(b, dir); len(g.Nodes) < 200_000 {
				b.Fatalf("only %d nodes", len(g.Nodes))
			}
		}
	})
	b.Run("Build", func(b *testing.B) {
		m, err := savedmodel.Load(dir)
		if err != nil {
			b.Fatal(err)
		}
		mg, _ := graph.SelectMetaGraph(m, nil)
		b.ReportAllocs()
		b.ResetTimer()
		defer benchmodel.ReportCPU(b)()
		for i := 0; i < b.N; i++ {
			if _, err := graph.Build(m, mg); err != nil {
				b.Fatal(err)
			}
		}
	})
	// Phases is what a scan adds per model to classify step, load and
	// save work; goal: a small fraction of Build.
	b.Run("Phases", func(b *testing.B) {
		m, err := savedmodel.Load(dir)
		if err != nil {
			b.Fatal(err)
		}
		mg, _ := graph.SelectMetaGraph(m, nil)
		g, err := graph.Build(m, mg)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		defer benchmodel.ReportCPU(b)()
		for i := 0; i < b.N; i++ {
			if ph := g.Phases(""); len(ph) != len(g.Nodes) {
				b.Fatal("phases")
			}
		}
	})
}

// BenchmarkDeepCallChain measures a valid SavedModel of 10,000 nested
// calls (modelgen.CallChain), whose paths grow quadratically when every
// node's path is rendered in full: reading and building it, and rendering every node's path once (as inspect and
// scan's reports do), against a bare proto.Unmarshal of the same bytes in
// the same run. The goal is LoadBuild under 5 s and 512 MiB of peak heap.
// Run: go test -bench DeepCallChain -run '^$' -benchmem ./graph/
func BenchmarkDeepCallChain(b *testing.B) {
	data, err := modelgen.CallChainBytes(10_000)
	if err != nil {
		b.Fatal(err)
	}
	dir := writeModel(b, data)
	b.Run("Unmarshal", func(b *testing.B) {
		defer benchmodel.ReportPeakHeap(b)()
		unmarshal(b, data)
	})
	b.Run("LoadBuild", func(b *testing.B) {
		b.ReportAllocs()
		defer benchmodel.ReportPeakHeap(b)()
		defer benchmodel.ReportCPU(b)()
		for i := 0; i < b.N; i++ {
			g := loadBuild(b, dir)
			var buf []byte
			pathBytes := 0
			for _, n := range g.Nodes {
				buf = n.AppendPath(buf[:0])
				pathBytes += len(buf)
			}
			b.ReportMetric(float64(pathBytes)/(1<<20), "path-MiB")
		}
	})
}

// loadBuild reads the model in dir and builds its serving graph.
func loadBuild(b *testing.B, dir string) *graph.Graph {
	m, err := savedmodel.Load(dir)
	if err != nil {
		b.Fatal(err)
	}
	mg, err := graph.SelectMetaGraph(m, nil)
	if err != nil {
		b.Fatal(err)
	}
	g, err := graph.Build(m, mg)
	if err != nil {
		b.Fatal(err)
	}
	return g
}

// writeModel writes data as saved_model.pb of a temporary directory.
func writeModel(b *testing.B, data []byte) string {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "saved_model.pb"), data, 0o644); err != nil {
		b.Fatal(err)
	}
	return dir
}

// unmarshal is the baseline: a bare proto.Unmarshal of the model's bytes.
func unmarshal(b *testing.B, data []byte) {
	b.ReportAllocs()
	defer benchmodel.ReportCPU(b)()
	for i := 0; i < b.N; i++ {
		sm := &mgpb.SavedModel{}
		if err := proto.Unmarshal(data, sm); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNodeHeavy compares reading and building node-heavy graphs (a
// flat GraphDef of 200,000 and of 1,000,000 small nodes, a SavedModel of
// 5,000 functions: benchmodel.NodeHeavy; and the 200,000 nodes with
// distinct constants, benchmodel.FlatDistinct) with a bare read of the
// file and proto.Unmarshal of its bytes, interleaved in one run
// (benchmodel.Compare). Goal: LoadBuild/ReadUnmarshal at most 0.9 in CPU
// and peak heap (docs/performance.md).
// Run: go test -bench NodeHeavy -run '^$' -benchtime 5x ./graph/
func BenchmarkNodeHeavy(b *testing.B) {
	for _, s := range append(benchmodel.NodeHeavy(), benchmodel.FlatDistinct()) {
		b.Run(s.Name, func(b *testing.B) {
			path, file, err := s.Write(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			var m proto.Message = &gpb.GraphDef{}
			if s.File == "saved_model.pb" {
				m = &mgpb.SavedModel{}
			}
			benchmodel.Compare(b,
				benchmodel.Step{Name: "ReadUnmarshal", Run: func() {
					raw, err := os.ReadFile(file)
					if err != nil {
						b.Fatal(err)
					}
					if err := proto.Unmarshal(raw, m.ProtoReflect().New().Interface()); err != nil {
						b.Fatal(err)
					}
				}},
				benchmodel.Step{Name: "Load", Run: func() {
					if _, err := savedmodel.Load(path); err != nil {
						b.Fatal(err)
					}
				}},
				benchmodel.Step{Name: "LoadBuild", Run: func() { loadBuild(b, path) }},
			)
		})
	}
}
