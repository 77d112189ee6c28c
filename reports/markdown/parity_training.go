package markdown

import (
	"fmt"
	"strings"

	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/reports/internal/render"
)

// writeParityTrainingMarkdown writes what a mixed_float16 step's
// gradients do under the target's precision: the summary lines, then one
// row per gradient with a finding in the steps they name.
func writeParityTrainingMarkdown(sec *strings.Builder, target string, p *reports.ParityTraining) {
	if p == nil {
		return
	}
	fmt.Fprintf(sec, "\n**%s** — mixed-precision training step, gradients in float16\n\n", mdCell(target))
	for _, l := range render.ParityTrainingLines(p) {
		fmt.Fprintf(sec, "- %s\n", mdLine(l))
	}
	// The steps the lines name: without scaling, the first and the last of
	// the dynamic scale's, after growth.
	steps := []reports.ParityStep{p.WithoutLossScaling}
	if n := len(p.WithLossScaling); n > 0 {
		steps = append(steps, p.WithLossScaling[0])
		if n > 1 {
			steps = append(steps, p.WithLossScaling[n-1])
		}
	}
	if p.AfterGrowth != nil {
		steps = append(steps, *p.AfterGrowth)
	}
	rows := 0
	for _, s := range steps {
		for _, g := range s.Gradients {
			if g.Finding == "" {
				continue
			}
			if rows == 0 {
				sec.WriteString("\n| loss scale | step | gradient | finding | Inf/NaN | flushed | mass lost | starts at |\n|---:|---|---|---|---:|---:|---:|---|\n")
			}
			rows++
			from := "-"
			if o := g.Origin; o != nil {
				from = fmt.Sprintf("`%s` (%s, %s)", mdCode(render.ShortStepPath(o.Path)), mdCell(o.Op), mdCell(o.Part))
			}
			fmt.Fprintf(sec, "| %g | %s | `%s` | %s | %d | %d | %s | %s |\n", s.LossScale, appliedWord(s.Applied),
				mdCode(render.ShortStepPath(g.Path)), g.Finding, g.Overflow, g.Underflow, render.FormatPercent(100*g.LostMass), from)
		}
	}
}

func appliedWord(applied bool) string {
	if applied {
		return "applied"
	}
	return "skipped"
}
