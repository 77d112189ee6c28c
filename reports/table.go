package reports

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// Limits on the terminal table; the JSON and HTML reports carry everything.
const (
	tableTopUncovered = 10
	tableTopIslands   = 5
	tableTopWishes    = 5
	tableMatrixRows   = 40
)

// WriteTable writes the human summary for a terminal: one row per model and
// target, the op × target matrix when several targets were checked, the most
// frequent uncovered groups, the placement summary, the largest fallback
// islands and the kernel wishlist, then findings and the gate.
func WriteTable(w io.Writer, r *Report) error {
	r.Normalize()
	p := &printer{w: w}
	p.printf("tfscan %s: %d model(s)%s\n\n", r.Tool.Version, len(r.Models), errorsNote(r))
	if len(r.Models) > 0 || len(r.Errors) == 0 {
		p.section("Summary")
		p.table([]string{"model", "target", "nodes", "covered", "coverage", "fallback", "partitions", "transfer bytes"}, summaryRows(r))
	}
	if len(r.Errors) > 0 {
		p.section("Not scanned")
		var rows [][]string
		for _, e := range r.Errors {
			rows = append(rows, []string{e.Path, e.Class, e.Message})
		}
		p.table([]string{"model", "error", "message"}, rows)
	}
	for _, m := range r.Models {
		writeModelTables(p, m)
	}
	if len(r.Models) == 0 && len(r.Errors) == 0 {
		p.printf("no models found\n")
	}
	if g := r.Gate; g != nil {
		p.section("Gate")
		if g.Pass {
			p.printf("PASS%s\n", gateScope(r))
		} else {
			p.printf("FAIL: %d failure(s)%s\n", len(g.Failures), gateScope(r))
			var rows [][]string
			for _, f := range g.Failures {
				rows = append(rows, []string{f.Model, f.Target, f.Rule, f.Message})
			}
			p.table([]string{"model", "target", "rule", "message"}, rows)
		}
		for _, wn := range g.Warnings {
			p.printf("warning: %s\n", wn)
		}
	}
	return p.err
}

// errorsNote is the headline's mention of models that could not be scanned.
func errorsNote(r *Report) string {
	if len(r.Errors) == 0 {
		return ""
	}
	return fmt.Sprintf(", %d could not be scanned", len(r.Errors))
}

// gateScope qualifies a passed gate when some models could not be scanned:
// the gate saw only the others.
func gateScope(r *Report) string {
	if len(r.Errors) == 0 {
		return ""
	}
	return fmt.Sprintf(" on the %d model(s) scanned; %d could not be scanned", len(r.Models), len(r.Errors))
}

// tableTopWarnings bounds the placement warnings the terminal shows; a
// training graph can log one per colocation group.
const tableTopWarnings = 5

func summaryRows(r *Report) [][]string {
	var rows [][]string
	for _, m := range r.Models {
		for _, t := range m.Targets {
			parts, bytes := "-", "-"
			if t.Placement != nil {
				parts = strconv.Itoa(t.Placement.Partitions)
				bytes = formatBytes(t.Placement.TransferBytes)
			}
			total, covered := t.CountedNodes()
			rows = append(rows, []string{m.Path, t.Target, strconv.Itoa(total), strconv.Itoa(covered),
				formatPercent(t.CoveragePercent()), strconv.Itoa(t.FallbackNodes()), parts, bytes})
		}
	}
	return rows
}

// tableAssumedOutputs bounds the assumed outputs the terminal lists.
const tableAssumedOutputs = 10

