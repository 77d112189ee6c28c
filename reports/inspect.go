package reports

import (
	"bytes"
	"encoding/json"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/tfscan/tfscan/dtype"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/savedmodel"
)

// InspectReport is the output of `tfscan inspect`: what is in each model,
// before any target is considered (InspectSchemaVersion).
type InspectReport struct {
	SchemaVersion int             `json:"schema_version"`
	Models        []*InspectModel `json:"models"`
	// Errors are the models that could not be read, in the order they were
	// found, as in Report.Errors.
	Errors []ScanError `json:"errors,omitempty"`
}

// InspectModel describes one model. The first fields are the stable core
// (path, format, counts, op types, unknown ops, signatures); the rest are
// additive extras.
type InspectModel struct {
	Path   string `json:"path"`
	Format string `json:"format"`
	// GraphNodes counts the top-level graph's nodes; Functions the library's
	// FunctionDefs; FunctionNodes the nodes of all their bodies.
	GraphNodes    int `json:"graph_nodes"`
	Functions     int `json:"functions"`
	FunctionNodes int `json:"function_nodes"`
	// OpTypes are the distinct op names over graph and functions, sorted.
	OpTypes []string `json:"op_types"`
	// UnknownOps are the op names no op registry knows and no function
	// defines (custom ops), sorted.
	UnknownOps []string `json:"unknown_ops"`
	// Signatures of the meta graph that was analysed, by key.
	Signatures []InspectSignature `json:"signatures"`

	// File is the file the graph was read from.
	File string `json:"file"`
	// MetaGraphs lists every meta graph with its tags; Selected marks the
	// one the counts describe.
	MetaGraphs []InspectMetaGraph `json:"meta_graphs"`
	// ReachableNodes counts nodes some signature output (or, without
	// signatures, some sink) needs.
	ReachableNodes int `json:"reachable_nodes"`
	// OpHistogram counts nodes per op, most frequent first.
	OpHistogram []OpCount `json:"op_histogram"`
	// OpDefs names the embedded OpDef registry the model was checked with.
	OpDefs string `json:"opdefs"`
	// Diagnostics are the graph's problems; those marked fatal are why
	// TensorFlow would refuse to load it (inspect still lists the model, and
	// exits with the bad-input code).
	Diagnostics []InspectDiagnostic `json:"diagnostics"`
}

// InspectMetaGraph is one MetaGraphDef of a model.
type InspectMetaGraph struct {
	Tags       []string `json:"tags"`
	Signatures []string `json:"signatures"`
	Selected   bool     `json:"selected"`
}

// InspectSignature is one signature with its inputs and outputs.
type InspectSignature struct {
	Key     string          `json:"key"`
	Method  string          `json:"method"`
	Inputs  []InspectTensor `json:"inputs"`
	Outputs []InspectTensor `json:"outputs"`
}

// InspectTensor is one signature input or output.
type InspectTensor struct {
	Key   string `json:"key"`
	Name  string `json:"name"`
	DType string `json:"dtype"`
	// Shape has -1 for unknown dimensions; null for an unknown rank.
	Shape []int64 `json:"shape"`
}

// OpCount is one op's node count, all nodes and reachable ones.
type OpCount struct {
	Op        string `json:"op"`
	Count     int    `json:"count"`
	Reachable int    `json:"reachable"`
}

// InspectDiagnostic is one graph diagnostic.
type InspectDiagnostic struct {
	Kind    string `json:"kind"`
	Path    string `json:"path"`
	Message string `json:"message"`
	// Fatal is set when TensorFlow refuses the graph for this problem; the
	// message is then TensorFlow's.
	Fatal bool `json:"fatal"`
}

