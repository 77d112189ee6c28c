package reports

import (
	"fmt"
	"strconv"
	"strings"
)

// tableTopStackErrors bounds the precision-mode errors the terminal shows.
const tableTopStackErrors = 5

// writeStackTable shows what a target's stack was assumed to do and what
// follows from it: nodes computed in a narrower type, and nodes its
// compiler rejects.
func writeStackTable(p *printer, t *Target) {
	if t.Stack == nil && len(t.LowerPrecision) == 0 && len(t.Findings) == 0 {
		return
	}
	p.section(fmt.Sprintf("Stack on %s", t.Target))
	if s := t.Stack; s != nil {
		p.printf("assumed: %s\n", s.Assumed)
	}
	if len(t.LowerPrecision) > 0 {
		var rows [][]string
		for _, l := range t.LowerPrecision[:min(len(t.LowerPrecision), tableTopUncovered)] {
			rows = append(rows, []string{l.Op, strings.Join(l.DTypes, ","), l.How, strconv.Itoa(l.Count), l.Nodes[0]})
		}
		p.printf("warning: %d node(s) run on %s in lower precision (covered, not a fallback):\n", t.Coverage.LowerPrecisionNodes, t.Target)
		p.table([]string{"op", "dtypes", "runs as", "nodes", "example"}, rows)
		if n := len(t.LowerPrecision) - tableTopUncovered; n > 0 {
			p.printf("... and %d more group(s)\n", n)
		}
	}
	errs := 0
	for _, f := range t.Findings {
		if f.Severity != "error" {
			continue
		}
		if errs < tableTopStackErrors {
			p.printf("error: %s\n", f.Message)
		}
		errs++
	}
	if errs > tableTopStackErrors {
		p.printf("... and %d more error(s) in the JSON report\n", errs-tableTopStackErrors)
	}
}

// writeStackMarkdown is writeStackTable for the Markdown summary: the
// lower-precision groups and the stack's errors, briefly.
func writeStackMarkdown(b *strings.Builder, t *Target) {
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
		fmt.Fprintf(b, "- %d node(s) the stack's compiler rejects (%s)\n", errs, ReasonPrecisionModeError)
	}
}
