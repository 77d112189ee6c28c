package shape

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"
	"google.golang.org/protobuf/encoding/prototext"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/internal/testmodel"
	"github.com/tfscan/tfscan/internal/testutil"
	"github.com/tfscan/tfscan/savedmodel"
)

// built parses a text MetaGraphDef and builds it.
func built(t *testing.T, text string) *graph.Graph {
	t.Helper()
	def := &mgpb.MetaGraphDef{}
	require.NoError(t, prototext.Unmarshal([]byte(text), def))
	mg := &savedmodel.MetaGraph{Tags: []string{"serve"}, Def: def}
	g, err := graph.Build(&savedmodel.Model{Path: "test", File: "test/saved_model.pb", MetaGraphs: []*savedmodel.MetaGraph{mg}}, mg)
	require.NoError(t, err)
	return g
}

// named finds a node by name: top level, or "FUNCTION/NODE".
func named(t *testing.T, g *graph.Graph, name string) *graph.Node {
	t.Helper()
	for _, n := range g.Nodes {
		full := n.Name
		if n.Func != nil {
			full = n.Func.Name + "/" + n.Name
		}
		if full == name {
			return n
		}
	}
	require.Failf(t, "no node", "%s", name)
	return nil
}

// Text pieces of the graphs below.
const (
	fl    = `attr { key: "dtype" value { type: DT_FLOAT } }`
	tFl   = `attr { key: "T" value { type: DT_FLOAT } }`
	tRes  = `attr { key: "T" value { type: DT_RESOURCE } }`
	var34 = `node { name: "v" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 3 } dim { size: 4 } } } } }`
	read  = `node { name: "r" op: "ReadVariableOp" input: "v" ` + fl + ` }`
	keys7 = `node { name: "k" op: "Placeholder" attr { key: "dtype" value { type: DT_STRING } } attr { key: "shape" value { shape { dim { size: 7 } } } } }
	  node { name: "d" op: "Const" attr { key: "dtype" value { type: DT_INT64 } } attr { key: "value" value { tensor { dtype: DT_INT64 tensor_shape {} int64_val: -1 } } } }`
	find   = `node { name: "f" op: "LookupTableFindV2" input: "t" input: "k" input: "d" attr { key: "Tin" value { type: DT_STRING } } attr { key: "Tout" value { type: DT_INT64 } } }`
	findV1 = `node { name: "f" op: "LookupTableFind" input: "t" input: "k" input: "d" attr { key: "Tin" value { type: DT_STRING } } attr { key: "Tout" value { type: DT_INT64 } } }`
)

