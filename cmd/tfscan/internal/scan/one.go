package scan

import (
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/reports"
)

// ScanModel scans one model against resolved targets, as Run does for each
// of its models, and also returns the model's graph: `tfscan explain` maps
// the messages of a log onto the graph it scanned, without loading the model
// twice. Every node is listed (Options.AllNodes), since a log may name any.
func ScanModel(path string, ts *Targets, opts Options) (*reports.Model, *graph.Graph, error) {
	opts.AllNodes = true
	counted, err := ParsePhases(opts.Phases)
	if err != nil {
		return nil, nil, err
	}
	var g *graph.Graph
	opts.onGraph = func(x *graph.Graph) { g = x }
	m, err := scanModel(path, ts, counted, opts, nil)
	return m, g, err
}