func writeModelTables(p *printer, m *Model) {
	p.printf("\n== %s (%s, %s)\n", m.Path, m.Format, m.File)
	if n := len(m.AssumedOutputs); n > 0 {
		more := ""
		if n > tableAssumedOutputs {
			more = fmt.Sprintf(" ... and %d more in the JSON report", n-tableAssumedOutputs)
		}
		p.printf("assumed outputs (no signatures; as TensorFlow's summarize_graph; --fetch overrides): %s%s\n",
			strings.Join(m.AssumedOutputs[:min(n, tableAssumedOutputs)], ", "), more)
	}
	if len(m.Targets) > 1 {
		header, rows, more := opMatrix(m, tableMatrixRows)
		if len(rows) > 0 {
			p.section("Op × target (uncovered ops)")
			p.table(header, rows)
			if more > 0 {
				p.printf("... and %d more op(s); see the JSON or HTML report\n", more)
			}
		}
	}
	for _, t := range m.Targets {
		if len(t.Uncovered) > 0 {
			p.section(fmt.Sprintf("Top uncovered on %s", t.Target))
			var rows [][]string
			for _, u := range t.Uncovered[:min(len(t.Uncovered), tableTopUncovered)] {
				example := ""
				if len(u.Nodes) > 0 {
					example = u.Nodes[0]
				}
				note := u.Hint
				if len(u.Supported) > 0 {
					note = strings.TrimSpace("supported: " + strings.Join(u.Supported, ",") + " " + note)
				}
				rows = append(rows, []string{u.Op, strings.Join(u.DTypes, ","), u.Reason, strconv.Itoa(u.Count), example, note})
			}
			p.table([]string{"op", "dtypes", "reason", "nodes", "example", "note"}, rows)
			if n := len(t.Uncovered) - tableTopUncovered; n > 0 {
				p.printf("... and %d more group(s)\n", n)
			}
		}
		if pl := t.Placement; pl != nil {
			p.section(fmt.Sprintf("Placement on %s", t.Target))
			soft := "on"
			if !pl.SoftPlacement {
				soft = "off"
			}
			p.table([]string{"soft placement", "partitions", "transfers", "bytes", "per iteration", "io transfers", "io bytes"},
				[][]string{{soft, strconv.Itoa(pl.Partitions), strconv.Itoa(pl.Transfers), formatBytes(pl.TransferBytes),
					strconv.Itoa(pl.TransfersPerIteration), strconv.Itoa(pl.IOTransfers), formatBytes(pl.IOBytes)}})
			if len(pl.AssumedDims) > 0 {
				p.printf("assumed dims: %s\n", strings.Join(pl.AssumedDims, ", "))
			}
			if pl.UnknownSizeTransfers > 0 {
				p.printf("%d transfer(s) of unknown size are not in the byte count\n", pl.UnknownSizeTransfers)
			}
			if pl.Error != "" {
				p.printf("%s\n", placementErrorLine(pl))
			}
			if pl.PinnedNodes > 0 {
				p.printf("device pins: %d node(s) request a device in their device field (%s)\n", pl.PinnedNodes, pinList(pl.PinnedDevices))
			}
			if pl.ClearedDevices > 0 {
				p.printf("--clear-devices dropped %d top-level device field(s), as an import with clear_devices=True does\n", pl.ClearedDevices)
			}
			for _, w := range pl.Warnings[:min(len(pl.Warnings), tableTopWarnings)] {
				p.printf("placement warning: %s\n", w)
			}
			if n := len(pl.Warnings) - tableTopWarnings; n > 0 {
				p.printf("... and %d more placement warning(s) in the JSON report\n", n)
			}
			if len(pl.AMP) > 0 {
				missing := 0
				for _, a := range pl.AMP {
					if !a.Covered {
						missing++
					}
				}
				p.printf("auto mixed precision: %d node(s) in half precision, %d without a half kernel here\n", len(pl.AMP), missing)
			}
			if c := pl.Comparison; c != nil {
				p.printf("placement log: %d of %d matched nodes agree\n", c.Agreed, c.Matched)
			}
		}
		if len(t.Islands) > 0 {
			p.section(fmt.Sprintf("Largest fallback islands on %s", t.Target))
			var rows [][]string
			for _, is := range t.Islands[:min(len(t.Islands), tableTopIslands)] {
				first := ""
				if len(is.Nodes) > 0 {
					first = is.Nodes[0]
				}
				rows = append(rows, []string{strconv.Itoa(len(is.Nodes)), formatBytes(is.Bytes), is.Cause, first})
			}
			p.table([]string{"nodes", "bytes", "cause", "first node"}, rows)
		}
		if len(t.Wishlist) > 0 {
			p.section(fmt.Sprintf("Kernel wishlist for %s", t.Target))
			var rows [][]string
			for _, wi := range t.Wishlist[:min(len(t.Wishlist), tableTopWishes)] {
				rows = append(rows, []string{wi.Op, wi.DType, strconv.Itoa(wi.TransfersRemoved), formatBytes(wi.BytesRemoved)})
			}
			p.table([]string{"op", "dtype", "transfers removed", "bytes removed"}, rows)
		}
		if t.Parity != nil {
			writeParityTable(p, t)
		}
	}
	if len(m.Findings) > 0 {
		p.section("Security findings")
		var rows [][]string
		for _, f := range m.Findings {
			rows = append(rows, []string{f.Kind, f.Op, f.Path, f.Message})
		}
		p.table([]string{"kind", "op", "node", "message"}, rows)
	}
}

