package shape

import (
	"testing"

	"github.com/tfscan/tfscan/internal/benchmodel"
	"github.com/tfscan/tfscan/internal/testmodel"
)

// BenchmarkInfer infers a built graph again and again: the node-heavy
// shapes (benchmodel.NodeHeavy) bar the 1,000,000-node one, which tells
// nothing the 200,000-node one does not: the flat GraphDef for what a node
// costs, the SavedModel of 5,000 functions, each called once from the top
// level, for what a call and a body cost.
// Run: go test -bench Infer -run '^$' -benchtime 2s ./graph/shape/
func BenchmarkInfer(b *testing.B) {
	for _, s := range benchmodel.NodeHeavy() {
		if s.Name == "flat1m" {
			continue
		}
		b.Run(s.Name, func(b *testing.B) {
			path, _, err := s.Write(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			g := testmodel.Graph(b, path)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				Infer(g, Options{})
			}
		})
	}
}
