package conformance

import (
	"fmt"
	"regexp"
	"strings"
)

// A measured span is a figure that TensorFlow's run on the machine at hand
// decides and that another x86 CPU changes within the bounds the tests hold:
// the order in which its contractions add follows the CPU's instruction set
// and cache sizes (tfgolden.CPUReason), and so do the kernels oneDNN picks
// where its rewrites are on. The document shows the figure found where it was written;
// holding the committed file to a run elsewhere takes any text of one table
// cell in its place, while the test's own bounds (a model's tolerance, a
// known difference's ULPs) still fail the run.
const (
	measuredOpen  = "\x1e"
	measuredClose = "\x1f"
)

// measured marks s, one table cell's text or part of it, as a measured span.
func measured(s string) string {
	if strings.ContainsAny(s, "|\n"+measuredOpen+measuredClose) {
		panic(fmt.Sprintf("measured span %q crosses a table cell", s))
	}
	return measuredOpen + s + measuredClose
}

// unmark is the document's text: its measured spans as plain text.
func unmark(s string) string {
	return strings.NewReplacer(measuredOpen, "", measuredClose, "").Replace(s)
}

// maxDocDiffs bounds how many differing lines a mismatch lists.
const maxDocDiffs = 12

// docDiffs compares a committed document with a generated one, line by line,
// and lists the lines that differ (at most maxDocDiffs).
func docDiffs(committed, generated string) []string {
	old, gen := strings.Split(committed, "\n"), strings.Split(generated, "\n")
	var diffs []string
	if len(old) != len(gen) {
		diffs = append(diffs, fmt.Sprintf("%d lines committed, %d found", len(old), len(gen)))
	}
	for i := 0; i < min(len(old), len(gen)) && len(diffs) < maxDocDiffs; i++ {
		if !lineMatches(old[i], gen[i]) {
			diffs = append(diffs, fmt.Sprintf("line %d: committed %q\n  found %q", i+1, old[i], unmark(gen[i])))
		}
	}
	return diffs
}

// lineMatches reports whether a committed line is the generated one, each
// measured span matching any text without a cell separator.
func lineMatches(committed, generated string) bool {
	if !strings.Contains(generated, measuredOpen) {
		return committed == generated
	}
	var pat strings.Builder
	pat.WriteString("^")
	rest := generated
	for {
		open := strings.Index(rest, measuredOpen)
		if open < 0 {
			break
		}
		close := strings.Index(rest[open:], measuredClose)
		pat.WriteString(regexp.QuoteMeta(rest[:open]))
		pat.WriteString(`[^|]*`)
		rest = rest[open+close+len(measuredClose):]
	}
	pat.WriteString(regexp.QuoteMeta(rest) + "$")
	return regexp.MustCompile(pat.String()).MatchString(committed)
}
