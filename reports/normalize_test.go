package reports_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/reports"
)

// Normalize lists a target's nodes by path, nodes of one path in the order
// they came, whether they came sorted or not.
func TestNormalizeOrdersNodesByPath(t *testing.T) {
	node := func(path, op string) reports.NodeResult { return reports.NodeResult{Path: path, Op: op} }
	want := []reports.NodeResult{node("a", "1"), node("b", "1"), node("b", "2"), node("c", "1")}
	for name, in := range map[string][]reports.NodeResult{
		"sorted":   {node("a", "1"), node("b", "1"), node("b", "2"), node("c", "1")},
		"reversed": {node("c", "1"), node("b", "1"), node("b", "2"), node("a", "1")},
		"one out":  {node("b", "1"), node("a", "1"), node("b", "2"), node("c", "1")},
	} {
		t.Run(name, func(t *testing.T) {
			r := &reports.Report{Models: []*reports.Model{{Path: "m", Targets: []*reports.Target{{Target: "musa", Nodes: in}}}}}
			r.Normalize()
			require.Equal(t, want, r.Models[0].Targets[0].Nodes)
		})
	}
}