// TestResourceAndTableRules: one case per shape rule, each the shape
// function of TF 2.15 it follows (tensorflow/core/ops/..., cited in
// resource.go, rules.go and checkpoint.go).
func TestResourceAndTableRules(t *testing.T) {
	unknown := []int64(nil)
	for _, tc := range []struct {
		name, graph, node string
		want              []int64
	}{
		// VarHandleOp's shape attr is its handle data; ReadVariableShapeFn
		// reads it (resource_variable_ops.cc:34-58, :101-112).
		{"read a variable", var34 + read, "r", []int64{3, 4}},
		// ReadVariableShapeFn: a `_shape` annotation wins over the handle.
		{"_shape annotation", var34 + `node { name: "r" op: "ReadVariableOp" input: "v" ` + fl +
			` attr { key: "_shape" value { shape { dim { size: 5 } } } } }`, "r", []int64{5}},
		// ValidateVariableResourceHandle: reading with another dtype is an
		// error in TF, no shape.
		{"wrong dtype", var34 + `node { name: "r" op: "ReadVariableOp" input: "v" attr { key: "dtype" value { type: DT_INT32 } } }`, "r", unknown},
		// UnchangedShape copies handle data (common_shape_fns.cc:109-116).
		{"through Identity", var34 + `node { name: "i" op: "Identity" input: "v" ` + tRes + ` }
		  node { name: "r" op: "ReadVariableOp" input: "i" ` + fl + ` }`, "r", []int64{3, 4}},
		// _Arg's shape fn reads _handle_dtypes/_handle_shapes (function_ops.cc:30-85).
		{"_Arg handle attrs", `node { name: "a" op: "_Arg" ` + tRes + ` attr { key: "index" value { i: 0 } }
		  attr { key: "_handle_dtypes" value { list { type: DT_FLOAT } } }
		  attr { key: "_handle_shapes" value { list { shape { dim { size: 1001 } } } } } }
		  node { name: "r" op: "ReadVariableOp" input: "a" ` + fl + ` }`, "r", []int64{1001}},
		{"_Arg without handle attrs", `node { name: "a" op: "_Arg" ` + tRes + ` attr { key: "index" value { i: 0 } } }
		  node { name: "r" op: "ReadVariableOp" input: "a" ` + fl + ` }`, "r", unknown},
		// _VarHandlesOp (resource_variable_ops.cc:114-143), _ReadVariablesOp (:60-88).
		{"_VarHandlesOp", `node { name: "vs" op: "_VarHandlesOp" attr { key: "N" value { i: 2 } }
		  attr { key: "containers" value { list { s: "" s: "" } } } attr { key: "shared_names" value { list { s: "a" s: "b" } } }
		  attr { key: "dtypes" value { list { type: DT_FLOAT type: DT_FLOAT } } }
		  attr { key: "shapes" value { list { shape { dim { size: 2 } } shape { dim { size: 6 } dim { size: 7 } } } } } }
		  node { name: "rs" op: "_ReadVariablesOp" input: "vs:1" input: "vs" attr { key: "N" value { i: 2 } }
		  attr { key: "dtypes" value { list { type: DT_FLOAT type: DT_FLOAT } } } }`, "rs", []int64{6, 7}},
		// ResourceGather: params[:bd] ++ indices[bd:] ++ params[bd+1:] (resource_variable_ops.cc:239-293).
		{"ResourceGather", var34 + `node { name: "i" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "shape" value { shape { dim { size: 2 } dim { size: 5 } } } } }
		  node { name: "g" op: "ResourceGather" input: "v" input: "i" ` + fl + ` attr { key: "Tindices" value { type: DT_INT32 } } }`, "g", []int64{2, 5, 4}},
		{"ResourceGather batch_dims", var34 + `node { name: "i" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "shape" value { shape { dim { size: 3 } dim { size: 5 } } } } }
		  node { name: "g" op: "ResourceGather" input: "v" input: "i" ` + fl + ` attr { key: "Tindices" value { type: DT_INT32 } } attr { key: "batch_dims" value { i: 1 } } }`, "g", []int64{3, 5}},
		// VariableShapeShapeFn (resource_variable_ops.cc:220-231): a vector of the rank.
		{"VariableShape", var34 + `node { name: "s" op: "VariableShape" input: "v" attr { key: "out_type" value { type: DT_INT32 } } }`, "s", []int64{2}},
		// LookupTableFindV2: keys' prefix ++ the table's value shape
		// (lookup_ops.cc:116-183); a HashTableV2's keys and values are
		// scalars (kernels/initializable_lookup_table.h:72-74).
		{"HashTableV2 lookup", `node { name: "t" op: "HashTableV2" attr { key: "key_dtype" value { type: DT_STRING } } attr { key: "value_dtype" value { type: DT_INT64 } } }` +
			keys7 + find, "f", []int64{7}},
		{"lookup through Identity", `node { name: "t0" op: "HashTableV2" attr { key: "key_dtype" value { type: DT_STRING } } attr { key: "value_dtype" value { type: DT_INT64 } } }
		  node { name: "t" op: "Identity" input: "t0" ` + tRes + ` }` + keys7 + find, "f", []int64{7}},
		// MutableHashTableOfTensorsShapeFn (lookup_ops.cc:344-350).
		{"table of tensors", `node { name: "t" op: "MutableHashTableOfTensorsV2" attr { key: "key_dtype" value { type: DT_STRING } } attr { key: "value_dtype" value { type: DT_INT64 } }
		  attr { key: "value_shape" value { shape { dim { size: 3 } } } } }` + keys7 + find, "f", []int64{7, 3}},
		// MutableDenseHashTableShapeFn: keys shaped as empty_key (lookup_ops.cc:352-358).
		{"dense table", `node { name: "e" op: "Placeholder" attr { key: "dtype" value { type: DT_STRING } } attr { key: "shape" value { shape { dim { size: 7 } } } } }
		  node { name: "t" op: "MutableDenseHashTableV2" input: "e" input: "e" attr { key: "key_dtype" value { type: DT_STRING } } attr { key: "value_dtype" value { type: DT_INT64 } }
		  attr { key: "value_shape" value { shape { } } } }
		  node { name: "k" op: "Placeholder" attr { key: "dtype" value { type: DT_STRING } } attr { key: "shape" value { shape { dim { size: 2 } dim { size: 7 } } } } }
		  node { name: "d" op: "Const" attr { key: "dtype" value { type: DT_INT64 } } attr { key: "value" value { tensor { dtype: DT_INT64 tensor_shape {} int64_val: -1 } } } }` + find, "f", []int64{2}},
		{"lookup of keys of unknown rank", `node { name: "t" op: "HashTableV2" attr { key: "key_dtype" value { type: DT_STRING } } attr { key: "value_dtype" value { type: DT_INT64 } } }
		  node { name: "k" op: "Placeholder" attr { key: "dtype" value { type: DT_STRING } } attr { key: "shape" value { shape { unknown_rank: true } } } }
		  node { name: "d" op: "Const" attr { key: "dtype" value { type: DT_INT64 } } attr { key: "value" value { tensor { dtype: DT_INT64 tensor_shape {} int64_val: -1 } } } }` + find, "f", unknown},
		{"lookup without a table", `node { name: "t" op: "Placeholder" attr { key: "dtype" value { type: DT_RESOURCE } } attr { key: "shape" value { shape { } } } }` + keys7 + find, "f", unknown},
		// The v1 tables (Ref(string) handles): TwoElementOutput
		// (lookup_ops.cc:59-62), the same keys and values as V2
		// (kernels/initializable_lookup_table.h:72-74,
		// kernels/lookup_table_op.h:142-144, lookup_table_op.cc:330-332).
		{"HashTable (v1) handle", `node { name: "t" op: "HashTable" attr { key: "key_dtype" value { type: DT_STRING } } attr { key: "value_dtype" value { type: DT_INT64 } } }`, "t", []int64{2}},
		{"HashTable (v1) lookup", `node { name: "t" op: "HashTable" attr { key: "key_dtype" value { type: DT_STRING } } attr { key: "value_dtype" value { type: DT_INT64 } } }` +
			keys7 + findV1, "f", []int64{7}},
		{"MutableHashTable (v1) lookup", `node { name: "t" op: "MutableHashTable" attr { key: "key_dtype" value { type: DT_STRING } } attr { key: "value_dtype" value { type: DT_INT64 } } }` +
			keys7 + findV1, "f", []int64{7}},
		{"MutableHashTableOfTensors (v1) lookup", `node { name: "t" op: "MutableHashTableOfTensors" attr { key: "key_dtype" value { type: DT_STRING } } attr { key: "value_dtype" value { type: DT_INT64 } }
		  attr { key: "value_shape" value { shape { dim { size: 3 } } } } }` + keys7 + findV1, "f", []int64{7, 3}},
		{"v1 lookup through RefIdentity", `node { name: "t0" op: "MutableHashTable" attr { key: "key_dtype" value { type: DT_STRING } } attr { key: "value_dtype" value { type: DT_INT64 } } }
		  node { name: "t" op: "RefIdentity" input: "t0" attr { key: "T" value { type: DT_STRING } } }` + keys7 + findV1, "f", []int64{7}},
		// TwoElementVectorInputsAndScalarOutputs (lookup_ops.cc:32-43).
		{"LookupTableSize (v1)", `node { name: "t" op: "MutableHashTable" attr { key: "key_dtype" value { type: DT_STRING } } attr { key: "value_dtype" value { type: DT_INT64 } } }
		  node { name: "n" op: "LookupTableSize" input: "t" }`, "n", []int64{}},
		// ScalarAndTwoElementVectorInputsAndScalarOutputs (lookup_ops.cc:45-57).
		{"LookupTableSizeV2", `node { name: "t" op: "HashTableV2" attr { key: "key_dtype" value { type: DT_STRING } } attr { key: "value_dtype" value { type: DT_INT64 } } }
		  node { name: "n" op: "LookupTableSizeV2" input: "t" }`, "n", []int64{}},
		// UnchangedShape: Bucketize (math_ops.cc:2123-2128),
		// StringToHashBucketFast (string_ops.cc:77-81).
		{"Bucketize", `node { name: "x" op: "Placeholder" ` + fl + ` attr { key: "shape" value { shape { dim { size: 5 } dim { size: 2 } } } } }
		  node { name: "b" op: "Bucketize" input: "x" ` + tFl + ` attr { key: "boundaries" value { list { f: 0 f: 1 } } } }`, "b", []int64{5, 2}},
		{"StringToHashBucketFast", `node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_STRING } } attr { key: "shape" value { shape { dim { size: 9 } } } } }
		  node { name: "b" op: "StringToHashBucketFast" input: "x" attr { key: "num_buckets" value { i: 10 } } }`, "b", []int64{9}},
		// StringJoin: the merge of its non-scalar inputs (string_ops.cc:166-194).
		{"StringJoin", `node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_STRING } } attr { key: "shape" value { shape { dim { size: 4 } dim { size: -1 } } } } }
		  node { name: "y" op: "Placeholder" attr { key: "dtype" value { type: DT_STRING } } attr { key: "shape" value { shape { dim { size: 4 } dim { size: 3 } } } } }
		  node { name: "s" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape {} string_val: "-" } } } }
		  node { name: "j" op: "StringJoin" input: "x" input: "s" input: "y" attr { key: "N" value { i: 3 } } }`, "j", []int64{4, 3}},
		{"StringJoin of scalars", `node { name: "s" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape {} string_val: "-" } } } }
		  node { name: "j" op: "StringJoin" input: "s" input: "s" attr { key: "N" value { i: 2 } } }`, "j", []int64{}},
		// MergeShape keeps no handle data (control_flow_ops.cc:124-147): the
		// handle is known when every input's agrees.
		{"Merge of one variable", var34 + `node { name: "m" op: "Merge" input: "v" input: "v" ` + tRes + ` attr { key: "N" value { i: 2 } } }
		  node { name: "r" op: "ReadVariableOp" input: "m" ` + fl + ` }`, "r", []int64{3, 4}},
		{"Merge of two variables", var34 + `node { name: "w" op: "VarHandleOp" ` + fl + ` attr { key: "shape" value { shape { dim { size: 9 } } } } }
		  node { name: "m" op: "Merge" input: "v" input: "w" ` + tRes + ` attr { key: "N" value { i: 2 } } }
		  node { name: "r" op: "ReadVariableOp" input: "m" ` + fl + ` }`, "r", unknown},
		// RestoreV2 with a shape-and-slice spec: the slice's shape
		// (io_ops.cc:100-130; util/saved_tensor_slice_util.cc:92-125).
		{"RestoreV2 slice spec", `node { name: "p" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape {} string_val: "ckpt" } } } }
		  node { name: "n" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 1 } } string_val: "w" } } } }
		  node { name: "s" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 1 } } string_val: "10 20 0,5:-" } } } }
		  node { name: "rv" op: "RestoreV2" input: "p" input: "n" input: "s" attr { key: "dtypes" value { list { type: DT_FLOAT } } } }`, "rv", []int64{5, 20}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := built(t, "graph_def { "+tc.graph+" }")
			sh := Infer(g, Options{})
			o, ok := sh.Output(named(t, g, tc.node), 0)
			require.True(t, ok)
			if tc.want == nil {
				assert.False(t, o.Shape.FullyKnown(), "%v", o.Shape)
				return
			}
			assert.Equal(t, tc.want, o.Shape.Dims)
			assert.False(t, o.Shape.UnknownRank)
		})
	}
}

