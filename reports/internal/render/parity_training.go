package render

import (
	"fmt"
	"strings"

	"github.com/tfscan/tfscan/reports"
)

// ParityTrainingLines say what a mixed_float16 step's gradients do under
// the target's precision, for the table and Markdown: without loss
// scaling, under the dynamic loss scale, and after it grows, e.g.
// "without loss scaling: 4 of 4 gradient(s) underflow in float16 (conv2d/
// Conv2D/Conv2DBackpropFilter: 100.0% of its mass flushed to zero, from
// Cast in backward)".
func ParityTrainingLines(p *reports.ParityTraining) []string {
	if p == nil {
		return nil
	}
	out := []string{"without loss scaling: " + stepPhrase(&p.WithoutLossScaling)}
	dyn := fmt.Sprintf("with the dynamic loss scale from %g: ", p.InitialScale)
	switch {
	case p.SettledScale == nil:
		dyn += fmt.Sprintf("every step is skipped (%d tried, down to scale 1; LossScaleOptimizer never goes below 1): ", p.SkippedSteps)
		if n := len(p.WithLossScaling); n > 0 {
			dyn += stepPhrase(&p.WithLossScaling[n-1])
		}
	case p.SkippedSteps > 0:
		last := p.WithLossScaling[len(p.WithLossScaling)-1]
		dyn += fmt.Sprintf("%d step(s) skipped (%s), then applied at %g: %s", p.SkippedSteps,
			stepPhrase(&p.WithLossScaling[0]), *p.SettledScale, stepPhrase(&last))
	default:
		dyn += "applied: " + stepPhrase(&p.WithLossScaling[0])
	}
	out = append(out, dyn)
	if g := p.AfterGrowth; g != nil {
		s := fmt.Sprintf("after 2000 finite steps the scale doubles to %g: ", g.LossScale)
		if g.Applied {
			s += "still finite"
		} else {
			s += "the gradients overflow again and that step is skipped (" + stepPhrase(g) + ")"
		}
		out = append(out, s)
	}
	return out
}

// stepPhrase counts a step's gradient findings and names the worst.
func stepPhrase(s *reports.ParityStep) string {
	over, under := 0, 0
	var worst *reports.ParityGradient
	for i := range s.Gradients {
		g := &s.Gradients[i]
		switch g.Finding {
		case "overflow":
			over++
		case "underflow":
			under++
		default:
			continue
		}
		if worst == nil || g.Finding == "overflow" && worst.Finding != "overflow" ||
			g.Finding == worst.Finding && g.LostMass+float64(g.Overflow) > worst.LostMass+float64(worst.Overflow) {
			worst = g
		}
	}
	if worst == nil {
		return fmt.Sprintf("no gradient overflows or underflows in float16 (%d checked)", len(s.Gradients))
	}
	var parts []string
	if over > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d gradient(s) overflow", over, len(s.Gradients)))
	}
	if under > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d gradient(s) underflow", under, len(s.Gradients)))
	}
	what := fmt.Sprintf("%d of %d value(s) Inf/NaN", worst.Overflow, worst.Values)
	if worst.Finding == "underflow" {
		what = fmt.Sprintf("%s of its mass flushed to zero", FormatPercent(100*worst.LostMass))
	}
	if o := worst.Origin; o != nil {
		what += fmt.Sprintf(", from %s %s in %s", o.Op, ShortStepPath(o.Path), o.Part)
	}
	return fmt.Sprintf("%s in float16 (%s: %s)", strings.Join(parts, ", "), ShortStepPath(worst.Path), what)
}

// ShortStepPath drops the call chain of a node inside a traced step
// (train_step/StatefulPartitionedCall/__inference_…/): what is left is
// the name Keras and GradientTape gave it.
func ShortStepPath(p string) string {
	if i := strings.LastIndex(p, "/__inference_"); i >= 0 {
		rest := p[i+1:]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			return rest[j+1:]
		}
	}
	return p
}
