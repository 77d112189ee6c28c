// Package table writes the terminal view of a report, of `tfscan inspect`
// and of `tfscan explain`, fitted to a terminal width. It reads only the
// model.
package table

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/reports/internal/render"
)

// TableOptions shape the terminal view.
type TableOptions struct {
	// Width is the terminal's width in columns; every line and cell is cut
	// to it (80 when 0).
	Width int
	// Verbose shows every section of every model in full and cuts nothing.
	Verbose bool
}

// DefaultWidth is the width the table is cut to when stdout is not a
// terminal.
const DefaultWidth = 80

// Limits of the terminal view; the JSON and HTML reports (and -v) carry
// everything.
const (
	tableAttentionOps   = 6  // op rows per model section
	tableTopWarnings    = 1  // placement warnings per target
	tableAssumedOutputs = 10 // assumed outputs listed
	tableRewriteSkipped = 6  // rules not applied, per target (tfscan rewrite)
	// tableLines is what the default view aims to fit in: two screens.
	// Model sections stop where they would go past it (the summary and the
	// gate are always whole); the models left out are named.
	tableLines = 100
)

// WriteTable writes the terminal view at the default width.
func WriteTable(w io.Writer, r *reports.Report) error { return TableWriter(TableOptions{})(w, r) }

// TableWriter returns the terminal view's writer. It answers the migration
// question first: a summary of what changes against the source (new nodes
// on CPU, transfer bytes per step) and coverage, one row per model, then a
// section per model only where something needs attention (new fallbacks,
// or without a source the uncovered ops; warnings; findings; parity
// failures), then the gate. Verbose shows every section of every model.
func TableWriter(o TableOptions) func(io.Writer, *reports.Report) error {
	return func(w io.Writer, r *reports.Report) error {
		r.Normalize()
		width := o.Width
		if width <= 0 {
			width = DefaultWidth
		}
		if o.Verbose {
			width = 0
		}
		p := &printer{w: w, width: width}
		v := render.NewView(r)
		writeHeadline(p, r, v)
		writeSummary(p, r, v, o.Verbose)
		writeNotScanned(p, r, v)
		writeSections(p, r, v, o.Verbose)
		if len(r.Models) == 0 && len(r.Errors) == 0 {
			p.printf("no models found\n")
		}
		writeGate(p, r, v)
		return p.err
	}
}

func writeHeadline(p *printer, r *reports.Report, v *render.View) {
	p.line("tfscan %s: %d model(s)%s", r.Tool.Version, len(r.Models), errorsNote(r))
	if len(r.Models) == 0 {
		return
	}
	if v.Prefix != "" {
		p.printf("%s\n", cutStart("models in "+strings.TrimSuffix(v.Prefix, "/"), p.width))
	}
	p.line("targets: %s", strings.Join(v.Targets, ", "))
	if v.Source != "" {
		p.line("compared with %s, where the models run today (--from)", v.Source)
	} else {
		p.line("no source to compare with (--from none)")
	}
	cleared, models := 0, 0
	for _, m := range r.Models {
		if len(m.Targets) > 0 && m.Targets[0].Placement != nil && m.Targets[0].Placement.ClearedDevices > 0 {
			cleared += m.Targets[0].Placement.ClearedDevices
			models++
		}
	}
	if cleared > 0 {
		in := ""
		if models > 1 {
			in = fmt.Sprintf(" in %d models", models)
		}
		p.line("--clear-devices dropped %d top-level device field(s)%s, as an import with clear_devices=True does", cleared, in)
	}
	if len(v.Phases) > 0 {
		if slices.Equal(v.Phases, []string{reports.PhaseStep}) {
			p.line("figures count step nodes (every call); load and save work apart (--phase all)")
		} else {
			p.line("figures count %s nodes", strings.Join(v.Phases, ", "))
		}
	}
}

// errorsNote is the headline's mention of models that could not be scanned.
func errorsNote(r *reports.Report) string {
	if len(r.Errors) == 0 {
		return ""
	}
	return fmt.Sprintf(", %d could not be scanned", len(r.Errors))
}

