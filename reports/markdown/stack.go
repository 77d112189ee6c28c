package markdown

import (
	"fmt"
	"strings"

	"github.com/tfscan/tfscan/reports"
)

// writeStackMarkdown is the Markdown summary's view of a target's stack:
// the lower-precision groups and the stack's errors, briefly.
func writeStackMarkdown(b *strings.Builder, t *reports.Target) {
	if len(t.LowerPrecision) == 0 && len(t.Findings) == 0 {
		return
	}
	assumed := ""
	if t.Stack != nil && t.Stack.PrecisionMode != "" {
		assumed = " under `" + mdCode(t.Stack.PrecisionMode) + "`"
	}
	fmt.Fprintf(b, "\n**%s** — stack%s: %d node(s) in lower precision\n\n", mdCell(t.Target), assumed, t.Coverage.LowerPrecisionNodes)
	for _, l := range t.LowerPrecision[:min(len(t.LowerPrecision), markdownTopUncovered)] {
		fmt.Fprintf(b, "- `%s` (%s): %d node(s) %s\n", mdCode(l.Op), mdCell(strings.Join(l.DTypes, ", ")), l.Count, mdLine(l.How))
	}
	errs := 0
	for _, f := range t.Findings {
		if f.Severity == "error" {
			errs++
		}
	}
	if errs > 0 {
		fmt.Fprintf(b, "- %d node(s) the stack's compiler rejects (%s)\n", errs, reports.ReasonPrecisionModeError)
	}
}
