package table

import (
	"io"
	"strconv"

	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/reports/internal/render"
)

// WriteExplainTable writes the human view: a header, then one block per
// explanation.
func WriteExplainTable(w io.Writer, r *reports.ExplainReport) error {
	p := &printer{w: w}
	p.printf("tfscan explain: %s (%d lines) against %s on %s\n", r.Log.Path, r.Log.Lines, r.Model, r.Target)
	p.printf("%s\n", render.ExplainSummaryLine(r))
	for i, e := range r.Explanations {
		p.printf("\n%d. line %d: %s%s\n", i+1, e.Line, e.MessageKind, countSuffix(e.Count))
		p.printf("   message:  %s\n", clipText(e.Message, 200))
		p.printf("   node:     %s\n", render.ExplainNodeLine(e))
		if pred := render.PredictionLine(e, r.Target); pred != "" {
			p.printf("   tfscan:   %s\n", pred)
		}
		p.printf("   cause:    %s\n", e.Cause)
		for j, f := range e.Fixes {
			label := "   fix:      "
			if j > 0 {
				label = "             "
			}
			p.printf("%s%s\n", label, render.FixLine(f))
		}
	}
	if len(r.Explanations) == 0 {
		p.printf("\nno TensorFlow, tf_adapter or Graph Engine message about a node, op, kernel or device in this log\n")
	}
	return p.err
}

func countSuffix(n int) string {
	if n > 1 {
		return " (" + strconv.Itoa(n) + " times)"
	}
	return ""
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "..."
}