// writeSummary prints one row per model: with one target (or -v, one row
// per model and target) the delta, coverage and placement figures; with
// several targets one column per target holding the new nodes on CPU and
// the coverage, so that 40 models stay 40 rows.
func writeSummary(p *printer, r *reports.Report, v *render.View, verbose bool) {
	if len(r.Models) == 0 {
		return
	}
	vs := "vs " + v.Source
	if len(v.Targets) > 1 && !verbose {
		title := "Summary: coverage of step nodes and nodes on CPU per target"
		if v.Source != "" {
			title = "Summary: new nodes on CPU vs " + v.Source + " and coverage of step nodes, per target"
		}
		p.section(title)
		cols := []column{{head: "model", middle: true}}
		for _, t := range v.Targets {
			cols = append(cols, column{head: t, right: true})
		}
		var rows [][]string
		for _, m := range r.Models {
			row := []string{v.Name(m.Path)}
			for _, name := range v.Targets {
				row = append(row, summaryCell(targetOf(m, name)))
			}
			rows = append(rows, row)
		}
		p.grid(cols, rows)
		return
	}
	p.section("Summary")
	// One target: its name is in the headline, not in every row.
	oneTarget := len(v.Targets) == 1 && !verbose
	cols := []column{{head: "model", middle: true}}
	if !oneTarget {
		cols = append(cols, column{head: "target"})
	}
	if v.Source != "" {
		cols = append(cols, column{head: vs})
	}
	cols = append(cols, column{head: "nodes", right: true}, column{head: "coverage", right: true}, column{head: "on CPU", right: true})
	if verbose {
		cols = append(cols, column{head: "partitions", right: true})
	}
	cols = append(cols, column{head: "bytes/step", right: true})
	var rows [][]string
	for _, m := range r.Models {
		for i, t := range m.Targets {
			name := v.Name(m.Path)
			if i > 0 {
				name = ""
			}
			parts, bytes := "-", "-"
			if t.Placement != nil {
				parts = strconv.Itoa(t.Placement.Partitions)
				bytes = render.BytesAtLeast(t.Placement.TransferBytes, t.Placement.TransferBytesPartial())
			}
			total, _ := t.CountedNodes()
			row := []string{name}
			if !oneTarget {
				row = append(row, t.Target)
			}
			if v.Source != "" {
				row = append(row, cmp.Or(render.RefusedIf(t), render.DeltaPhrase(t.Delta)))
			}
			row = append(row, strconv.Itoa(total), render.FormatCoverage(t), strconv.Itoa(t.FallbackNodes()))
			if verbose {
				row = append(row, parts)
			}
			rows = append(rows, append(row, bytes))
		}
	}
	p.grid(cols, rows)
}

// summaryCell is one model on one target in the several-targets summary:
// "+12 97.5%" against a source, "97.5% 3 CPU" without one.
func summaryCell(t *reports.Target) string {
	if t == nil {
		return "-"
	}
	if t.Refused() != "" {
		return render.RefusedPhrase
	}
	pct := render.FormatPercent(t.CoveragePercent())
	if l := t.CoverageLevel(); l != "" {
		pct += " (" + l + ")" // the pack's confidence, when below high
	}
	if d := t.Delta; d != nil {
		return fmt.Sprintf("+%d %s", d.NewFallbackNodes, pct)
	}
	return fmt.Sprintf("%s %d CPU", pct, t.FallbackNodes())
}

func targetOf(m *reports.Model, name string) *reports.Target {
	for _, t := range m.Targets {
		if t.Target == name {
			return t
		}
	}
	return nil
}

func writeNotScanned(p *printer, r *reports.Report, v *render.View) {
	if len(r.Errors) == 0 {
		return
	}
	p.section("Not scanned")
	var rows [][]string
	for _, e := range r.Errors {
		rows = append(rows, []string{v.Name(e.Path), e.Class, e.Message})
	}
	p.grid([]column{{head: "model", middle: true}, {head: "error"}, {head: "message"}}, rows)
}

