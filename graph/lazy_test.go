package graph

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	fpb "github.com/wamuir/graft/tensorflow/core/framework/function_go_proto"
	gpb "github.com/wamuir/graft/tensorflow/core/framework/graph_go_proto"
	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"
	opdefpb "github.com/wamuir/graft/tensorflow/core/framework/op_def_go_proto"
	tensorpb "github.com/wamuir/graft/tensorflow/core/framework/tensor_go_proto"
	shapepb "github.com/wamuir/graft/tensorflow/core/framework/tensor_shape_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"

	"github.com/tfscan/tfscan/savedmodel"
)

// A library holding a function twice compares the two copies by their
// constants also when a lazy load left them in the file
// (savedmodel/lazy.go): equal copies are one function, different ones
// are refused as TensorFlow refuses them.
func TestDuplicateFunctionLazyConstants(t *testing.T) {
	fn := func(c []byte) *fpb.FunctionDef {
		return &fpb.FunctionDef{Signature: &opdefpb.OpDef{Name: "f",
			OutputArg: []*opdefpb.OpDef_ArgDef{{Name: "y", Type: tpb.DataType_DT_UINT8}}},
			NodeDef: []*nodepb.NodeDef{{Name: "c", Op: "Const", Attr: map[string]*attrpb.AttrValue{
				"dtype": {Value: &attrpb.AttrValue_Type{Type: tpb.DataType_DT_UINT8}},
				"value": {Value: &attrpb.AttrValue_Tensor{Tensor: &tensorpb.TensorProto{Dtype: tpb.DataType_DT_UINT8,
					TensorShape:   &shapepb.TensorShapeProto{Dim: []*shapepb.TensorShapeProto_Dim{{Size: int64(len(c))}}},
					TensorContent: c}}},
			}}},
			Ret: map[string]string{"y": "c:output:0"},
		}
	}
	for _, tc := range []struct {
		name  string
		other func(c []byte) []byte
		fatal bool
	}{
		{"equal copies", func(c []byte) []byte { return c }, false},
		{"different copies", func(c []byte) []byte { d := append([]byte(nil), c...); d[7] ^= 1; return d }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := make([]byte, 600<<10)
			for i := range c {
				c[i] = byte(i * 13)
			}
			sm := &mgpb.SavedModel{MetaGraphs: []*mgpb.MetaGraphDef{{GraphDef: &gpb.GraphDef{
				Library: &fpb.FunctionDefLibrary{Function: []*fpb.FunctionDef{fn(c), fn(tc.other(c))}}}}}}
			b, err := proto.Marshal(sm)
			require.NoError(t, err)
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "saved_model.pb"), b, 0o644))
			m, err := savedmodel.Load(dir)
			require.NoError(t, err)
			require.Equal(t, 2, m.LazyContents())
			_, err = Build(m, m.MetaGraphs[0])
			if !tc.fatal {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), "Cannot add function 'f' because a different function with the same name already exists.")
		})
	}
}
