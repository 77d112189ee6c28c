package reports

import (
	"fmt"
	"strconv"
	"strings"
)

// Rewrite is what `tfscan rewrite` did to a model for one target: the
// rules it applied, the figures before and after, and the proof.
type Rewrite struct {
	// Output is the path the rewritten model was written to.
	Output string `json:"output"`
	// Rules are the rules applied (one entry per rule, or per rule with
	// the rules chained onto its replacement), in rule order.
	Rules []RewriteRule `json:"rules"`
	// UnpinnedNodes counts the device fields dropped (--clear-devices).
	UnpinnedNodes int            `json:"unpinned_nodes"`
	Before        RewriteFigures `json:"before"`
	After         RewriteFigures `json:"after"`
	Proof         RewriteProof   `json:"proof"`
	// Skipped groups the nodes a rule could have rewritten but did not,
	// by rule, op and reason.
	Skipped []RewriteSkip `json:"skipped"`
	// MetaGraphs counts the meta graphs rewritten besides the one the
	// figures are about (a SavedModel with several tag sets).
	OtherMetaGraphs int `json:"other_meta_graphs,omitempty"`
}

// RewriteRule is one rule applied.
type RewriteRule struct {
	Rule string `json:"rule"`
	// Chained are rules applied to nodes of this rule's replacement that
	// the target did not cover either.
	Chained []string `json:"chained,omitempty"`
	Kind    string   `json:"kind"`
	// Ops are the ops rewritten; Nodes how many nodes; Paths their paths.
	Ops   []string `json:"ops"`
	Nodes int      `json:"nodes"`
	Paths []string `json:"paths"`
	// Exactness is "exact" (bit-identical in the op's dtype) or
	// "tolerance"; Claim says what is proven and Semantics cites
	// TensorFlow's source.
	Exactness string `json:"exactness"`
	Claim     string `json:"claim"`
	Semantics string `json:"semantics"`
	// Checks counts the node executions the proof compared; MaxAbsError
	// and MaxRelError are the largest differences seen (0 for exact).
	Checks      int     `json:"checks"`
	MaxAbsError float64 `json:"max_abs_error"`
	MaxRelError float64 `json:"max_rel_error"`
}

// RewriteFigures are one side of before → after on the target, over the
// counted nodes (the step by default).
type RewriteFigures struct {
	Nodes int `json:"nodes"`
	// Covered nodes have a kernel on the target; CoveragePercent is
	// Covered over Nodes.
	Covered         int     `json:"covered"`
	CoveragePercent float64 `json:"coverage_percent"`
	// FallbackNodes are placed on CPU for want of a target kernel;
	// CPUNodes are every node placed on CPU, PinnedCPUNodes those of them
	// a device field pins there.
	FallbackNodes int `json:"fallback_nodes"`
	// UnplaceableNodes have a kernel neither on the target nor on the
	// CPU: TensorFlow refuses to place the graph while there are any.
	UnplaceableNodes int   `json:"unplaceable_nodes"`
	CPUNodes         int   `json:"cpu_nodes"`
	PinnedCPUNodes   int   `json:"pinned_cpu_nodes"`
	Partitions       int   `json:"partitions"`
	Transfers        int   `json:"transfers"`
	TransferBytes    int64 `json:"transfer_bytes"`
}

// RewriteProof is what the runs of the original and the rewritten model
// showed.
type RewriteProof struct {
	Runs []RewriteRun `json:"runs"`
	// NotExercised are rewritten nodes no run executed.
	NotExercised []string `json:"not_exercised,omitempty"`
}

// RewriteRun is one run of both models on one set of inputs.
type RewriteRun struct {
	Name      string `json:"name"`
	Outputs   int    `json:"outputs"`
	Identical bool   `json:"identical"`
	// MaxAbsError and MaxRelError are the largest output differences.
	MaxAbsError float64 `json:"max_abs_error"`
	MaxRelError float64 `json:"max_rel_error"`
}

// RewriteSkip is a group of nodes a rule left alone.
type RewriteSkip struct {
	Rule   string `json:"rule"`
	Op     string `json:"op,omitempty"`
	Reason string `json:"reason"`
	Nodes  int    `json:"nodes"`
	// Example is one node's path.
	Example string `json:"example,omitempty"`
}

// rewriteRows is the before → after table of a rewrite.
func rewriteRows(rw *Rewrite) [][]string {
	b, a := rw.Before, rw.After
	row := func(what string, before, after string) []string { return []string{what, before, after} }
	itoa := strconv.Itoa
	rows := [][]string{
		row("coverage", fmt.Sprintf("%s (%d/%d)", formatPercent(b.CoveragePercent), b.Covered, b.Nodes), fmt.Sprintf("%s (%d/%d)", formatPercent(a.CoveragePercent), a.Covered, a.Nodes)),
		row("fallback nodes (no kernel, on CPU)", itoa(b.FallbackNodes), itoa(a.FallbackNodes)),
		row("nodes on CPU (pinned)", fmt.Sprintf("%d (%d)", b.CPUNodes, b.PinnedCPUNodes), fmt.Sprintf("%d (%d)", a.CPUNodes, a.PinnedCPUNodes)),
		row("partitions", itoa(b.Partitions), itoa(a.Partitions)),
		row("transfers", itoa(b.Transfers), itoa(a.Transfers)),
		row("transfer bytes", formatBytes(b.TransferBytes), formatBytes(a.TransferBytes)),
	}
	if b.UnplaceableNodes > 0 || a.UnplaceableNodes > 0 {
		rows = append(rows[:2:2], append([][]string{row("unplaceable nodes (no kernel on the target or the CPU)", itoa(b.UnplaceableNodes), itoa(a.UnplaceableNodes))}, rows[2:]...)...)
	}
	return rows
}

