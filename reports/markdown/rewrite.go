package markdown

import (
	"fmt"
	"strings"

	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/reports/internal/render"
)

// writeRewriteMarkdown is the Markdown view of a rewrite.
func writeRewriteMarkdown(b *strings.Builder, t *reports.Target) {
	rw := t.Rewrite
	fmt.Fprintf(b, "\n**%s** — rewrite → `%s`\n\n| | before | after |\n|---|---:|---:|\n", mdCell(t.Target), mdCode(rw.Output))
	for _, r := range render.RewriteRows(rw) {
		fmt.Fprintf(b, "| %s | %s | %s |\n", mdCell(r[0]), mdCell(r[1]), mdCell(r[2]))
	}
	if len(rw.Rules) > 0 {
		b.WriteString("\n| rule | ops | nodes | exactness | checks | error seen |\n|---|---|---:|---|---:|---|\n")
		for _, r := range render.RewriteRuleRows(rw) {
			fmt.Fprintf(b, "| `%s` | %s | %s | %s | %s | %s |\n", mdCode(r[0]), mdCell(r[1]), r[2], r[3], r[4], mdCell(r[5]))
		}
	}
	for _, n := range render.RewriteNotes(rw) {
		fmt.Fprintf(b, "\n%s\n", mdLine(n))
	}
}
