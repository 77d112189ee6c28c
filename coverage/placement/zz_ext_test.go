package placement_test

import (
	"fmt"
	"testing"

	"github.com/tfscan/tfscan/coverage/placement"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/savedmodel"
)

func TestZZExtent(t *testing.T) {
	for _, p := range []string{"/tmp/w/flat200k.pb", "/tmp/w/f5k"} {
		m, err := savedmodel.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		n, in, ok := m.DecodedNodes()
		mg, _ := graph.SelectMetaGraph(m, nil)
		g, _ := graph.Build(m, mg)
		fns := len(mg.Def.GetGraphDef().GetLibrary().GetFunction())
		e := placement.Extent{Nodes: n, Inputs: in, Functions: fns > 0}
		fmt.Println(p, "decoded", n, in, ok, "graph nodes", len(g.Nodes), "fns", fns, "reserve MB", float64(placement.ReserveSize(e, true))/1e6)
	}
}