// rewriteRuleRows lists the rules applied.
func rewriteRuleRows(rw *Rewrite) [][]string {
	var rows [][]string
	for _, r := range rw.Rules {
		name := r.Rule
		if len(r.Chained) > 0 {
			name += "+" + strings.Join(r.Chained, "+")
		}
		errs := "bit-identical"
		if r.MaxAbsError != 0 || r.Exactness != "exact" {
			errs = fmt.Sprintf("max abs %s, rel %s", formatErr(r.MaxAbsError), formatErr(r.MaxRelError))
		}
		rows = append(rows, []string{name, strings.Join(r.Ops, ","), strconv.Itoa(r.Nodes), r.Exactness, strconv.Itoa(r.Checks), errs})
	}
	return rows
}

// rewriteNote is the line under the table: pins that keep rewritten
// nodes on CPU, and nodes the proof did not run.
func rewriteNotes(rw *Rewrite) []string {
	var notes []string
	if rw.UnpinnedNodes > 0 {
		notes = append(notes, fmt.Sprintf("--clear-devices dropped %d device pin(s), as an import with clear_devices=True does", rw.UnpinnedNodes))
	} else if rw.After.PinnedCPUNodes > rw.Before.PinnedCPUNodes {
		notes = append(notes, fmt.Sprintf("%d more node(s) on CPU are held there by their device field (the rewritten nodes keep the pins of the nodes they replace); --clear-devices drops the pins", rw.After.PinnedCPUNodes-rw.Before.PinnedCPUNodes))
	}
	if b, a := rw.Before, rw.After; b.UnplaceableNodes > a.UnplaceableNodes && a.TransferBytes > b.TransferBytes {
		notes = append(notes, fmt.Sprintf("TensorFlow cannot place the original at all (%d node(s) have no kernel on the target or the CPU); the rewritten model places, at the price of more transfer bytes", b.UnplaceableNodes))
	}
	if n := len(rw.Proof.NotExercised); n > 0 {
		notes = append(notes, fmt.Sprintf("%d rewritten node(s) did not run in the proof (%s): their exactness is argued from TensorFlow's source, not measured here", n, rw.Proof.NotExercised[0]))
	}
	if len(rw.Proof.Runs) == 0 && rw.UnpinnedNodes > 0 && len(rw.Rules) == 1 {
		notes = append(notes, "proof: only device fields changed, which no kernel reads: nothing to run")
	}
	for _, run := range rw.Proof.Runs {
		state := "bit-identical"
		if !run.Identical {
			state = fmt.Sprintf("within bounds (max abs %s, max rel %s)", formatErr(run.MaxAbsError), formatErr(run.MaxRelError))
		}
		notes = append(notes, fmt.Sprintf("proof: %s, %d output(s): %s", state, run.Outputs, run.Name))
	}
	return notes
}

// writeRewriteTable is the terminal view of a rewrite. A rule is a line
// that starts with its name, so that a narrow terminal cuts the figures
// after it rather than the name --rules takes.
func writeRewriteTable(p *printer, t *Target) {
	rw := t.Rewrite
	p.section(fmt.Sprintf("Rewrite for %s → %s", t.Target, rw.Output))
	p.grid([]column{{head: ""}, {head: "before", right: true}, {head: "after", right: true}}, rewriteRows(rw))
	if len(rw.Rules) == 0 {
		p.line("no rule applied: the model is written as it was")
	}
	for _, r := range rewriteRuleRows(rw) {
		nodes := strings.TrimSpace(r[2] + " " + r[1])
		p.line("rule %s: %s, %s; %s node(s), %s checked", r[0], r[3], r[5], nodes, r[4])
	}
	for _, n := range rewriteNotes(rw) {
		p.line("%s", n)
	}
	for _, s := range rw.Skipped[:min(len(rw.Skipped), tableRewriteSkipped)] {
		p.line("not applied: %s on %d %s node(s): %s (%s)", s.Rule, s.Nodes, s.Op, s.Reason, s.Example)
	}
	if n := len(rw.Skipped) - tableRewriteSkipped; n > 0 {
		p.line("… and %d more not applied (JSON)", n)
	}
}

// writeRewriteMarkdown is the Markdown view of a rewrite.
func writeRewriteMarkdown(b *strings.Builder, t *Target) {
	rw := t.Rewrite
	fmt.Fprintf(b, "\n**%s** — rewrite → `%s`\n\n| | before | after |\n|---|---:|---:|\n", mdCell(t.Target), mdCode(rw.Output))
	for _, r := range rewriteRows(rw) {
		fmt.Fprintf(b, "| %s | %s | %s |\n", mdCell(r[0]), mdCell(r[1]), mdCell(r[2]))
	}
	if len(rw.Rules) > 0 {
		b.WriteString("\n| rule | ops | nodes | exactness | checks | error seen |\n|---|---|---:|---|---:|---|\n")
		for _, r := range rewriteRuleRows(rw) {
			fmt.Fprintf(b, "| `%s` | %s | %s | %s | %s | %s |\n", mdCode(r[0]), mdCell(r[1]), r[2], r[3], r[4], mdCell(r[5]))
		}
	}
	for _, n := range rewriteNotes(rw) {
		fmt.Fprintf(b, "\n%s\n", mdLine(n))
	}
}
