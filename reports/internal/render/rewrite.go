package render

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tfscan/tfscan/reports"
)

// RewriteRows is the before → after table of a rewrite.
func RewriteRows(rw *reports.Rewrite) [][]string {
	b, a := rw.Before, rw.After
	row := func(what string, before, after string) []string { return []string{what, before, after} }
	itoa := strconv.Itoa
	rows := [][]string{
		row("coverage", fmt.Sprintf("%s (%d/%d)", FormatPercent(b.CoveragePercent), b.Covered, b.Nodes), fmt.Sprintf("%s (%d/%d)", FormatPercent(a.CoveragePercent), a.Covered, a.Nodes)),
		row("fallback nodes (no kernel, on CPU)", itoa(b.FallbackNodes), itoa(a.FallbackNodes)),
		row("nodes on CPU (pinned)", fmt.Sprintf("%d (%d)", b.CPUNodes, b.PinnedCPUNodes), fmt.Sprintf("%d (%d)", a.CPUNodes, a.PinnedCPUNodes)),
		row("partitions", itoa(b.Partitions), itoa(a.Partitions)),
		row("transfers", itoa(b.Transfers), itoa(a.Transfers)),
		row("transfer bytes", FormatBytes(b.TransferBytes), FormatBytes(a.TransferBytes)),
	}
	if b.UnplaceableNodes > 0 || a.UnplaceableNodes > 0 {
		rows = append(rows[:2:2], append([][]string{row("unplaceable nodes (no kernel on the target or the CPU)", itoa(b.UnplaceableNodes), itoa(a.UnplaceableNodes))}, rows[2:]...)...)
	}
	return rows
}

// RewriteRuleRows lists the rules applied.
func RewriteRuleRows(rw *reports.Rewrite) [][]string {
	var rows [][]string
	for _, r := range rw.Rules {
		name := r.Rule
		if len(r.Chained) > 0 {
			name += "+" + strings.Join(r.Chained, "+")
		}
		errs := "bit-identical"
		if r.MaxAbsError != 0 || r.Exactness != "exact" {
			errs = fmt.Sprintf("max abs %s, rel %s", FormatErr(r.MaxAbsError), FormatErr(r.MaxRelError))
		}
		rows = append(rows, []string{name, strings.Join(r.Ops, ","), strconv.Itoa(r.Nodes), r.Exactness, strconv.Itoa(r.Checks), errs})
	}
	return rows
}

// rewriteNote is the line under the table: pins that keep rewritten
// nodes on CPU, and nodes the proof did not run.
func RewriteNotes(rw *reports.Rewrite) []string {
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
			state = fmt.Sprintf("within bounds (max abs %s, max rel %s)", FormatErr(run.MaxAbsError), FormatErr(run.MaxRelError))
		}
		notes = append(notes, fmt.Sprintf("proof: %s, %d output(s): %s", state, run.Outputs, run.Name))
	}
	return notes
}
