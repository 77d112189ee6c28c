package table

import (
	"fmt"
	"strings"

	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/reports/internal/render"
)

// writeRewriteTable is the terminal view of a rewrite. A rule is a line
// that starts with its name, so that a narrow terminal cuts the figures
// after it rather than the name --rules takes.
func writeRewriteTable(p *printer, t *reports.Target) {
	rw := t.Rewrite
	p.section(fmt.Sprintf("Rewrite for %s → %s", t.Target, rw.Output))
	p.grid([]column{{head: ""}, {head: "before", right: true}, {head: "after", right: true}}, render.RewriteRows(rw))
	if len(rw.Rules) == 0 {
		p.line("no rule applied: the model is written as it was")
	}
	for _, r := range render.RewriteRuleRows(rw) {
		nodes := strings.TrimSpace(r[2] + " " + r[1])
		p.line("rule %s: %s, %s; %s node(s), %s checked", r[0], r[3], r[5], nodes, r[4])
	}
	for _, n := range render.RewriteNotes(rw) {
		p.line("%s", n)
	}
	for _, s := range rw.Skipped[:min(len(rw.Skipped), tableRewriteSkipped)] {
		p.line("not applied: %s on %d %s node(s): %s (%s)", s.Rule, s.Nodes, s.Op, s.Reason, s.Example)
	}
	if n := len(rw.Skipped) - tableRewriteSkipped; n > 0 {
		p.line("… and %d more not applied (JSON)", n)
	}
}
