// Package markdown writes a report, and `tfscan explain`'s explanations, as
// Markdown for a pull request or an issue, under GitHub's size limit. It reads
// only the model.
package markdown

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/reports/internal/render"
)

// MarkdownLimit bounds the Markdown summary: GitHub rejects step summaries
// and PR comments over 1 MiB (GITHUB_STEP_SUMMARY's limit is 1024 KiB), so
// the writer stops well before and says so.
const MarkdownLimit = 1000 * 1024

const markdownTopUncovered = 10

// WriteMarkdown writes a summary short enough for a pull-request comment or
// $GITHUB_STEP_SUMMARY: what the figures are compared with, the gate result,
// a per-target table led by the delta against the source, and per model the
// new fallbacks (or, without a source, the top uncovered ops). It truncates
// with a note at MarkdownLimit.
func WriteMarkdown(w io.Writer, r *reports.Report) error { return writeMarkdown(w, r, MarkdownLimit) }

func writeMarkdown(w io.Writer, r *reports.Report, limit int) error {
	r.Normalize()
	var b bytes.Buffer
	b.WriteString("## tfscan report\n\n")
	v := render.NewView(r)
	if len(r.Models) > 0 {
		if v.Source != "" {
			fmt.Fprintf(&b, "Compared with **%s**, where the models run today (`--from`).", mdLine(v.Source))
		} else {
			b.WriteString("No source to compare with (`--from none`).")
		}
		if len(v.Phases) > 0 {
			fmt.Fprintf(&b, " Figures count %s nodes", mdLine(strings.Join(v.Phases, ", ")))
			if slices.Equal(v.Phases, []string{reports.PhaseStep}) {
				b.WriteString(" (every call); load and save work apart (`--phase all`)")
			}
			b.WriteString(".")
		}
		b.WriteString("\n\n")
	}
	if g := r.Gate; g != nil {
		if g.Pass {
			fmt.Fprintf(&b, "**Gate: PASS**%s\n\n", render.GateScope(r))
		} else {
			fmt.Fprintf(&b, "**Gate: FAIL** (%d failure(s))%s\n\n", len(g.Failures), render.GateScope(r))
			b.WriteString("| model | target | rule | message |\n|---|---|---|---|\n")
			for _, f := range g.Failures {
				fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", mdCell(f.Model), mdCell(f.Target), mdCell(f.Rule), mdCell(f.Message))
			}
			b.WriteString("\n")
		}
		for _, wn := range g.Warnings {
			fmt.Fprintf(&b, "> warning: %s\n", mdLine(wn))
		}
		if len(g.Warnings) > 0 {
			b.WriteString("\n")
		}
	}
	if len(r.Errors) > 0 {
		fmt.Fprintf(&b, "**%d model(s) could not be scanned**\n\n| model | error | message |\n|---|---|---|\n", len(r.Errors))
		for _, e := range r.Errors {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", mdCell(e.Path), mdCell(e.Class), mdCell(e.Message))
		}
		b.WriteString("\n")
	}
	if len(r.Models) == 0 {
		if len(r.Errors) == 0 {
			b.WriteString("No models found.\n")
		}
	} else {
		vs := ""
		if v.Source != "" {
			vs = " vs " + mdCell(v.Source) + " |"
		}
		fmt.Fprintf(&b, "| model | target |%s coverage | covered / nodes | on CPU | partitions | bytes/step |\n", vs)
		b.WriteString("|---|---|" + strings.Repeat("---|", render.BoolInt(vs != "")) + "---:|---:|---:|---:|---:|\n")
		for _, m := range r.Models {
			for _, t := range m.Targets {
				total, covered := t.CountedNodes()
				parts, bytes := "-", "-"
				if t.Placement != nil {
					parts = strconv.Itoa(t.Placement.Partitions)
					bytes = render.BytesAtLeast(t.Placement.TransferBytes, t.Placement.TransferBytesPartial())
				}
				delta := ""
				if vs != "" {
					delta = " " + mdDelta(t.Delta) + " |"
					if r := render.RefusedIf(t); r != "" {
						delta = " **" + r + "** |"
					}
				}
				fmt.Fprintf(&b, "| %s | %s |%s %s | %d / %d | %d | %s | %s |\n", mdCell(m.Path), mdCell(t.Target), delta,
					render.FormatCoverage(t), covered, total, t.FallbackNodes(), parts, bytes)
			}
		}
	}
	for _, m := range r.Models {
		var sec strings.Builder
		for _, t := range m.Targets {
			if d := t.Delta; d != nil {
				if d.NewFallbackNodes > 0 {
					fmt.Fprintf(&sec, "\n**%s** — %d node(s) newly on CPU vs %s\n\n| op | dtypes | reason | nodes | example |\n|---|---|---|---:|---|\n",
						mdCell(t.Target), d.NewFallbackNodes, mdCell(d.Source))
					for _, o := range d.NewFallbackOps[:min(len(d.NewFallbackOps), markdownTopUncovered)] {
						fmt.Fprintf(&sec, "| `%s` | %s | %s | %d | %s |\n", mdCode(o.Op), mdCell(strings.Join(o.DTypes, ", ")), mdCell(o.Reason), o.Count, mdExample(o.Nodes))
					}
					if n := len(d.NewFallbackOps) - markdownTopUncovered; n > 0 {
						fmt.Fprintf(&sec, "\n…and %d more group(s).\n", n)
					}
				}
				if d.AlreadyOnCPUNodes > 0 {
					fmt.Fprintf(&sec, "\n%s: %d node(s) on CPU under %s too (%s).\n", mdCell(t.Target), d.AlreadyOnCPUNodes, mdCell(d.Source), mdLine(render.ChangedOps(t, reports.ChangeAlreadyOnCPU)))
				}
				continue
			}
			var groups []reports.Uncovered
			for _, u := range t.Uncovered {
				if t.CountsPhase(u.Phase) {
					groups = append(groups, u)
				}
			}
			if len(groups) == 0 {
				continue
			}
			fmt.Fprintf(&sec, "\n**%s** — top uncovered ops\n\n| op | dtypes | reason | nodes | example |\n|---|---|---|---:|---|\n", mdCell(t.Target))
			for _, u := range groups[:min(len(groups), markdownTopUncovered)] {
				fmt.Fprintf(&sec, "| `%s` | %s | %s | %d | %s |\n", mdCode(u.Op), mdCell(strings.Join(u.DTypes, ", ")), u.Reason, u.Count, mdExample(u.Nodes))
			}
			if n := len(groups) - markdownTopUncovered; n > 0 {
				fmt.Fprintf(&sec, "\n…and %d more group(s).\n", n)
			}
		}
		for _, t := range m.Targets {
			writeStackMarkdown(&sec, t)
		}
		for _, t := range m.Targets {
			writeTrainingMarkdown(&sec, t)
		}
		for _, t := range m.Targets {
			writeXLAMarkdown(&sec, t)
		}
		for _, t := range m.Targets {
			if par := t.Parity; par != nil {
				first := "none"
				if par.FirstDivergence != nil {
					first = "`" + mdCode(*par.FirstDivergence) + "`"
				}
				fmt.Fprintf(&sec, "\n**%s** — parity under %s (first divergence: %s)\n\n| output | result | max abs | max rel | mismatches |\n|---|---|---:|---:|---:|\n", mdCell(t.Target), mdCell(par.Profile), first)
				for _, o := range par.Outputs {
					fmt.Fprintf(&sec, "| `%s` | %s | %s | %s | %d |\n", mdCode(o.Name), render.PassFail(o.Pass), render.FormatErr(o.MaxAbsError), render.FormatErr(o.MaxRelError), o.Mismatches)
				}
				writeParityTrainingMarkdown(&sec, t.Target, par.Training)
			}
		}
		for _, t := range m.Targets {
			if t.Rewrite != nil {
				writeRewriteMarkdown(&sec, t)
			}
			if n := t.RewriteRemovesFallback; n != nil && *n > 0 {
				fmt.Fprintf(&sec, "\n**%s** — `tfscan rewrite` would remove %d fallback node(s)\n", mdCell(t.Target), *n)
			}
		}
		if len(m.Findings) > 0 {
			fmt.Fprintf(&sec, "\n**Security findings**: %d\n\n", len(m.Findings))
			for _, f := range m.Findings {
				fmt.Fprintf(&sec, "- `%s` at `%s`: %s\n", mdSpan(f.Op), mdSpan(f.Path), mdLine(f.Message))
			}
		}
		if sec.Len() > 0 {
			fmt.Fprintf(&b, "\n<details><summary>%s</summary>\n%s\n</details>\n", htmlEscapeText(m.Path), sec.String())
		}
	}
	out := b.Bytes()
	if len(out) > limit {
		out = truncateMarkdown(out, limit)
	}
	_, err := w.Write(out)
	return err
}

