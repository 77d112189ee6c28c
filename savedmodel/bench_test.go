package savedmodel

import (
	"fmt"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/proto"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	gpb "github.com/wamuir/graft/tensorflow/core/framework/graph_go_proto"
	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"
	tensorpb "github.com/wamuir/graft/tensorflow/core/framework/tensor_go_proto"
	shapepb "github.com/wamuir/graft/tensorflow/core/framework/tensor_shape_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/internal/benchmodel"
)

// BenchmarkLoadBinaryLarge loads a binary GraphDef of 200k nodes, a fifth
// of them Consts with 4 KiB payloads (about 160 MiB).
func BenchmarkLoadBinaryLarge(b *testing.B) {
	gd := &gpb.GraphDef{}
	payload := make([]byte, 4096)
	for i := 0; i < 200_000; i++ {
		name := fmt.Sprintf("n%d", i)
		if i%5 == 0 {
			gd.Node = append(gd.Node, &nodepb.NodeDef{Name: name, Op: "Const", Attr: map[string]*attrpb.AttrValue{
				"dtype": {Value: &attrpb.AttrValue_Type{Type: tpb.DataType_DT_FLOAT}},
				"value": {Value: &attrpb.AttrValue_Tensor{Tensor: &tensorpb.TensorProto{
					Dtype:         tpb.DataType_DT_FLOAT,
					TensorShape:   &shapepb.TensorShapeProto{Dim: []*shapepb.TensorShapeProto_Dim{{Size: 1024}}},
					TensorContent: payload,
				}}},
			}})
			continue
		}
		gd.Node = append(gd.Node, &nodepb.NodeDef{Name: name, Op: "AddV2", Input: []string{fmt.Sprintf("n%d", i-1), fmt.Sprintf("n%d", i-i%5)},
			Attr: map[string]*attrpb.AttrValue{"T": {Value: &attrpb.AttrValue_Type{Type: tpb.DataType_DT_FLOAT}}}})
	}
	data, err := proto.Marshal(gd)
	if err != nil {
		b.Fatal(err)
	}
	file := filepath.Join(b.TempDir(), "large.pb")
	if err := writeBench(file, data); err != nil {
		b.Fatal(err)
	}
	b.Run("Load", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for i := 0; i < b.N; i++ {
			if _, err := Load(file); err != nil {
				b.Fatal(err)
			}
		}
	})
	// Load against a bare proto.Unmarshal of the same bytes, interleaved
	// in one run; goal: Load/Unmarshal below 1.
	b.Run("Ratio", func(b *testing.B) {
		benchmodel.Compare(b,
			benchmodel.Step{Name: "Unmarshal", Run: func() {
				if err := proto.Unmarshal(data, &gpb.GraphDef{}); err != nil {
					b.Fatal(err)
				}
			}},
			benchmodel.Step{Name: "Load", Run: func() {
				if _, err := Load(file); err != nil {
					b.Fatal(err)
				}
			}},
		)
	})
}

// BenchmarkLoadTextKeras loads the largest corpus text GraphDef (1.4 MB).
func BenchmarkLoadTextKeras(b *testing.B) {
	file := filepath.Join(sharedDir(b, "corpus", "tf", "gd_keras_imagenet_train"), "keras_imagenet_main.pbtxt")
	for i := 0; i < b.N; i++ {
		if _, err := Load(file); err != nil {
			b.Fatal(err)
		}
	}
}
