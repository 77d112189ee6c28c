package scan

import (
	"context"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/parity"
	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/training"
)

// parityTraining replays a mixed_float16 training step's loss scale under
// the target's precision (parity.RunTraining) when the graph has
// LossScaleOptimizer's gradient check; nil otherwise.
func parityTraining(ctx context.Context, lm *loadedModel, opts parity.Options) (*reports.ParityTraining, error) {
	if len(parity.Gradients(lm.graph)) == 0 {
		return nil, nil
	}
	tr, err := parity.RunTraining(ctx, lm.pm, opts)
	if err != nil {
		return nil, err
	}
	parts := training.Parts(lm.graph)
	step := func(s *parity.StepRun) reports.ParityStep {
		ps := reports.ParityStep{LossScale: s.Scale, Applied: s.Finite, Gradients: []reports.ParityGradient{}}
		for _, g := range s.Gradients {
			pg := reports.ParityGradient{Path: g.Source.Path(), Op: g.Source.Op, Values: g.Count, Overflow: g.Overflow,
				Underflow: g.Underflow, LostMass: g.LostMass, RelError: g.RelError, Finding: g.Finding()}
			if g.Origin != nil {
				pg.Origin = &reports.ParityOrigin{Path: g.Origin.Path(), Op: g.Origin.Op, Part: partName(parts, g.Origin), Values: g.OriginCount}
			}
			ps.Gradients = append(ps.Gradients, pg)
		}
		return ps
	}
	out := &reports.ParityTraining{LossScaleVariable: parity.LossScaleVariable, InitialScale: tr.Initial,
		WithoutLossScaling: step(tr.Unscaled), WithLossScaling: []reports.ParityStep{}}
	for _, s := range tr.Dynamic {
		out.WithLossScaling = append(out.WithLossScaling, step(s))
		if !s.Finite {
			out.SkippedSteps++
		}
	}
	if tr.Settled > 0 {
		v := tr.Settled
		out.SettledScale = &v
	}
	if tr.Grown != nil {
		g := step(tr.Grown)
		out.AfterGrowth = &g
	}
	return out, nil
}

func partName(parts []training.Part, n *graph.Node) string {
	if n.ID >= 0 && n.ID < len(parts) {
		return parts[n.ID].String()
	}
	return ""
}
