package markdown

import (
	"fmt"
	"strings"

	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/reports/internal/render"
)

// writeTrainingMarkdown writes a training step's parts on target t: nodes,
// coverage and what leaves the device, part by part.
func writeTrainingMarkdown(sec *strings.Builder, t *reports.Target) {
	tr := t.Training
	if tr == nil {
		return
	}
	vs := ""
	if t.Delta != nil {
		vs = " new vs " + mdCell(t.Delta.Source) + " |"
	}
	fmt.Fprintf(sec, "\n**%s** — training step by part\n\n| part | nodes | covered | on CPU |%s island bytes/step | ops on CPU |\n|---|---:|---:|---:|%s---:|---|\n",
		mdCell(t.Target), vs, strings.Repeat("---:|", render.BoolInt(vs != "")))
	for _, p := range tr.Parts {
		nw := ""
		if vs != "" {
			nw = fmt.Sprintf(" %d |", p.NewFallbackNodes)
		}
		bytes := "-"
		if p.IslandBytes > 0 {
			bytes = render.FormatBytes(p.IslandBytes)
		}
		fmt.Fprintf(sec, "| %s | %d | %d | %d |%s %s | %s |\n", p.Part, p.Nodes, p.Covered, p.FallbackNodes, nw, bytes,
			mdCell(render.TrainingOpList(p)))
	}
	writeLinesMarkdown(sec, render.CollectiveLines(t))
}

// writeXLAMarkdown writes what becomes of the functions marked for XLA
// compilation on target t.
func writeXLAMarkdown(sec *strings.Builder, t *reports.Target) {
	if lines := render.XLALines(t); len(lines) > 0 {
		fmt.Fprintf(sec, "\n**%s** — functions marked for XLA compilation\n", mdCell(t.Target))
		writeLinesMarkdown(sec, lines)
	}
}

func writeLinesMarkdown(sec *strings.Builder, lines []string) {
	if len(lines) == 0 {
		return
	}
	sec.WriteString("\n")
	for _, l := range lines {
		fmt.Fprintf(sec, "- %s\n", mdLine(l))
	}
}
