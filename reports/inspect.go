package reports

import (
	"sort"
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

// Normalize sorts everything that has no meaningful order of its own, so
// that the same input always gives byte-identical output.
func (m *InspectModel) Normalize() {
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