func writeGate(p *printer, r *reports.Report, v *render.View) {
	g := r.Gate
	if g == nil {
		return
	}
	p.section("Gate")
	if g.Pass {
		p.line("PASS%s", render.GateScope(r))
	} else {
		p.line("FAIL: %d failure(s)%s", len(g.Failures), render.GateScope(r))
		var rows [][]string
		for _, f := range g.Failures {
			rows = append(rows, []string{v.Name(f.Model), f.Target, f.Rule, f.Message})
		}
		p.grid([]column{{head: "model", middle: true}, {head: "target"}, {head: "rule"}, {head: "message"}}, rows)
	}
	for _, wn := range g.Warnings {
		p.line("warning: %s", wn)
	}
}

// opRow is one row of a model's op × target matrix: a group of nodes (new
// fallbacks, or uncovered nodes) and its count per target.
type opRow struct {
	op, dtypes, reason string
	counts             map[string]int
	example            string
	total              int
}

// attentionOps are the groups a model section lists: the new fallbacks
// against the source, or, on targets without a source, the uncovered
// groups of the counted phases.
func attentionOps(m *reports.Model) []*opRow {
	byKey := map[string]*opRow{}
	var rows []*opRow
	add := func(t *reports.Target, op string, dtypes []string, reason string, n int, example string) {
		dt := strings.Join(dtypes, ",")
		k := op + "\x00" + dt + "\x00" + reason
		row := byKey[k]
		if row == nil {
			row = &opRow{op: op, dtypes: dt, reason: reason, counts: map[string]int{}, example: example}
			byKey[k] = row
			rows = append(rows, row)
		}
		row.counts[t.Target] += n
		row.total += n
	}
	for _, t := range m.Targets {
		if d := t.Delta; d != nil {
			for _, o := range d.NewFallbackOps {
				add(t, o.Op, o.DTypes, o.Reason, o.Count, first(o.Nodes))
			}
			continue
		}
		for _, u := range t.Uncovered {
			if t.CountsPhase(u.Phase) {
				add(t, u.Op, u.DTypes, u.Reason, u.Count, first(u.Nodes))
			}
		}
	}
	slices.SortStableFunc(rows, func(a, b *opRow) int {
		return cmp.Or(cmp.Compare(b.total, a.total), cmp.Compare(a.op, b.op), cmp.Compare(a.dtypes, b.dtypes), cmp.Compare(a.reason, b.reason))
	})
	return rows
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// modelWarnings are the lines of a model section that are not about ops:
// the outputs assumed for a model without signatures (the step rests on
// them), the placement error TensorFlow would raise (its first line; whole
// with -v), device pins, placement warnings, half
// kernels AMP lacks, placement-log disagreements, lost fusions and
// security findings. (Gate failures are in the Gate section.)
func modelWarnings(m *reports.Model, verbose bool) []string {
	var out []string
	if n := len(m.AssumedOutputs); n > 0 {
		shown := n
		if !verbose {
			shown = min(n, tableAssumedOutputs)
		}
		more := ""
		if n > shown {
			more = fmt.Sprintf(" … and %d more (-v, JSON)", n-shown)
		}
		out = append(out, fmt.Sprintf("assumed outputs (no signatures, as summarize_graph; --fetch overrides): %s%s",
			strings.Join(m.AssumedOutputs[:shown], ", "), more))
	}
	pins := map[string][]string{} // pin line → targets
	var pinLines []string
	for _, t := range m.Targets {
		if pl := t.Placement; pl != nil {
			if pl.Error != "" {
				line := render.PlacementErrorLine(pl)
				if verbose {
					line, _, _ = strings.Cut(line, ": ")
					line += ": " + pl.Error
				}
				out = append(out, fmt.Sprintf("%s: %s", t.Target, line))
			}
			if pl.PinnedNodes > 0 {
				s := fmt.Sprintf("device pins: %d node(s) request a device in their device field (%s)", pl.PinnedNodes, render.PinList(pl.PinnedDevices))
				if _, ok := pins[s]; !ok {
					pinLines = append(pinLines, s)
				}
				pins[s] = append(pins[s], t.Target)
			}
			n := len(pl.Warnings)
			if !verbose {
				n = min(n, tableTopWarnings)
			}
			for _, w := range pl.Warnings[:n] {
				out = append(out, fmt.Sprintf("%s: placement: %s", t.Target, w))
			}
			if more := len(pl.Warnings) - n; more > 0 {
				out = append(out, fmt.Sprintf("%s: … and %d more placement warning(s) (-v, JSON)", t.Target, more))
			}
			missing := 0
			for _, a := range pl.AMP {
				if !a.Covered {
					missing++
				}
			}
			if missing > 0 {
				out = append(out, fmt.Sprintf("%s: auto mixed precision: %d of %d half-precision node(s) have no half kernel here", t.Target, missing, len(pl.AMP)))
			}
			if c := pl.Comparison; c != nil && c.Agreed < c.Matched {
				out = append(out, fmt.Sprintf("%s: placement log: %d of %d matched nodes agree", t.Target, c.Agreed, c.Matched))
			}
		}
	}
	for _, s := range pinLines {
		if len(pins[s]) < len(m.Targets) {
			s = strings.Join(pins[s], ", ") + ": " + s
		}
		out = append(out, s)
	}
	out = append(out, stackWarnings(m, verbose)...)
	out = append(out, lostFusions(m, verbose)...)
	for _, f := range m.Findings {
		out = append(out, fmt.Sprintf("security: %s %s at %s: %s", f.Kind, f.Op, f.Path, f.Message))
	}
	return out
}

// lostFusions says which remapper fusions of the source each target loses,
// one line per fusion for all the targets that lose it (with -v, one per
// target with the reason).
func lostFusions(m *reports.Model, verbose bool) []string {
	var out []string
	// Without -v: the chains each target loses per fused op, targets
	// that lose as many of one op named together.
	type key struct {
		fused  string
		chains int
	}
	var keys []key
	targets := map[key][]string{}
	for _, t := range m.Targets {
		var ops []string
		chains := map[string]int{}
		for _, f := range t.Fusions {
			if verbose {
				more := ""
				if f.Chains() > 1 {
					more = fmt.Sprintf(", and %d more chain(s) like it", f.Chains()-1)
				}
				out = append(out, fmt.Sprintf("%s: fusion lost: %s (%d nodes%s): %s", t.Target, f.Fused, len(f.Nodes), more, f.Reason))
				continue
			}
			if _, ok := chains[f.Fused]; !ok {
				ops = append(ops, f.Fused)
			}
			chains[f.Fused] += f.Chains()
		}
		for _, op := range ops {
			k := key{op, chains[op]}
			if _, ok := targets[k]; !ok {
				keys = append(keys, k)
			}
			targets[k] = append(targets[k], t.Target)
		}
	}
	for _, k := range keys {
		out = append(out, fmt.Sprintf("%s: %d %s fusion(s) of the source lost", strings.Join(targets[k], ", "), k.chains, k.fused))
	}
	return out
}

// writeSections prints a section per model that needs attention (all
// models with -v) while the view stays within tableLines, leaving room for
// the gate; the models whose section did not fit are named at the end.
// Parity results (tfscan parity) and rewrites (tfscan rewrite) always get a
// section.
func writeSections(p *printer, r *reports.Report, v *render.View, verbose bool) {
	budget := tableLines - p.lines - gateLines(r) - 2
	var skipped []string
	for _, m := range r.Models {
		ops := attentionOps(m)
		warns := modelWarnings(m, verbose)
		ran := slices.ContainsFunc(m.Targets, func(t *reports.Target) bool { return t.Parity != nil || t.Rewrite != nil })
		if !verbose && len(ops) == 0 && len(warns) == 0 && !ran {
			continue
		}
		var buf bytes.Buffer
		sp := &printer{w: &buf, width: p.width}
		sp.printf("\n")
		sp.line("== %s (%s)", v.Name(m.Path), m.Format)
		writeOpMatrix(sp, m, ops, v, verbose)
		writeTargetLines(sp, m, v, verbose)
		for _, w := range warns {
			sp.line("%s", w)
		}
		if verbose {
			writeVerboseTargets(sp, m)
		} else {
			for _, t := range m.Targets {
				if t.Parity != nil {
					writeParityTable(sp, t)
				}
				if t.Rewrite != nil {
					writeRewriteTable(sp, t)
				}
			}
		}
		if !verbose && (len(skipped) > 0 || sp.lines > budget) {
			skipped = append(skipped, v.Name(m.Path))
			continue
		}
		budget -= sp.lines
		p.printf("%s", buf.String())
	}
	if len(skipped) > 0 {
		p.printf("\n")
		p.line("%d more model(s) need attention (-v, or the HTML report): %s", len(skipped), strings.Join(skipped, ", "))
	}
}

// gateLines is how many lines the gate section takes.
func gateLines(r *reports.Report) int {
	g := r.Gate
	if g == nil {
		return 0
	}
	n := 2 + len(g.Warnings)
	if !g.Pass {
		n += 2 + len(g.Failures)
	}
	return n
}

// writeOpMatrix prints the model's new fallbacks (or uncovered ops) as op ×
// target counts, most nodes first.
func writeOpMatrix(p *printer, m *reports.Model, ops []*opRow, v *render.View, verbose bool) {
	if len(ops) == 0 {
		return
	}
	if v.Source != "" {
		p.line("new on CPU vs %s, nodes per target:", v.Source)
	} else {
		p.line("uncovered step nodes per target:")
	}
	cols := []column{{head: "op"}, {head: "dtypes"}, {head: "reason"}}
	for _, t := range m.Targets {
		cols = append(cols, column{head: t.Target, right: true})
	}
	if verbose {
		cols = append(cols, column{head: "example", tail: true})
	}
	n := len(ops)
	if !verbose {
		n = min(n, tableAttentionOps)
	}
	var rows [][]string
	for _, o := range ops[:n] {
		row := []string{o.op, o.dtypes, o.reason}
		for _, t := range m.Targets {
			c := "·"
			if k := o.counts[t.Target]; k > 0 {
				c = strconv.Itoa(k)
			}
			row = append(row, c)
		}
		if verbose {
			row = append(row, o.example)
		}
		rows = append(rows, row)
	}
	p.grid(cols, rows)
	if more := len(ops) - n; more > 0 {
		p.line("… and %d more group(s) (-v, JSON or HTML)", more)
	}
}

// writeTargetLines says per target what stays on CPU and what it costs:
// already on CPU under the source, islands, transfers, the first wish.
func writeTargetLines(p *printer, m *reports.Model, v *render.View, verbose bool) {
	// What is on CPU under the source too, once for the targets it is the
	// same for.
	var already []string
	alreadyOn := map[string][]string{}
	for _, t := range m.Targets {
		if d := t.Delta; d != nil && d.AlreadyOnCPUNodes > 0 {
			s := fmt.Sprintf("%d node(s) on CPU under %s too (%s)", d.AlreadyOnCPUNodes, d.Source, render.ChangedOps(t, reports.ChangeAlreadyOnCPU))
			if _, ok := alreadyOn[s]; !ok {
				already = append(already, s)
			}
			alreadyOn[s] = append(alreadyOn[s], t.Target)
		}
	}
	for _, s := range already {
		if len(alreadyOn[s]) == len(m.Targets) {
			p.line("%s", s)
		} else {
			p.line("%s: %s", strings.Join(alreadyOn[s], ", "), s)
		}
	}
	for _, t := range m.Targets {
		var parts []string
		if d := t.Delta; d != nil && d.BetterOnTargetNodes > 0 {
			parts = append(parts, fmt.Sprintf("runs %d node(s) %s keeps on CPU (%s)", d.BetterOnTargetNodes, d.Source, render.ChangedOps(t, reports.ChangeBetterOnTarget)))
		}
		worse := t.Delta == nil && t.FallbackNodes() > 0 || t.Delta != nil && t.Delta.NewFallbackNodes > 0
		if pl := t.Placement; pl != nil && (verbose || worse && len(t.Islands) > 0) {
			parts = append(parts, fmt.Sprintf("%d island(s) · %d partitions · %s/step", len(t.Islands), pl.Partitions, render.BytesAtLeast(pl.TransferBytes, pl.TransferBytesPartial())))
		}
		if len(t.Wishlist) > 0 && worse {
			w := t.Wishlist[0]
			parts = append(parts, fmt.Sprintf("wish: %s %s −%d transfers", w.Op, w.DType, w.TransfersRemoved))
		}
		if len(parts) > 0 {
			p.line("%s: %s", t.Target, strings.Join(parts, "; "))
		}
	}
	for _, t := range m.Targets {
		if t.Parity == nil {
			continue
		}
		for _, s := range render.ParityTrainingLines(t.Parity.Training) {
			p.line("%s: %s", t.Target, s)
		}
	}
	for _, t := range m.Targets {
		if t.Training == nil {
			continue
		}
		p.line("%s: %s", t.Target, render.TrainingSummary(t))
		for _, s := range render.TrainingLines(t) {
			p.line("%s: %s", t.Target, s)
		}
		for _, s := range render.CollectiveLines(t) {
			p.line("%s: %s", t.Target, s)
		}
	}
	for _, t := range m.Targets {
		for _, s := range render.XLALines(t) {
			p.line("%s: %s", t.Target, s)
		}
	}
	for _, t := range m.Targets {
		if n := t.RewriteRemovesFallback; n != nil && *n > 0 {
			p.line("%s: tfscan rewrite would remove %d fallback node(s) (tfscan rewrite %s --target %s -o OUT)", t.Target, *n, m.Path, t.Target)
		}
	}
}

// writeVerboseTargets prints, with -v, every target's uncovered groups of
// every phase, its placement, every island, the whole wishlist and parity.
func writeVerboseTargets(p *printer, m *reports.Model) {
	for _, t := range m.Targets {
		if len(t.Uncovered) > 0 {
			p.section(fmt.Sprintf("Uncovered on %s (all phases)", t.Target))
			var rows [][]string
			for _, u := range t.Uncovered {
				note := u.Hint
				if len(u.Supported) > 0 {
					note = strings.TrimSpace("supported: " + strings.Join(u.Supported, ",") + " " + note)
				}
				rows = append(rows, []string{u.Phase, u.Op, strings.Join(u.DTypes, ","), u.Reason, strconv.Itoa(u.Count), first(u.Nodes), note})
			}
			p.grid([]column{{head: "phase"}, {head: "op"}, {head: "dtypes"}, {head: "reason"}, {head: "nodes", right: true},
				{head: "example", tail: true}, {head: "note"}}, rows)
		}
		if pl := t.Placement; pl != nil {
			p.section(fmt.Sprintf("Placement on %s", t.Target))
			soft := "on"
			if !pl.SoftPlacement {
				soft = "off"
			}
			p.grid([]column{{head: "soft placement"}, {head: "partitions", right: true}, {head: "transfers", right: true},
				{head: "bytes", right: true}, {head: "per iteration", right: true}, {head: "io transfers", right: true}, {head: "io bytes", right: true}},
				[][]string{{soft, strconv.Itoa(pl.Partitions), strconv.Itoa(pl.Transfers), render.BytesAtLeast(pl.TransferBytes, pl.TransferBytesPartial()),
					strconv.Itoa(pl.TransfersPerIteration), strconv.Itoa(pl.IOTransfers), render.BytesAtLeast(pl.IOBytes, pl.IOBytesPartial())}})
			if len(pl.AssumedDims) > 0 {
				p.line("assumed dims: %s", strings.Join(pl.AssumedDims, ", "))
			}
			if pl.UnknownSizeTransfers > 0 {
				p.line("%d transfer(s) of unknown size are not in the byte count", pl.UnknownSizeTransfers)
			}
			if pl.PinnedNodes > 0 {
				p.line("device pins: %d node(s) request a device in their device field (%s)", pl.PinnedNodes, render.PinList(pl.PinnedDevices))
			}
			if pl.ClearedDevices > 0 {
				p.line("--clear-devices dropped %d top-level device field(s), as an import with clear_devices=True does", pl.ClearedDevices)
			}
			if c := pl.Comparison; c != nil {
				p.line("placement log: %d of %d matched nodes agree", c.Agreed, c.Matched)
			}
		}
		writeStackTable(p, t)
		if len(t.Islands) > 0 {
			p.section(fmt.Sprintf("Fallback islands on %s", t.Target))
			var rows [][]string
			for _, is := range t.Islands {
				rows = append(rows, []string{strconv.Itoa(len(is.Nodes)), render.FormatBytes(is.Bytes), is.Cause, first(is.Nodes)})
			}
			p.grid([]column{{head: "nodes", right: true}, {head: "bytes", right: true}, {head: "cause"}, {head: "first node", tail: true}}, rows)
		}
		if len(t.Wishlist) > 0 {
			p.section(fmt.Sprintf("Kernel wishlist for %s", t.Target))
			var rows [][]string
			for _, wi := range t.Wishlist {
				rows = append(rows, []string{wi.Op, wi.DType, strconv.Itoa(wi.TransfersRemoved), render.FormatBytes(wi.BytesRemoved)})
			}
			p.grid([]column{{head: "op"}, {head: "dtype"}, {head: "transfers removed", right: true}, {head: "bytes removed", right: true}}, rows)
		}
		if t.Parity != nil {
			writeParityTable(p, t)
		}
		if t.Rewrite != nil {
			writeRewriteTable(p, t)
		}
	}
	if total := phaseTotals(m); total != "" {
		p.line("nodes per phase: %s", total)
	}
}

// phaseTotals lists a model's nodes per phase (from its first target).
func phaseTotals(m *reports.Model) string {
	if len(m.Targets) == 0 || len(m.Targets[0].Coverage.ByPhase) == 0 {
		return ""
	}
	var parts []string
	for _, ph := range reports.Phases {
		if c, ok := m.Targets[0].Coverage.ByPhase[ph]; ok {
			parts = append(parts, fmt.Sprintf("%s %d", ph, c.Nodes))
		}
	}
	return strings.Join(parts, ", ")
}

// writeParityTable shows one target's numeric parity: each output against
// the float64 reference (and the golden outputs when given), and where the
// error first exceeds the tolerance.
func writeParityTable(p *printer, t *reports.Target) {
	par := t.Parity
	first := "none"
	if par.FirstDivergence != nil {
		first = *par.FirstDivergence
	}
	p.section(fmt.Sprintf("Parity on %s (profile %s, atol %g, rtol %g); first divergence: %s", t.Target, par.Profile, par.ATol, par.RTol, first))
	var rows [][]string
	add := func(kind string, outs []reports.ParityOutput) {
		for _, o := range outs {
			rows = append(rows, []string{kind, o.Name, render.PassFail(o.Pass), render.FormatErr(o.MaxAbsError), render.FormatErr(o.MaxRelError),
				strconv.FormatUint(o.MaxULP, 10), strconv.Itoa(o.Mismatches)})
		}
	}
	add("reference", par.Outputs)
	add("golden", par.Golden)
	p.grid([]column{{head: "against"}, {head: "output"}, {head: "result"}, {head: "max abs", right: true}, {head: "max rel", right: true},
		{head: "max ulp", right: true}, {head: "mismatches", right: true}}, rows)
}