// VariableShape's value is the variable's shape, as Shape's is a tensor's.
func TestVariableShapeValue(t *testing.T) {
	g := built(t, "graph_def { "+var34+`node { name: "s" op: "VariableShape" input: "v" attr { key: "out_type" value { type: DT_INT32 } } }
	  node { name: "z" op: "Fill" input: "s" input: "c" attr { key: "T" value { type: DT_FLOAT } } attr { key: "index_type" value { type: DT_INT32 } } }
	  node { name: "c" op: "Const" `+fl+` attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 0 } } } } }`)
	sh := Infer(g, Options{})
	o, _ := sh.Output(named(t, g, "z"), 0)
	assert.Equal(t, []int64{3, 4}, o.Shape.Dims)
}

// ParseExample's dense values are the batch of serialized examples then
// their dense_shapes (parsing_ops.cc:162-176); a fed serialized input of
// unknown size has its batch assumed, and the assumption is listed.
func TestParseExample(t *testing.T) {
	g := built(t, `graph_def {
	  node { name: "ex" op: "Placeholder" attr { key: "dtype" value { type: DT_STRING } } attr { key: "shape" value { shape { unknown_rank: true } } } }
	  node { name: "names" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 0 } } } } } }
	  node { name: "sk" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape {} string_val: "s" } } } }
	  node { name: "dk" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape {} string_val: "x" } } } }
	  node { name: "dd" op: "Const" `+fl+` attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 3 } } float_val: 0 } } } }
	  node { name: "pe" op: "ParseExample" input: "ex" input: "names" input: "sk" input: "dk" input: "dd"
	    attr { key: "Nsparse" value { i: 1 } } attr { key: "Ndense" value { i: 1 } }
	    attr { key: "sparse_types" value { list { type: DT_INT64 } } } attr { key: "Tdense" value { list { type: DT_FLOAT } } }
	    attr { key: "dense_shapes" value { list { shape { dim { size: 2 } dim { size: 3 } } } } } } }`)
	sh := Infer(g, Options{Dims: map[string]int64{"batch": 8}})
	pe := named(t, g, "pe")
	want := []struct {
		dims    []int64
		known   bool
		assumed bool
	}{{[]int64{-1, 2}, false, false}, {[]int64{-1}, false, false}, {[]int64{2}, true, false}, {[]int64{8, 2, 3}, true, true}}
	for i, w := range want {
		o, ok := sh.Output(pe, i)
		require.True(t, ok)
		assert.Equal(t, w.dims, o.Shape.Dims, "output %d", i)
		assert.Equal(t, w.known, o.Shape.FullyKnown(), "output %d", i)
		assert.Equal(t, w.assumed, o.Assumed, "output %d", i)
	}
	assert.Equal(t, []string{"ex: dim 0 = 8 (--dim batch)"}, sh.AssumedDims)
}

