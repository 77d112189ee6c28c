package table

import (
	"fmt"
	"io"
	"strings"

	"github.com/mattn/go-runewidth"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// printer writes text and tables for a terminal of a given width and keeps
// the first error. With width 0 nothing is cut (-v).
type printer struct {
	w     io.Writer
	width int
	err   error
	// lines counts the lines written so far.
	lines int
}

func (p *printer) printf(format string, args ...any) {
	if p.err == nil {
		s := fmt.Sprintf(format, args...)
		p.lines += strings.Count(s, "\n")
		_, p.err = io.WriteString(p.w, s)
	}
}

// line prints one line of text cut to the width.
func (p *printer) line(format string, args ...any) {
	p.printf("%s\n", cutEnd(fmt.Sprintf(format, args...), p.width))
}

func (p *printer) section(title string) {
	p.printf("\n")
	p.line("%s", title)
}

// column describes one column of a grid.
type column struct {
	head string
	// right aligns numbers.
	right bool
	// tail keeps the end of a cut cell (node paths), middle its start and
	// end (model paths), else the start.
	tail, middle bool
}

// grid prints a borderless table: columns two spaces apart, the header
// underlined. When it is wider than the printer, the widest columns give
// way first, down to the width of their header (at least 4, at most 12),
// then, on a very narrow terminal, further; cells are cut with "…". What is
// cut is whole in the JSON and HTML reports and with -v.
func (p *printer) grid(cols []column, rows [][]string) {
	if p.err != nil || len(cols) == 0 {
		return
	}
	w := make([]int, len(cols))
	floor := make([]int, len(cols))
	for i, c := range cols {
		w[i] = runewidth.StringWidth(c.head)
		floor[i] = max(4, min(w[i], 12))
	}
	for _, r := range rows {
		for i := range cols {
			if i < len(r) {
				w[i] = max(w[i], runewidth.StringWidth(r[i]))
			}
		}
	}
	if p.width > 0 {
		total := 2 * (len(cols) - 1)
		for _, x := range w {
			total += x
		}
		for pass := 0; pass < 2 && total > p.width; pass++ {
			if pass == 1 {
				for i := range floor {
					floor[i] = 1
				}
			}
			for total > p.width {
				widest := -1
				for i := range w {
					if w[i] > floor[i] && (widest < 0 || w[i] > w[widest]) {
						widest = i
					}
				}
				if widest < 0 {
					break
				}
				w[widest]--
				total--
			}
		}
	}
	row := func(cells []string) {
		var b strings.Builder
		for i, c := range cols {
			s := ""
			if i < len(cells) {
				s = cells[i]
			}
			switch {
			case c.tail:
				s = cutStart(s, w[i])
			case c.middle:
				s = cutMiddle(s, w[i])
			default:
				s = cutEnd(s, w[i])
			}
			pad := strings.Repeat(" ", w[i]-runewidth.StringWidth(s))
			if i == len(cols)-1 && !c.right {
				pad = "" // no trailing blanks
			}
			if c.right {
				b.WriteString(pad + s)
			} else {
				b.WriteString(s + pad)
			}
			if i < len(cols)-1 {
				b.WriteString("  ")
			}
		}
		p.printf("%s\n", strings.TrimRight(b.String(), " "))
	}
	heads := make([]string, len(cols))
	rules := make([]string, len(cols))
	for i, c := range cols {
		heads[i] = c.head
		rules[i] = strings.Repeat("-", w[i])
	}
	row(heads)
	row(rules)
	for _, r := range rows {
		row(r)
	}
}

// cutEnd cuts s to width display cells, ending in "…"; width 0 keeps all.
func cutEnd(s string, width int) string {
	if width <= 0 || runewidth.StringWidth(s) <= width {
		return s
	}
	return runewidth.Truncate(s, width, "…")
}

// cutMiddle cuts s to width display cells keeping its start and its end
// around "…" (the end a little longer: a model's file name).
func cutMiddle(s string, width int) string {
	if width <= 0 || runewidth.StringWidth(s) <= width {
		return s
	}
	if width < 3 {
		return cutEnd(s, width)
	}
	head := (width - 1) / 2 // the start, then "…", then the end
	return runewidth.Truncate(s, head+1, "…") + strings.TrimPrefix(cutStart(s, width-head), "…")
}

// cutStart cuts s to width display cells keeping its end, after "…".
func cutStart(s string, width int) string {
	if width <= 0 || runewidth.StringWidth(s) <= width {
		return s
	}
	r := []rune(s)
	for i := range r {
		if tail := string(r[i:]); runewidth.StringWidth(tail) <= width-1 {
			return "…" + tail
		}
	}
	return "…"
}

// table prints a boxed ASCII table (tfscan inspect's style); nothing is cut.
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
