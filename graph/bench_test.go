package graph_test

import (
	"os"
	"path/filepath"
	"testing"

	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"
	"google.golang.org/protobuf/proto"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/internal/benchmodel"
	"github.com/tfscan/tfscan/savedmodel"
)

// BenchmarkLoadBuild compares reading and building a 210,000-node
// SavedModel (64 MiB of Const tensors) with a bare proto.Unmarshal of the
// same bytes. Run: go test -bench LoadBuild -run '^$' -benchmem ./graph/
func BenchmarkLoadBuild(b *testing.B) {
	data := benchmodel.SavedModel()
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "saved_model.pb"), data, 0o644); err != nil {
		b.Fatal(err)
	}
	b.Run("Unmarshal", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		defer benchmodel.ReportCPU(b)()
		for i := 0; i < b.N; i++ {
			sm := &mgpb.SavedModel{}
			if err := proto.Unmarshal(data, sm); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("LoadBuild", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		defer benchmodel.ReportCPU(b)()
		for i := 0; i < b.N; i++ {
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
			if len(g.Nodes) < 200_000 {
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