// TestLookupTableExport: an export has every entry the table holds when it
// runs, so its sizes stay unknown, as in TensorFlow; the ranks come from
// the table (lookup_ops.cc:240-281, kernels/lookup_table_op.cc:124-135,
// :311-323).
func TestLookupTableExport(t *testing.T) {
	for _, tc := range []struct {
		table, export string
		keys, values  []int64
		valuesRank    bool
	}{
		{`op: "MutableHashTable"`, "LookupTableExport", []int64{-1}, []int64{-1}, true},
		{`op: "MutableHashTableV2"`, "LookupTableExportV2", []int64{-1}, []int64{-1}, true},
		{`op: "MutableHashTableOfTensors" attr { key: "value_shape" value { shape { dim { size: 3 } } } }`, "LookupTableExport", []int64{-1}, []int64{-1, 3}, true},
		// Without handle data, TensorFlow's v1 shape fn: keys Vector(?).
		{`op: "Placeholder" attr { key: "dtype" value { type: DT_STRING_REF } }`, "LookupTableExport", []int64{-1}, nil, false},
	} {
		t.Run(tc.table+" "+tc.export, func(t *testing.T) {
			g := built(t, `graph_def { node { name: "t" `+tc.table+` attr { key: "key_dtype" value { type: DT_STRING } } attr { key: "value_dtype" value { type: DT_INT64 } } }
			  node { name: "e" op: "`+tc.export+`" input: "t" attr { key: "Tkeys" value { type: DT_STRING } } attr { key: "Tvalues" value { type: DT_INT64 } } } }`)
			sh := Infer(g, Options{})
			e := named(t, g, "e")
			keys, _ := sh.Output(e, 0)
			values, _ := sh.Output(e, 1)
			assert.Equal(t, tc.keys, keys.Shape.Dims)
			assert.Equal(t, !tc.valuesRank, values.Shape.UnknownRank)
			assert.Equal(t, tc.values, values.Shape.Dims)
			_, ok := sh.Bytes(e, 1)
			assert.False(t, ok, "the values' bytes are the table's size: unknown")
		})
	}
}

