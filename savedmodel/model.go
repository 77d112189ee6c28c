// Package savedmodel reads the TensorFlow model formats a migrating team has —
// SavedModel (binary and text), frozen GraphDef, MetaGraphDef and TF.js graph
// models — into one in-memory Model. It sniffs formats by content, never by
// file extension alone, and never executes anything it reads.
//
// Load reads one model path, Discover finds the model paths under a
// directory. Every error Load returns is an *Error whose message is one line,
// "FILE: problem". Files over MaxFileSize are refused before they are read,
// and shapes over MaxShapeElements / MaxTensorElements are reported, never
// allocated. The decoded protos are kept as they are (Const payloads are not
// copied again), so a MetaGraph's Def is the model's own GraphDef.
package savedmodel

import (
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"
)

// Format names the on-disk format a model was read from. The values are
// stable: they appear in JSON reports.
type Format string

const (
	FormatSavedModel     Format = "saved_model"       // saved_model.pb
	FormatSavedModelText Format = "saved_model_pbtxt" // saved_model.pbtxt
	FormatGraphDef       Format = "graph_def"         // binary frozen GraphDef
	FormatGraphDefText   Format = "graph_def_pbtxt"   // text GraphDef
	FormatMetaGraph      Format = "meta_graph"        // binary MetaGraphDef
	FormatMetaGraphText  Format = "meta_graph_pbtxt"  // text MetaGraphDef
	FormatTFJS           Format = "tfjs_graph_model"  // model.json + shards
)

// Model is everything tfscan read from one model path. GraphDefs and
// MetaGraphDefs are wrapped into MetaGraphs so that later stages see one shape
// whatever the format.
type Model struct {
	// Path is the path the user gave (a directory or a file).
	Path string
	// File is the file the graph was read from (saved_model.pb, model.json, ...);
	// errors and SARIF locations name it.
	File   string
	Format Format
	// MetaGraphs holds every MetaGraphDef of a SavedModel, or exactly one for
	// the other formats.
	MetaGraphs []*MetaGraph
	// VariablesPrefix is the tensor-bundle prefix of a SavedModel's checkpoint
	// (DIR/variables/variables), or "" when the model has none.
	VariablesPrefix string
	// SchemaVersion is a SavedModel's saved_model_schema_version (0 for
	// the other formats), kept so that Write writes it back.
	SchemaVersion int64
	// Assets lists the files under a SavedModel's assets/ directory.
	Assets []string
	// Weights holds TF.js weights by node name, already dequantized the way
	// TF.js does on load, in the dtype their Const declares where the
	// converter narrowed it (tfjs_dtypes.go). Nil for other formats (their
	// weights are Const values or checkpoint entries).
	Weights map[string]*Weight
	// Renamed maps a node whose op the loader rewrote to the op name the file
	// gave it. Keys are node names, or "FUNCTION/NODE" for nodes in library
	// functions. Today only TF.js's FusedDepthwiseConv2dNative is renamed (to
	// _FusedDepthwiseConv2dNative); nil when nothing was renamed.
	Renamed map[string]string
	// TFJSInit names the nodes of a TF.js model.json's modelInitializer
	// graph the loader merged into the graph (tfjs_init.go); Write leaves
	// them out of modelTopology. Nil for other formats.
	TFJSInit map[string]bool
	// RestoredDTypes lists the TF.js weights the loader gave back the
	// dtype their Const declares (tfjs_dtypes.go); nil when none.
	RestoredDTypes []RestoredDType

	// lazy holds the Const tensor contents the load left in File
	// (lazy.go); nil when every content is in the messages.
	lazy *lazyContents
	// decoded is what the decode of a file of one graph counted.
	decoded decodedCount
}

// decodedCount is the NodeDefs of a model's one graph, its functions'
// included, and their inputs, as the decode counted them.
type decodedCount struct {
	nodes, inputs int
	ok            bool
}

// DecodedNodes is the NodeDefs of m's one MetaGraph and their inputs
// (MetaGraph.NodeDefs) as the decode of its file counted them while it
// read them, with no walk of the graph; ok is false for a model the decode
// did not count (a text format, a graph proto.Unmarshal decoded, a
// SavedModel of several MetaGraphs).
func (m *Model) DecodedNodes() (nodes, inputs int, ok bool) {
	return m.decoded.nodes, m.decoded.inputs, m.decoded.ok
}

// NodeDefs is the number of NodeDefs of mg's graph, its functions'
// included, and of their inputs, data and control.
func (mg *MetaGraph) NodeDefs() (nodes, inputs int) {
	gd := mg.Def.GetGraphDef()
	nodes = len(gd.GetNode())
	for _, nd := range gd.GetNode() {
		inputs += len(nd.GetInput())
	}
	for _, f := range gd.GetLibrary().GetFunction() {
		nodes += len(f.GetNodeDef())
		for _, nd := range f.GetNodeDef() {
			inputs += len(nd.GetInput())
		}
	}
	return nodes, inputs
}

// setDecoded keeps what the decode of m's file counted, when the file
// holds one graph.
func (m *Model) setDecoded(c decodedCount) {
	if len(m.MetaGraphs) == 1 {
		m.decoded = c
	}
}

// MetaGraph is one MetaGraphDef with its signatures decoded.
type MetaGraph struct {
	Tags []string
	// Def is the raw proto; Def.GraphDef holds the graph and its function library.
	Def        *mgpb.MetaGraphDef
	Signatures []*Signature // sorted by Key
}

// Signature is one entry of a MetaGraphDef's signature_def map.
type Signature struct {
	Key     string
	Method  string
	Inputs  []*TensorInfo // sorted by Key
	Outputs []*TensorInfo // sorted by Key
}

// TensorInfo describes one signature input or output.
type TensorInfo struct {
	Key  string // the signature's key for it (e.g. "x")
	Name string // the graph tensor it binds to (e.g. "x:0")
	// DType is the TensorFlow data type.
	DType tpb.DataType
	// Shape has -1 for unknown dimensions; nil with UnknownRank for an unknown rank.
	Shape       []int64
	UnknownRank bool
}

// Weight is one decoded TF.js weight: little-endian bytes of DType with Shape.
type Weight struct {
	Name  string
	DType tpb.DataType
	Shape []int64
	// Data holds the elements of fixed-size dtypes (float32 after any
	// dequantization, int32, bool as one byte, complex64 as real/imaginary
	// float32 pairs; float16, float64 or int64 where the loader gave a
	// Const its declared dtype back, tfjs_dtypes.go); nil for DT_STRING.
	Data []byte
	// Strings holds the elements of a DT_STRING weight; nil otherwise.
	Strings [][]byte
}
