package markdown

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/reports/internal/render"
)

// WriteExplainMarkdown writes the explanations as a Markdown table with the
// causes and fixes, for an issue or a pull request.
func WriteExplainMarkdown(w io.Writer, r *reports.ExplainReport) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "## tfscan explain: `%s` on %s\n\n", mdLine(r.Model), mdLine(r.Target))
	fmt.Fprintf(&b, "Log `%s` (%d lines, sha256 `%s`). %s\n\n", mdLine(r.Log.Path), r.Log.Lines, shortHash(r.Log.SHA256), render.ExplainSummaryLine(r))
	if len(r.Explanations) == 0 {
		b.WriteString("No TensorFlow, tf_adapter or Graph Engine message about a node, op, kernel or device in this log.\n")
	} else {
		b.WriteString("| line | kind | node | tfscan | agrees | cause | fixes |\n|---:|---|---|---|---|---|---|\n")
		for _, e := range r.Explanations {
			var fixes []string
			for _, f := range e.Fixes {
				fixes = append(fixes, render.FixLine(f))
			}
			fmt.Fprintf(&b, "| %d | %s | %s | %s | %s | %s | %s |\n", e.Line, mdCell(e.MessageKind), mdCell(render.ExplainNodeLine(e)),
				mdCell(render.PredictionLine(e, r.Target)), agreeWord(e.Agrees), mdCell(e.Cause), mdCell(strings.Join(fixes, "; ")))
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

func agreeWord(a *bool) string {
	switch {
	case a == nil:
		return "-"
	case *a:
		return "yes"
	}
	return "no"
}

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
