package scan

import (
	"fmt"
	"os"

	"github.com/tfscan/tfscan/coverage/placement"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/reports"
)

// PlacementOptions are the soft-placement simulation's knobs.
type PlacementOptions struct {
	// Disabled skips the simulation (coverage only).
	Disabled bool
	// NoSoftPlacement predicts the hard failure TensorFlow would raise.
	NoSoftPlacement bool
	// Dims give values to unknown dimensions by input name or "batch".
	Dims map[string]int64
	// Precision is "", "mixed_float16" or "mixed_bfloat16".
	Precision string
	// CompareLog is a placement log of a real run to compare against.
	CompareLog string
}

// simulate predicts soft placement for one target and records it in rt.
// Graph-offload and XLA targets are simulated like kernel targets: what
// their stack cannot take stays on CPU the same way.
func simulate(rt *reports.Target, g *graph.Graph, t Target, ts *Targets, opts Options, log *placement.Log) error {
	if opts.Placement.Disabled {
		return nil
	}
	popts := placement.Options{
		NoSoftPlacement: opts.Placement.NoSoftPlacement,
		Dims:            opts.Placement.Dims,
		Signature:       opts.Signature,
		Precision:       opts.Placement.Precision,
	}
	cpu, err := ts.CPU()
	if err != nil {
		return err
	}
	if popts.Source, err = ts.Source(); err != nil {
		return err
	}
	res, err := placement.Simulate(g, t.Index, cpu, popts)
	if err != nil {
		return fmt.Errorf("placement for target %s: %w", t.Name, err)
	}
	applyPlacement(rt, res)
	if log != nil {
		applyComparison(rt, placement.Compare(res, log))
	}
	return nil
}

// readPlacementLog reads --compare-log once for all models.
func readPlacementLog(path string) (*placement.Log, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, &UsageError{fmt.Errorf("--compare-log: %w", err)}
	}
	defer f.Close()
	log, err := placement.ParseLog(f)
	if err != nil {
		return nil, &UsageError{fmt.Errorf("%s: %w", path, err)}
	}
	return log, nil
}