// NewInspectModel summarises a built graph.
func NewInspectModel(g *graph.Graph) *InspectModel {
	m := &InspectModel{
		Path:        g.Model.Path,
		File:        g.Model.File,
		Format:      string(g.Model.Format),
		GraphNodes:  g.TopLevel,
		Functions:   len(g.Functions),
		OpTypes:     []string{},
		UnknownOps:  []string{},
		Signatures:  []InspectSignature{},
		MetaGraphs:  []InspectMetaGraph{},
		OpHistogram: []OpCount{},
		Diagnostics: []InspectDiagnostic{},
	}
	if g.Ops != nil {
		m.OpDefs = "TensorFlow " + g.Ops.TFVersion
	}
	m.FunctionNodes = len(g.Nodes) - g.TopLevel
	counts := map[string]*OpCount{}
	unknown := map[string]bool{}
	for _, n := range g.Nodes {
		c := counts[n.Op]
		if c == nil {
			c = &OpCount{Op: n.Op}
			counts[n.Op] = c
		}
		c.Count++
		if n.Reachable {
			c.Reachable++
			m.ReachableNodes++
		}
		if n.Unknown {
			unknown[n.Op] = true
		}
	}
	for op, c := range counts {
		m.OpTypes = append(m.OpTypes, op)
		m.OpHistogram = append(m.OpHistogram, *c)
	}
	for op := range unknown {
		m.UnknownOps = append(m.UnknownOps, op)
	}
	for _, mg := range g.Model.MetaGraphs {
		im := InspectMetaGraph{Tags: nonNil(mg.Tags), Signatures: []string{}, Selected: mg == g.MetaGraph}
		for _, s := range mg.Signatures {
			im.Signatures = append(im.Signatures, s.Key)
		}
		m.MetaGraphs = append(m.MetaGraphs, im)
	}
	for _, s := range g.Signatures {
		m.Signatures = append(m.Signatures, InspectSignature{
			Key: s.Key, Method: s.Method, Inputs: inspectTensors(s.Inputs), Outputs: inspectTensors(s.Outputs),
		})
	}
	for _, d := range g.Diagnostics {
		m.Diagnostics = append(m.Diagnostics, InspectDiagnostic{Kind: d.Kind, Path: d.Path, Message: d.Message, Fatal: d.Fatal})
	}
	m.normalize()
	return m
}

func inspectTensors(ts []*savedmodel.TensorInfo) []InspectTensor {
	out := []InspectTensor{}
	for _, t := range ts {
		it := InspectTensor{Key: t.Key, Name: t.Name, DType: dtype.Name(t.DType)}
		if !t.UnknownRank {
			it.Shape = append([]int64{}, t.Shape...)
		}
		out = append(out, it)
	}
	return out
}

// normalize sorts everything that has no meaningful order of its own, so
// that the same input always gives byte-identical output.
func (m *InspectModel) normalize() {
	sort.Strings(m.OpTypes)
	sort.Strings(m.UnknownOps)
	sort.Slice(m.OpHistogram, func(i, j int) bool {
		a, b := m.OpHistogram[i], m.OpHistogram[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.Op < b.Op
	})
	sort.SliceStable(m.Signatures, func(i, j int) bool { return m.Signatures[i].Key < m.Signatures[j].Key })
}

// WriteInspectJSON writes r as indented JSON with a trailing newline.
func WriteInspectJSON(w io.Writer, r *InspectReport) error { return writeIndentedJSON(w, r) }

// writeIndentedJSON renders v in memory first, so that a failure writes
// nothing, then writes it indented, HTML characters unescaped.
func writeIndentedJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// inspectTableOps and inspectTableDiagnostics cap the table view; JSON has
// everything.
const (
	inspectTableOps         = 40
	inspectTableDiagnostics = 20
)

// WriteInspectTable writes the human view: per model its format, meta
// graphs, signatures, counts and op histogram.
func WriteInspectTable(w io.Writer, r *InspectReport) error {
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

func countFatal(ds []InspectDiagnostic) int {
	n := 0
	for _, d := range ds {
		if d.Fatal {
			n++
		}
	}
	return n
}
