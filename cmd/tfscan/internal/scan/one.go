package scan

import (
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/rewrite"
)

// Scanned is one model scanned by ScanModel: its report and its graph, and
// what planning a rewrite of it as the scan placed it takes (RewriteFixes).
type Scanned struct {
	Model *reports.Model
	Graph *graph.Graph

	ts      *Targets
	counted PhaseSet
	// opts are the scan's options, the checkpoint it opened included.
	opts Options
	// plans are the rewrite plans RewriteFixes made, without and with
	// the cast rule.
	plans map[bool]*rewrite.Result
}

// ScanModel scans one model against resolved targets, as Run does for each
// of its models, and also returns the model's graph: `tfscan explain` maps
// the messages of a log onto the graph it scanned, without loading the model
// twice. Every node is listed (Options.AllNodes), since a log may name any.
func ScanModel(path string, ts *Targets, opts Options) (*Scanned, error) {
	opts.AllNodes = true
	counted, err := ParsePhases(opts.Phases)
	if err != nil {
		return nil, err
	}
	s := &Scanned{ts: ts, counted: counted, plans: map[bool]*rewrite.Result{}}
	opts.onScan = func(g *graph.Graph, o Options) { s.Graph, s.opts = g, o }
	m, err := scanModel(path, ts, counted, opts, nil)
	if err != nil {
		return nil, err
	}
	s.Model = m
	return s, nil
}