// truncateMarkdown cuts at the last line break that leaves room for the note.
func truncateMarkdown(b []byte, limit int) []byte {
	const note = "\n\n> **Truncated**: this summary was cut to stay under GitHub's 1 MiB limit; see the JSON or HTML report for everything.\n"
	cut := limit - len(note) - len("\n</details>\n")
	if i := bytes.LastIndexByte(b[:cut], '\n'); i > 0 {
		cut = i
	}
	out := append([]byte{}, b[:cut]...)
	if bytes.Count(out, []byte("<details>")) > bytes.Count(out, []byte("</details>")) {
		out = append(out, "\n</details>\n"...)
	}
	return append(out, note...)
}

// mdCell escapes text for a Markdown table cell.
func mdCell(s string) string {
	s = mdLine(s)
	return strings.ReplaceAll(s, "|", `\|`)
}

// mdLine keeps text on one line and neutralises HTML.
func mdLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return htmlEscapeText(s)
}

// mdCode makes text safe inside a `code span` within a table.
func mdCode(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.ReplaceAll(s, "`", "'")
	return strings.ReplaceAll(s, "|", `\|`)
}

// mdSpan makes text safe inside a `code span` outside tables.
func mdSpan(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "`", "'")
}

func htmlEscapeText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// mdDelta is a summary cell saying what changes against the source, new
// nodes on CPU in bold.
func mdDelta(d *reports.Delta) string {
	s := mdCell(render.DeltaPhrase(d))
	if d != nil && d.NewFallbackNodes > 0 {
		return "**" + s + "**"
	}
	return s
}

// mdExample is a table cell with the first node path as code.
func mdExample(nodes []string) string {
	if len(nodes) == 0 {
		return ""
	}
	return "`" + mdCode(nodes[0]) + "`"
}