// TestParseExampleV2: ParseExampleV2's shape fn (parsing_ops.cc:206-227)
// for a batch of serialized examples, a scalar one and one of unknown
// rank, with sparse, dense (one of variable length) and ragged features.
func TestParseExampleV2(t *testing.T) {
	pe := func(serialized string) string {
		return `graph_def {
	  node { name: "ex" op: "Placeholder" attr { key: "dtype" value { type: DT_STRING } } attr { key: "shape" value { ` + serialized + ` } } }
	  node { name: "names" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 0 } } } } } }
	  node { name: "sk" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 1 } } string_val: "s" } } } }
	  node { name: "dk" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 2 } } string_val: "x" string_val: "v" } } } }
	  node { name: "rk" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 1 } } string_val: "r" } } } }
	  node { name: "dd" op: "Const" ` + fl + ` attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 3 } } float_val: 0 } } } }
	  node { name: "dv" op: "Const" attr { key: "dtype" value { type: DT_INT64 } } attr { key: "value" value { tensor { dtype: DT_INT64 tensor_shape { } int64_val: 0 } } } }
	  node { name: "pe" op: "ParseExampleV2" input: "ex" input: "names" input: "sk" input: "dk" input: "rk" input: "dd" input: "dv"
	    attr { key: "num_sparse" value { i: 1 } } attr { key: "sparse_types" value { list { type: DT_INT64 } } }
	    attr { key: "Tdense" value { list { type: DT_FLOAT type: DT_INT64 } } }
	    attr { key: "dense_shapes" value { list { shape { dim { size: 2 } dim { size: 3 } } shape { dim { size: -1 } dim { size: 4 } } } } }
	    attr { key: "ragged_value_types" value { list { type: DT_FLOAT } } } attr { key: "ragged_split_types" value { list { type: DT_INT64 } } } } }`
	}
	unknown := []int64(nil)
	// Outputs: sparse indices, values, shapes; dense x, v; ragged values, row_splits.
	for _, tc := range []struct {
		name, serialized string
		want             [][]int64 // nil: unknown rank
		known            []bool
	}{
		{"batch of 5", `shape { dim { size: 5 } }`,
			[][]int64{{-1, 2}, {-1}, {2}, {5, 2, 3}, {5, -1, 4}, {-1}, {6}},
			[]bool{false, false, true, true, false, false, true}},
		{"fed batch, assumed", `shape { dim { size: -1 } }`,
			[][]int64{{-1, 2}, {-1}, {2}, {8, 2, 3}, {8, -1, 4}, {-1}, {9}},
			[]bool{false, false, true, true, false, false, true}},
		{"one example", `shape { }`,
			[][]int64{{-1, 1}, {-1}, {1}, {2, 3}, {-1, 4}, {-1}, {-1}},
			[]bool{false, false, true, true, false, false, false}},
		{"unknown rank", `shape { unknown_rank: true }`,
			[][]int64{unknown, unknown, unknown, unknown, unknown, unknown, unknown},
			[]bool{false, false, false, false, false, false, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := built(t, pe(tc.serialized))
			sh := Infer(g, Options{Dims: map[string]int64{"batch": 8}})
			n := named(t, g, "pe")
			for i, w := range tc.want {
				o, ok := sh.Output(n, i)
				require.True(t, ok)
				assert.Equal(t, w == nil, o.Shape.UnknownRank, "output %d", i)
				assert.Equal(t, w, o.Shape.Dims, "output %d", i)
				assert.Equal(t, tc.known[i], o.Shape.FullyKnown(), "output %d", i)
			}
		})
	}
}

// ParseSingleExample: a scalar example, dense values of their
// dense_shapes (parsing_ops.cc:242-254); a vector TensorFlow refuses.
func TestParseSingleExample(t *testing.T) {
	for _, tc := range []struct {
		serialized string
		want       [][]int64 // sparse indices, values, shapes; dense
	}{
		{`shape { }`, [][]int64{{-1, 1}, {-1}, {1}, {3}}},
		{`shape { dim { size: 2 } }`, [][]int64{nil, nil, nil, nil}},
	} {
		g := built(t, `graph_def {
		  node { name: "ex" op: "Placeholder" attr { key: "dtype" value { type: DT_STRING } } attr { key: "shape" value { `+tc.serialized+` } } }
		  node { name: "dd" op: "Const" `+fl+` attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 3 } } float_val: 0 } } } }
		  node { name: "pe" op: "ParseSingleExample" input: "ex" input: "dd"
		    attr { key: "num_sparse" value { i: 1 } } attr { key: "sparse_keys" value { list { s: "s" } } } attr { key: "dense_keys" value { list { s: "x" } } }
		    attr { key: "sparse_types" value { list { type: DT_INT64 } } } attr { key: "Tdense" value { list { type: DT_FLOAT } } }
		    attr { key: "dense_shapes" value { list { shape { dim { size: 3 } } } } } } }`)
		sh := Infer(g, Options{})
		n := named(t, g, "pe")
		for i, w := range tc.want {
			o, _ := sh.Output(n, i)
			assert.Equal(t, w, o.Shape.Dims, "%s: output %d", tc.serialized, i)
		}
		b, ok := sh.Bytes(n, 3)
		assert.Equal(t, tc.want[3] != nil, ok, tc.serialized)
		if ok {
			assert.Equal(t, int64(12), b)
		}
	}
}

// calledLib: a function that reads the variable passed as its second
// argument; main calls it with a VarHandleOp.
const calledLib = `library { function {
  signature { name: "body" input_arg { name: "x" type: DT_FLOAT } input_arg { name: "var" type: DT_RESOURCE } output_arg { name: "y" type: DT_FLOAT } is_stateful: true }
  node_def { name: "r" op: "ReadVariableOp" input: "var" ` + fl + ` }
  node_def { name: "mm" op: "MatMul" input: "x" input: "r:value:0" ` + tFl + ` }
  ret { key: "y" value: "mm:product:0" }
  arg_attr { key: 0 value { attr { key: "_output_shapes" value { list { shape { dim { size: -1 } dim { size: 3 } } } } } } }
  arg_attr { key: 1 value { attr { key: "_output_shapes" value { list { shape { } } } } } }
} }`

// A variable reaches a function body through a resource argument: the
// caller's handle data flows into the body (TF's function shape
// inference passes input handle data to the _Arg, graph_properties.cc
// :855-871), so the ReadVariableOp there has the variable's shape.
func TestHandleThroughFunctionArgument(t *testing.T) {
	g := built(t, `graph_def { `+var34+`
	  node { name: "x" op: "Placeholder" `+fl+` attr { key: "shape" value { shape { dim { size: 2 } dim { size: 3 } } } } }
	  node { name: "call" op: "StatefulPartitionedCall" input: "x" input: "v"
	    attr { key: "Tin" value { list { type: DT_FLOAT type: DT_RESOURCE } } } attr { key: "Tout" value { list { type: DT_FLOAT } } }
	    attr { key: "f" value { func { name: "body" } } } } `+calledLib+` }`)
	sh := Infer(g, Options{})
	r, _ := sh.Output(named(t, g, "body/r"), 0)
	assert.Equal(t, []int64{3, 4}, r.Shape.Dims)
	out, _ := sh.Output(named(t, g, "call"), 0)
	assert.Equal(t, []int64{2, 4}, out.Shape.Dims)
}

// Without a caller, a function's resource argument has the handle data its
// signature (OpDef.ArgDef.handle_data), its arg_attr (_handle_dtypes and
// _handle_shapes) or a SavedModel's object graph (the variable bound to a
// captured argument) gives it.
func TestHandleOfUncalledFunction(t *testing.T) {
	body := func(arg, argAttr string) string {
		return `library { function {
		  signature { name: "body" input_arg { name: "var" type: DT_RESOURCE ` + arg + ` } output_arg { name: "y" type: DT_FLOAT } is_stateful: true }
		  node_def { name: "r" op: "ReadVariableOp" input: "var" ` + fl + ` }
		  ret { key: "y" value: "r:value:0" } ` + argAttr + ` } }`
	}
	for _, tc := range []struct {
		name, text string
		want       []int64
	}{
		{"nothing", "graph_def { " + body("", "") + " }", nil},
		{"handle_data", "graph_def { " + body(`handle_data { dtype: DT_FLOAT shape { dim { size: 6 } } }`, "") + " }", []int64{6}},
		{"arg_attr", "graph_def { " + body("", `arg_attr { key: 0 value { attr { key: "_handle_dtypes" value { list { type: DT_FLOAT } } }
		  attr { key: "_handle_shapes" value { list { shape { dim { size: 7 } } } } } } }`) + " }", []int64{7}},
		{"object graph", "graph_def { " + body("", "") + ` }
		  object_graph_def {
		    nodes { user_object { identifier: "_generic_user_object" } }
		    nodes { variable { dtype: DT_FLOAT shape { dim { size: 8 } dim { size: 2 } } name: "w" } }
		    concrete_functions { key: "body" value { bound_inputs: 1 } } }`, []int64{8, 2}},
		{"object graph, wrong dtype", "graph_def { " + body("", "") + ` }
		  object_graph_def {
		    nodes { user_object { identifier: "_generic_user_object" } }
		    nodes { variable { dtype: DT_INT32 shape { dim { size: 8 } } name: "w" } }
		    concrete_functions { key: "body" value { bound_inputs: 1 } } }`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := built(t, tc.text)
			sh := Infer(g, Options{})
			r, _ := sh.Output(named(t, g, "body/r"), 0)
			if tc.want == nil {
				assert.False(t, r.Shape.FullyKnown())
				return
			}
			assert.Equal(t, tc.want, r.Shape.Dims)
		})
	}
}

// A While's loop variables keep their handles: the body reads the
// variable it was passed.
func TestHandleThroughWhile(t *testing.T) {
	g := built(t, `graph_def { `+var34+`
	  node { name: "w" op: "While" input: "v" attr { key: "T" value { list { type: DT_RESOURCE } } }
	    attr { key: "body" value { func { name: "wbody" } } } attr { key: "cond" value { func { name: "wcond" } } } }
	  library {
	    function { signature { name: "wbody" input_arg { name: "h" type: DT_RESOURCE } output_arg { name: "o" type: DT_RESOURCE } is_stateful: true }
	      node_def { name: "r" op: "ReadVariableOp" input: "h" `+fl+` }
	      ret { key: "o" value: "h" } }
	    function { signature { name: "wcond" input_arg { name: "h" type: DT_RESOURCE } output_arg { name: "c" type: DT_BOOL } }
	      node_def { name: "c" op: "Const" attr { key: "dtype" value { type: DT_BOOL } } attr { key: "value" value { tensor { dtype: DT_BOOL tensor_shape {} bool_val: false } } } }
	      ret { key: "c" value: "c:output:0" } } } }`)
	sh := Infer(g, Options{})
	r, _ := sh.Output(named(t, g, "wbody/r"), 0)
	assert.Equal(t, []int64{3, 4}, r.Shape.Dims)
}

// What a checkpoint records is ground truth for what is restored from it:
// half_plus_two's saver restores a, b and c, float32 scalars in its
// variables/ (TensorFlow's own test SavedModel). A dtype the checkpoint
// does not hold (TF fails that restore) gives no size.
func TestRestoreFromCheckpoint(t *testing.T) {
	dir := filepath.Join(testutil.Corpus(t), "tf", "sm_half_plus_two_v1")
	m, g := testmodel.Load(t, dir)
	ckpt, err := OpenCheckpoint(m.VariablesPrefix)
	require.NoError(t, err)
	require.NotNil(t, ckpt)
	for _, tc := range []struct {
		opts  Options
		known bool
	}{{Options{}, false}, {Options{Checkpoint: ckpt}, true}} {
		sh := Infer(g, tc.opts)
		for _, name := range []string{"save/RestoreV2", "save/RestoreV2_1", "save/RestoreV2_2"} {
			o, ok := sh.Output(named(t, g, name), 0)
			require.True(t, ok)
			assert.Equal(t, tc.known, o.Shape.FullyKnown(), name)
			if tc.known {
				assert.Equal(t, []int64{}, o.Shape.Dims)
				nb, _ := o.Bytes()
				assert.Equal(t, int64(4), nb)
			}
		}
	}
	none, err := OpenCheckpoint("")
	assert.Nil(t, none)
	assert.NoError(t, err)
	missing := filepath.Join(t.TempDir(), "none")
	_, err = OpenCheckpoint(missing)
	assert.ErrorContains(t, err, missing+".index")

	// The same checkpoint, names it holds with the wrong dtype or it
	// does not hold: no size.
	g = built(t, `graph_def {
	  node { name: "p" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape {} string_val: "ckpt" } } } }
	  node { name: "n" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 3 } } string_val: "a" string_val: "b" string_val: "nope" } } } }
	  node { name: "s" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 3 } } string_val: "" } } } }
	  node { name: "rv" op: "RestoreV2" input: "p" input: "n" input: "s" attr { key: "dtypes" value { list { type: DT_FLOAT type: DT_INT32 type: DT_FLOAT } } } } }`)
	sh := Infer(g, Options{Checkpoint: ckpt})
	for i, known := range []bool{true, false, false} {
		o, _ := sh.Output(named(t, g, "rv"), i)
		assert.Equal(t, known, o.Shape.FullyKnown(), "output %d", i)
	}
}

func TestSliceShape(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want []int64
		ok   bool
	}{
		{"10 20 0,5:-", []int64{5, 20}, true},
		{"4 -", []int64{4}, true},
		{"10 20 -:3,7", []int64{10, 7}, true},
		{"10 20 -", nil, false},      // a slice per dimension
		{"10 20 0,11:-", nil, false}, // past the end
		{"x 20 -:-", nil, false},
		{"10", nil, false},
		{"10 0,0", nil, false}, // length must be positive (tensor_slice.cc:97)
	} {
		got, ok := sliceShape(tc.spec)
		assert.Equal(t, tc.ok, ok, tc.spec)
		if tc.ok {
			assert.Equal(t, tc.want, got.Dims, tc.spec)
		}
	}
}

// Every op added to unaryOps for the feature-column and string
// pipelines keeps its input's shape: shape_inference::UnchangedShape in
// its registration (the lines cited in rules.go). Required attrs are
// given so that the graph imports.
func TestUnchangedShapeStringOps(t *testing.T) {
	str := `attr { key: "dtype" value { type: DT_STRING } }`
	for _, tc := range []struct{ op, in, attrs string }{
		{"Bucketize", fl, tFl + ` attr { key: "boundaries" value { list { f: 0 } } }`},
		{"StringToHashBucketFast", str, `attr { key: "num_buckets" value { i: 3 } }`},
		{"StringToHashBucketStrong", str, `attr { key: "num_buckets" value { i: 3 } } attr { key: "key" value { list { i: 1 i: 2 } } }`},
		{"StringToHashBucket", str, `attr { key: "num_buckets" value { i: 3 } }`},
		{"_TensorToHashBucketFast", `attr { key: "dtype" value { type: DT_INT64 } }`, `attr { key: "T" value { type: DT_INT64 } } attr { key: "num_buckets" value { i: 3 } }`},
		{"AsString", fl, tFl},
		{"StringLower", str, ``},
		{"StringUpper", str, ``},
		{"StringStrip", str, ``},
		{"StringLength", str, ``},
		{"StaticRegexReplace", str, `attr { key: "pattern" value { s: "a" } } attr { key: "rewrite" value { s: "b" } }`},
		{"StaticRegexFullMatch", str, `attr { key: "pattern" value { s: "a" } }`},
		{"StringToNumber", str, ``},
	} {
		t.Run(tc.op, func(t *testing.T) {
			g := built(t, `graph_def { node { name: "x" op: "Placeholder" `+tc.in+` attr { key: "shape" value { shape { dim { size: 5 } dim { size: 2 } } } } }
			  node { name: "y" op: "`+tc.op+`" input: "x" `+tc.attrs+` } }`)
			o, ok := Infer(g, Options{}).Output(named(t, g, "y"), 0)
			require.True(t, ok)
			assert.Equal(t, []int64{5, 2}, o.Shape.Dims)
		})
	}
}
