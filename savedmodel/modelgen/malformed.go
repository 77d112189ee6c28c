package modelgen

import (
	"fmt"
	"os"
	"path/filepath"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	gpb "github.com/wamuir/graft/tensorflow/core/framework/graph_go_proto"
	shapepb "github.com/wamuir/graft/tensorflow/core/framework/tensor_shape_go_proto"
	"google.golang.org/protobuf/proto"
)

// Malformed is a model with a tensor or shape tfscan refuses as it reads the
// file (savedmodel/validate.go), before any graph is built: a Const without
// its value, a tensor_content of the wrong size, a negative or absurd
// dimension. Everything else in it is one of the generated models.
type Malformed struct {
	// Name is the file (a binary GraphDef, "*.pb") or the SavedModel
	// directory that WriteMalformed writes.
	Name string
	// Where names what is malformed: `node "x"` or `function "f": node
	// "x"`.
	Where string
	// Model is the GraphDef or SavedModel.
	Model proto.Message
}

// File is where WriteMalformed puts m, relative to its directory.
func (m Malformed) File() string {
	if filepath.Ext(m.Name) == ".pb" {
		return m.Name
	}
	return filepath.Join(m.Name, "saved_model.pb")
}

// WriteMalformed writes every malformed model under dir.
func WriteMalformed(dir string) error {
	for _, m := range MalformedModels() {
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m.Model)
		if err != nil {
			return fmt.Errorf("%s: %w", m.Name, err)
		}
		p := filepath.Join(dir, m.File())
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// MalformedModels returns the malformed models in a fixed order.
func MalformedModels() []Malformed {
	constShape := func(name string, dims ...int64) *gpb.GraphDef {
		gd := ConvNetGraphDef()
		for _, n := range gd.GetNode() {
			if n.GetName() == name {
				n.GetAttr()["value"].GetTensor().TensorShape = shape(dims...)
			}
		}
		return gd
	}
	// A Const nothing consumes, so that TensorFlow's shape inference of
	// its consumers does not meet the bad shape first.
	extraConst := func(dims []int64, content int) *gpb.GraphDef {
		gd := ConvNetGraphDef()
		t := f32Tensor([]int64{4}, []float32{1, 2, 3, 4})
		t.TensorShape = shape(dims...)
		t.TensorContent = t.TensorContent[:content]
		gd.Node = append(gd.Node, constNode("unused", t))
		return gd
	}
	noValue := ConvNetGraphDef()
	delete(noValue.Node[1].Attr, "value")

	fnNoValue := WhileSavedModel()
	delete(fnNoValue.MetaGraphs[0].GraphDef.Library.Function[1].NodeDef[0].Attr, "value")

	placeholder := func(dims ...int64) *gpb.GraphDef {
		gd := ConvNetGraphDef()
		sh := &shapepb.TensorShapeProto{}
		for _, d := range dims {
			sh.Dim = append(sh.Dim, &shapepb.TensorShapeProto_Dim{Size: d})
		}
		gd.Node[0].Attr["shape"] = &attrpb.AttrValue{Value: &attrpb.AttrValue_Shape{Shape: sh}}
		return gd
	}
	return []Malformed{
		{"const_without_value.pb", `node "conv1/weights"`, noValue},
		{"function_const_without_value", `function "while_cond_8": node "Less/y"`, fnNoValue},
		{"const_absurd_shape.pb", `node "unused"`, extraConst([]int64{1 << 62}, 16)},
		{"const_unknown_dim.pb", `node "conv1/bias"`, constShape("conv1/bias", -1)},
		{"const_content_size.pb", `node "unused"`, extraConst([]int64{4}, 12)},
		{"placeholder_negative_dim.pb", `node "x"`, placeholder(-1, -7)},
		{"placeholder_absurd_dim.pb", `node "x"`, placeholder(1, 1<<50, 8, 1)},
	}
}