// opMatrix builds the op × target matrix of one model: one row per op that
// is uncovered on at least one target, one column per target; a cell holds
// the reason(s) or "ok". It returns at most limit rows and how many it cut.
func opMatrix(m *Model, limit int) (header []string, rows [][]string, more int) {
	header = []string{"op"}
	cells := map[string]map[string][]string{} // op → target → reasons
	for _, t := range m.Targets {
		header = append(header, t.Target)
		for _, u := range t.Uncovered {
			if cells[u.Op] == nil {
				cells[u.Op] = map[string][]string{}
			}
			if !slices.Contains(cells[u.Op][t.Target], u.Reason) {
				cells[u.Op][t.Target] = append(cells[u.Op][t.Target], u.Reason)
			}
		}
	}
	ops := make([]string, 0, len(cells))
	for op := range cells {
		ops = append(ops, op)
	}
	slices.Sort(ops)
	for _, op := range ops {
		row := []string{op}
		for _, t := range m.Targets {
			rs := cells[op][t.Target]
			if len(rs) == 0 {
				row = append(row, "ok")
				continue
			}
			slices.Sort(rs)
			row = append(row, strings.Join(rs, ","))
		}
		rows = append(rows, row)
	}
	if len(rows) > limit {
		more = len(rows) - limit
		rows = rows[:limit]
	}
	return header, rows, more
}

// printer writes text and tables and keeps the first error.
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

func (p *printer) section(title string) { p.printf("\n%s\n", title) }

func (p *printer) table(header []string, rows [][]string) {
	if p.err != nil {
		return
	}
	t := tablewriter.NewTable(p.w,
		tablewriter.WithSymbols(tw.NewSymbols(tw.StyleASCII)),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
	)
	t.Header(header)
	for _, r := range rows {
		if err := t.Append(r); err != nil {
			p.err = err
			return
		}
	}
	p.err = t.Render()
}

func formatPercent(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) + "%" }

// formatBytes renders a byte count in binary units, exactly below 1 KiB.
func formatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// writeParityTable shows one target's numeric parity: each output against
// the float64 reference (and the golden outputs when given), and where the
// error first exceeds the tolerance.
func writeParityTable(p *printer, t *Target) {
	par := t.Parity
	first := "none"
	if par.FirstDivergence != nil {
		first = *par.FirstDivergence
	}
	p.section(fmt.Sprintf("Parity on %s (profile %s, atol %g, rtol %g); first divergence: %s", t.Target, par.Profile, par.ATol, par.RTol, first))
	var rows [][]string
	add := func(kind string, outs []ParityOutput) {
		for _, o := range outs {
			rows = append(rows, []string{kind, o.Name, passFail(o.Pass), formatErr(o.MaxAbsError), formatErr(o.MaxRelError),
				strconv.FormatUint(o.MaxULP, 10), strconv.Itoa(o.Mismatches)})
		}
	}
	add("reference", par.Outputs)
	add("golden", par.Golden)
	p.table([]string{"against", "output", "result", "max abs", "max rel", "max ulp", "mismatches"}, rows)
}

func passFail(ok bool) string {
	if ok {
		return "pass"
	}
	return "FAIL"
}

func formatErr(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }
