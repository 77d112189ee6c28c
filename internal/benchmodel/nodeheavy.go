package benchmodel

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	fpb "github.com/wamuir/graft/tensorflow/core/framework/function_go_proto"
	gpb "github.com/wamuir/graft/tensorflow/core/framework/graph_go_proto"
	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"
	opdefpb "github.com/wamuir/graft/tensorflow/core/framework/op_def_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"
	"google.golang.org/protobuf/proto"
)

// Node-heavy shapes: graphs whose cost is in their many small nodes, not in
// their constants (the shape of a converted recommendation or detection
// graph). A flat GraphDef has only top-level nodes and no functions; the
// functions SavedModel has a small top-level graph calling many functions.
const (
	FlatNodes      = 200_000
	FlatNodesLarge = 1_000_000
	ManyFunctions  = 5_000
	manyFuncNodes  = 40
)

// smallLayer appends a dense block of small nodes (a 4-float Const weight,
// MatMul, a scalar Const bias, AddV2, Relu) fed by in, in top-level ("x") or
// function ("x:output:0") reference syntax, and returns its output. Relu
// has a control input on the weight, as frozen graphs often carry. The
// constants are zeros, or with distinct values of their own
// (distinctConst).
func smallLayer(nodes []*nodepb.NodeDef, prefix, in string, fn, distinct bool) ([]*nodepb.NodeDef, string) {
	ref := func(name, arg string) string { return inputRef(name, arg, fn) }
	f32 := tType(tpb.DataType_DT_FLOAT)
	no := &attrpb.AttrValue{Value: &attrpb.AttrValue_B{B: false}}
	w, mm, bias, add, relu := prefix+"/w", prefix+"/MatMul", prefix+"/b", prefix+"/add", prefix+"/Relu"
	constNode := constNode
	if distinct {
		constNode = distinctConst
	}
	nodes = append(nodes,
		constNode(w, 4),
		&nodepb.NodeDef{Name: mm, Op: "MatMul", Input: []string{in, ref(w, "output")},
			Attr: map[string]*attrpb.AttrValue{"T": f32, "transpose_a": no, "transpose_b": no}},
		constNode(bias, 1),
		&nodepb.NodeDef{Name: add, Op: "AddV2", Input: []string{ref(mm, "product"), ref(bias, "output")}, Attr: map[string]*attrpb.AttrValue{"T": f32}},
		&nodepb.NodeDef{Name: relu, Op: "Relu", Input: []string{ref(add, "z"), "^" + w}, Attr: map[string]*attrpb.AttrValue{"T": f32}},
	)
	return nodes, ref(relu, "activations")
}

// FlatGraphDef returns the bytes of a frozen binary GraphDef of n small
// top-level nodes (a Placeholder, dense blocks of five nodes, an Identity)
// and no functions. The same n gives the same bytes.
func FlatGraphDef(n int) []byte { return flatGraphDef(n, false) }

// FlatGraphDefDistinct is FlatGraphDef with every Const of a value of its
// own, as a graph's trained weights are: no two small tensors share.
func FlatGraphDefDistinct(n int) []byte { return flatGraphDef(n, true) }

func flatGraphDef(n int, distinct bool) []byte {
	gd := &gpb.GraphDef{}
	gd.Node = append(gd.Node, &nodepb.NodeDef{Name: "input", Op: "Placeholder", Attr: map[string]*attrpb.AttrValue{"dtype": tType(tpb.DataType_DT_FLOAT)}})
	in := "input"
	for len(gd.Node) < n-5 {
		gd.Node, in = smallLayer(gd.Node, fmt.Sprintf("dense_%d", len(gd.Node)/5), in, false, distinct)
	}
	for len(gd.Node) < n {
		name := fmt.Sprintf("output_%d", len(gd.Node))
		gd.Node = append(gd.Node, &nodepb.NodeDef{Name: name, Op: "Identity", Input: []string{in}, Attr: map[string]*attrpb.AttrValue{"T": tType(tpb.DataType_DT_FLOAT)}})
		in = name
	}
	return marshal(gd)
}

// FunctionsSavedModel returns the bytes of a saved_model.pb whose serving
// graph calls n functions of 40 small nodes each in a chain, one
// StatefulPartitionedCall per function. The same n gives the same bytes.
func FunctionsSavedModel(n int) []byte {
	gd := &gpb.GraphDef{Library: &fpb.FunctionDefLibrary{}}
	gd.Node = append(gd.Node, &nodepb.NodeDef{Name: "input", Op: "Placeholder", Attr: map[string]*attrpb.AttrValue{"dtype": tType(tpb.DataType_DT_FLOAT)}})
	f32list := &attrpb.AttrValue{Value: &attrpb.AttrValue_List{List: &attrpb.AttrValue_ListValue{Type: []tpb.DataType{tpb.DataType_DT_FLOAT}}}}
	in := "input"
	for i := 0; i < n; i++ {
		fname := fmt.Sprintf("__inference_dense_%d", i)
		call := fmt.Sprintf("call_%d", i)
		gd.Node = append(gd.Node, &nodepb.NodeDef{Name: call, Op: "StatefulPartitionedCall", Input: []string{in},
			Attr: map[string]*attrpb.AttrValue{"Tin": f32list, "Tout": f32list,
				"f": {Value: &attrpb.AttrValue_Func{Func: &attrpb.NameAttrList{Name: fname}}}}})
		in = call
		fd := &fpb.FunctionDef{Signature: &opdefpb.OpDef{Name: fname,
			InputArg:  []*opdefpb.OpDef_ArgDef{{Name: "x", Type: tpb.DataType_DT_FLOAT}},
			OutputArg: []*opdefpb.OpDef_ArgDef{{Name: "y", Type: tpb.DataType_DT_FLOAT}}}}
		fin := "x"
		for len(fd.NodeDef) < manyFuncNodes {
			fd.NodeDef, fin = smallLayer(fd.NodeDef, fmt.Sprintf("d%d", len(fd.NodeDef)/5), fin, true, false)
		}
		fd.Ret = map[string]string{"y": fin}
		gd.Library.Function = append(gd.Library.Function, fd)
	}
	gd.Node = append(gd.Node, &nodepb.NodeDef{Name: "output", Op: "Identity", Input: []string{in}, Attr: map[string]*attrpb.AttrValue{"T": tType(tpb.DataType_DT_FLOAT)}})
	return marshal(serving(gd))
}

// serving wraps gd in a SavedModel of one "serve" MetaGraph whose
// serving_default signature feeds input:0 and fetches output:0.
func serving(gd *gpb.GraphDef) *mgpb.SavedModel {
	return &mgpb.SavedModel{SavedModelSchemaVersion: 1, MetaGraphs: []*mgpb.MetaGraphDef{{
		MetaInfoDef: &mgpb.MetaGraphDef_MetaInfoDef{Tags: []string{"serve"}},
		GraphDef:    gd,
		SignatureDef: map[string]*mgpb.SignatureDef{"serving_default": {
			MethodName: "tensorflow/serving/predict",
			Inputs:     map[string]*mgpb.TensorInfo{"x": {Encoding: &mgpb.TensorInfo_Name{Name: "input:0"}, Dtype: tpb.DataType_DT_FLOAT}},
			Outputs:    map[string]*mgpb.TensorInfo{"y": {Encoding: &mgpb.TensorInfo_Name{Name: "output:0"}, Dtype: tpb.DataType_DT_FLOAT}},
		}},
	}}}
}

// inputRef is the reference to output arg of node name: the node alone at
// top level, "name:arg:0" inside a function.
func inputRef(name, arg string, fn bool) string {
	if fn {
		return name + ":" + arg + ":0"
	}
	return name
}

// Shape is one node-heavy benchmark model: its name, its bytes and the file
// name a loader recognises it by.
type Shape struct {
	Name, File string
	Bytes      func() []byte
}

// NodeHeavy lists the node-heavy shapes the load and scan benchmarks share.
func NodeHeavy() []Shape {
	return []Shape{
		{Name: "flat200k", File: "frozen_graph.pb", Bytes: func() []byte { return FlatGraphDef(FlatNodes) }},
		{Name: "flat1m", File: "frozen_graph.pb", Bytes: func() []byte { return FlatGraphDef(FlatNodesLarge) }},
		{Name: "functions5k", File: "saved_model.pb", Bytes: func() []byte { return FunctionsSavedModel(ManyFunctions) }},
	}
}

// FlatDistinct is the flat 200,000-node shape with distinct constants
// (FlatGraphDefDistinct): the load benchmark's check that what it measures
// does not rest on the NodeHeavy shapes' constants, all zeros, which the
// decoder shares.
func FlatDistinct() Shape {
	return Shape{Name: "flat200k-distinct", File: "frozen_graph.pb", Bytes: func() []byte { return FlatGraphDefDistinct(FlatNodes) }}
}

// distinctConst is constNode with float values of its own: the bits of a
// hash of its name and of each value's index.
func distinctConst(name string, n int) *nodepb.NodeDef {
	nd := constNode(name, n)
	h := uint32(2166136261)
	for i := 0; i < len(name); i++ {
		h = (h ^ uint32(name[i])) * 16777619
	}
	content := nd.Attr["value"].GetTensor().TensorContent
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint32(content[4*i:], h+uint32(i))
	}
	return nd
}

// Write writes the shape's bytes into dir and returns the path to load
// (the file of a GraphDef, the directory of a SavedModel) and the file.
func (s Shape) Write(dir string) (path, file string, err error) {
	file = filepath.Join(dir, s.File)
	path = file
	if s.File == "saved_model.pb" {
		path = dir
	}
	return path, file, os.WriteFile(file, s.Bytes(), 0o644)
}

func marshal(m proto.Message) []byte {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}
