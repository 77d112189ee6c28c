package table

import (
	"io"
	"strconv"
	"strings"

	"github.com/tfscan/tfscan/reports"
)

// inspectTableOps and inspectTableDiagnostics cap the table view; JSON has
// everything.
const (
	inspectTableOps         = 40
	inspectTableDiagnostics = 20
)

// WriteInspectTable writes the human view: per model its format, meta
// graphs, signatures, counts and op histogram.
func WriteInspectTable(w io.Writer, r *reports.InspectReport) error {
	p := &printer{w: w}
	for i, m := range r.Models {
		if i > 0 {
			p.printf("\n")
		}
		p.printf("%s (%s)\n", m.Path, m.Format)
		if m.File != "" && m.File != m.Path {
			p.printf("  file:           %s\n", m.File)
		}
		p.printf("  graph nodes:    %d\n", m.GraphNodes)
		p.printf("  functions:      %d (%d nodes)\n", m.Functions, m.FunctionNodes)
		p.printf("  reachable:      %d of %d nodes\n", m.ReachableNodes, m.GraphNodes+m.FunctionNodes)
		p.printf("  op types:       %d\n", len(m.OpTypes))
		if len(m.UnknownOps) > 0 {
			p.printf("  unknown ops:    %s\n", strings.Join(m.UnknownOps, ", "))
		}
		if n := countFatal(m.Diagnostics); n > 0 {
			p.printf("  refused:        TensorFlow would not load this graph (problems: %d; see Diagnostics)\n", n)
		}
		if m.OpDefs != "" {
			p.printf("  opdefs:         %s\n", m.OpDefs)
		}
		if len(m.MetaGraphs) > 1 {
			p.section("Meta graphs")
			var rows [][]string
			for _, mg := range m.MetaGraphs {
				sel := ""
				if mg.Selected {
					sel = "*"
				}
				rows = append(rows, []string{sel, strings.Join(mg.Tags, ","), strings.Join(mg.Signatures, ", ")})
			}
			p.table([]string{"", "tags", "signatures"}, rows)
		}
		if len(m.Signatures) > 0 {
			p.section("Signatures")
			var rows [][]string
			for _, s := range m.Signatures {
				for _, t := range s.Inputs {
					rows = append(rows, []string{s.Key, "input", t.Key, t.Name, t.DType, shapeString(t.Shape)})
				}
				for _, t := range s.Outputs {
					rows = append(rows, []string{s.Key, "output", t.Key, t.Name, t.DType, shapeString(t.Shape)})
				}
				if len(s.Inputs)+len(s.Outputs) == 0 {
					rows = append(rows, []string{s.Key, "", "", "", "", ""})
				}
			}
			p.table([]string{"signature", "kind", "key", "tensor", "dtype", "shape"}, rows)
		}
		if len(m.OpHistogram) > 0 {
			p.section("Ops")
			var rows [][]string
			for i, c := range m.OpHistogram {
				if i == inspectTableOps {
					rest, restReach := 0, 0
					for _, c := range m.OpHistogram[i:] {
						rest += c.Count
						restReach += c.Reachable
					}
					rows = append(rows, []string{"(" + strconv.Itoa(len(m.OpHistogram)-i) + " more ops)", strconv.Itoa(rest), strconv.Itoa(restReach)})
					break
				}
				rows = append(rows, []string{c.Op, strconv.Itoa(c.Count), strconv.Itoa(c.Reachable)})
			}
			p.table([]string{"op", "nodes", "reachable"}, rows)
		}
		if len(m.Diagnostics) > 0 {
			p.section("Diagnostics")
			for i, d := range m.Diagnostics {
				if i == inspectTableDiagnostics {
					p.printf("  ... %d more (see --format json)\n", len(m.Diagnostics)-i)
					break
				}
				if d.Fatal {
					p.printf("  %s (refused) at %s: %s\n", d.Kind, d.Path, d.Message)
					continue
				}
				p.printf("  %s: %s\n", d.Kind, d.Message)
			}
		}
	}
	if len(r.Errors) > 0 {
		if len(r.Models) > 0 {
			p.printf("\n")
		}
		p.printf("%d model(s) could not be read:\n", len(r.Errors))
		for _, e := range r.Errors {
			p.printf("  %s\n", e.Message)
		}
	}
	if len(r.Models) == 0 && len(r.Errors) == 0 {
		p.printf("no models found\n")
	}
	return p.err
}

// shapeString renders [1 -1 3] as "[1,?,3]" and an unknown rank as "?".
func shapeString(s []int64) string {
	if s == nil {
		return "?"
	}
	parts := make([]string, len(s))
	for i, d := range s {
		if d < 0 {
			parts[i] = "?"
		} else {
			parts[i] = strconv.FormatInt(d, 10)
		}
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func countFatal(ds []reports.InspectDiagnostic) int {
	n := 0
	for _, d := range ds {
		if d.Fatal {
			n++
		}
	}
	return n
}
