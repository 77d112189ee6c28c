package render

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tfscan/tfscan/reports"
)

func BoolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// FormatCoverage is the coverage percentage with the confidence of a pack
// that is not high next to it: "87.5% (low confidence)".
func FormatCoverage(t *reports.Target) string {
	s := FormatPercent(t.CoveragePercent())
	if l := t.CoverageLevel(); l != "" {
		s += " (" + l + " confidence)"
	}
	return s
}

// DeltaPhrase says what changes against the source in a few words:
// "+12 on CPU, +3.1 MiB", "no change", "−2 on CPU".
func DeltaPhrase(d *reports.Delta) string {
	if d == nil {
		return "-"
	}
	var parts []string
	switch {
	case d.NewFallbackNodes > 0 && d.BetterOnTargetNodes > 0:
		parts = append(parts, fmt.Sprintf("+%d/−%d on CPU", d.NewFallbackNodes, d.BetterOnTargetNodes))
	case d.NewFallbackNodes > 0:
		parts = append(parts, fmt.Sprintf("+%d on CPU", d.NewFallbackNodes))
	case d.BetterOnTargetNodes > 0:
		parts = append(parts, fmt.Sprintf("−%d on CPU", d.BetterOnTargetNodes))
	}
	switch b := d.TransferBytesDelta; {
	case d.TransferBytesPartial && b != 0:
		parts = append(parts, SignedBytes(b)+" (sizes partly unknown)")
	case d.TransferBytesPartial:
		parts = append(parts, "bytes: sizes partly unknown")
	case b != 0:
		parts = append(parts, SignedBytes(b))
	}
	if len(parts) == 0 {
		return "no change"
	}
	return strings.Join(parts, ", ")
}

// BytesAtLeast is a byte count that leaves out sizes not known (partial)
// as the lower bound it is: "≥1.5 MiB".
func BytesAtLeast(n int64, partial bool) string {
	if partial {
		return "≥" + FormatBytes(n)
	}
	return FormatBytes(n)
}

// SignedBytes is a byte difference with its sign.
func SignedBytes(b int64) string {
	if b < 0 {
		return "−" + FormatBytes(-b)
	}
	return "+" + FormatBytes(b)
}

// ChangedOps names the ops of a target's nodes with one change, most nodes
// first: "HashTableV2 2, Cast".
func ChangedOps(t *reports.Target, change string) string {
	count := map[string]int{}
	for _, n := range t.Nodes {
		if n.Change == change {
			count[n.Op]++
		}
	}
	ops := make([]string, 0, len(count))
	for op := range count {
		ops = append(ops, op)
	}
	slices.SortFunc(ops, func(a, b string) int { return cmp.Or(cmp.Compare(count[b], count[a]), cmp.Compare(a, b)) })
	for i, op := range ops {
		if count[op] > 1 {
			ops[i] = fmt.Sprintf("%s ×%d", op, count[op])
		}
	}
	return strings.Join(ops, ", ")
}

func FormatPercent(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) + "%" }

// FormatBytes renders a byte count in binary units, exactly below 1 KiB.
func FormatBytes(n int64) string {
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

func PassFail(ok bool) string {
	if ok {
		return "pass"
	}
	return "FAIL"
}

func FormatErr(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }

// NonNil is s, or an empty slice for nil, so that JSON writes [] rather
// than null.
func NonNil[S ~[]E, E any](s S) S {
	if s == nil {
		return S{}
	}
	return s
}
