package table

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tfscan/tfscan/reports"
)

// stackWarnings are the lines the terminal view gives a target's stack:
// the nodes its precision mode computes in a narrower type (covered, not
// fallbacks) and the nodes its compiler rejects, one line each per target
// (every error with -v).
func stackWarnings(m *reports.Model, verbose bool) []string {
	var out []string
	for _, t := range m.Targets {
		mode := ""
		if s := t.Stack; s != nil && s.PrecisionMode != "" {
			mode = " under precision_mode " + s.PrecisionMode
		}
		if n := t.Coverage.LowerPrecisionNodes; n > 0 {
			var ops []string
			for _, l := range t.LowerPrecision {
				ops = append(ops, fmt.Sprintf("%d %s", l.Count, l.Op))
			}
			out = append(out, fmt.Sprintf("%s: %d node(s) run in lower precision%s, covered, not fallbacks (%s)", t.Target, n, mode, strings.Join(ops, ", ")))
		}
		var errs []string
		for _, f := range t.Findings {
			if f.Severity == "error" {
				errs = append(errs, f.Message)
			}
		}
		switch {
		case len(errs) == 0:
		case verbose:
			for _, e := range errs {
				out = append(out, fmt.Sprintf("%s: error: %s", t.Target, e))
			}
		default:
			out = append(out, fmt.Sprintf("%s: %d node(s) the compiler rejects%s, e.g. %s", t.Target, len(errs), mode, errs[0]))
		}
	}
	return out
}

// writeStackTable is the -v view of a target's stack: the settings assumed
// and every lower-precision group.
func writeStackTable(p *printer, t *reports.Target) {
	if t.Stack == nil && len(t.LowerPrecision) == 0 {
		return
	}
	p.section(fmt.Sprintf("Stack on %s", t.Target))
	if s := t.Stack; s != nil {
		p.line("assumed: %s", s.Assumed)
	}
	if len(t.LowerPrecision) > 0 {
		var rows [][]string
		for _, l := range t.LowerPrecision {
			rows = append(rows, []string{l.Op, strings.Join(l.DTypes, ","), l.How, strconv.Itoa(l.Count), first(l.Nodes)})
		}
		p.grid([]column{{head: "op"}, {head: "dtypes"}, {head: "runs as"}, {head: "nodes", right: true}, {head: "example", tail: true}}, rows)
	}
}
