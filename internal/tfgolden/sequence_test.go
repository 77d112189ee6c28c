package tfgolden

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/kernels"
)

func typ(dt tpb.DataType) *attrpb.AttrValue {
	return &attrpb.AttrValue{Value: &attrpb.AttrValue_Type{Type: dt}}
}

func ints(v ...int64) *attrpb.AttrValue {
	return &attrpb.AttrValue{Value: &attrpb.AttrValue_I{I: v[0]}}
}

// seqStep is a Step with literal inputs, links ("@s:o" as [2]int) and
// file inputs given in order.
func seqStep(op string, attrs map[string]*attrpb.AttrValue, in ...any) *Step {
	s := &Step{Op: op, Node: op, Attrs: attrs}
	for _, x := range in {
		link, file, lit := [2]int{-1, -1}, "", (*kernels.Tensor)(nil)
		switch v := x.(type) {
		case [2]int:
			link = v
		case string:
			file = v
		case *kernels.Tensor:
			lit = v
		}
		s.Inputs, s.Links, s.FileInputs = append(s.Inputs, lit), append(s.Links, link), append(s.FileInputs, file)
	}
	return s
}

// TestRunSteps runs sequence cases through the kernels: handles, TF1
// references, files and picked outputs reach the steps that use them.
func TestRunSteps(t *testing.T) {
	f32 := tpb.DataType_DT_FLOAT
	x := kernels.FloatTensor([]int{2}, []float32{1.5, -2})
	y := kernels.FloatTensor([]int{2}, []float32{0.25, 4})
	for _, tc := range []struct {
		name  string
		c     *Case
		want  []*kernels.Tensor
		error string
	}{
		{name: "resource variable assigned, updated and read", c: &Case{Steps: []*Step{
			seqStep("VarHandleOp", map[string]*attrpb.AttrValue{"dtype": typ(f32)}),
			seqStep("AssignVariableOp", map[string]*attrpb.AttrValue{"dtype": typ(f32)}, [2]int{0, 0}, x),
			seqStep("AssignAddVariableOp", map[string]*attrpb.AttrValue{"dtype": typ(f32)}, [2]int{0, 0}, y),
			seqStep("ReadVariableOp", map[string]*attrpb.AttrValue{"dtype": typ(f32)}, [2]int{0, 0}),
		}}, want: []*kernels.Tensor{kernels.FloatTensor([]int{2}, []float32{1.75, 2})}},
		{name: "a reference output reads as the variable's value", c: &Case{Steps: []*Step{
			seqStep("VariableV2", map[string]*attrpb.AttrValue{"dtype": typ(f32)}),
			seqStep("Assign", map[string]*attrpb.AttrValue{"T": typ(f32)}, [2]int{0, 0}, x),
		}}, want: []*kernels.Tensor{x}},
		{name: "an uninitialized reference", c: &Case{Steps: []*Step{
			seqStep("VariableV2", map[string]*attrpb.AttrValue{"dtype": typ(f32)}),
		}}, error: "uninitialized"},
		{name: "a file input", c: &Case{Files: map[string][]byte{"v.txt": []byte("a\nb\n")}, Steps: []*Step{
			seqStep("HashTableV2", map[string]*attrpb.AttrValue{"key_dtype": typ(tpb.DataType_DT_STRING), "value_dtype": typ(tpb.DataType_DT_INT64)}),
			seqStep("InitializeTableFromTextFileV2", map[string]*attrpb.AttrValue{"key_index": ints(-2), "value_index": ints(-1), "vocab_size": ints(-1)}, [2]int{0, 0}, "v.txt"),
			seqStep("LookupTableFindV2", nil, [2]int{0, 0}, &kernels.Tensor{DType: tpb.DataType_DT_STRING, Shape: []int{3}, Data: [][]byte{[]byte("b"), []byte("z"), []byte("a")}}, kernels.ScalarInt64(-1)),
		}}, want: []*kernels.Tensor{&kernels.Tensor{DType: tpb.DataType_DT_INT64, Shape: []int{3}, Data: []int64{1, -1, 0}}}},
		{name: "fetch picks an output", c: &Case{Fetch: []int{1}, Steps: []*Step{
			seqStep("TensorListFromTensor", map[string]*attrpb.AttrValue{"element_dtype": typ(f32)}, kernels.FloatTensor([]int{2, 1}, []float32{7, 8}), kernels.Int32Tensor([]int{1}, []int32{1})),
			seqStep("TensorListPopBack", map[string]*attrpb.AttrValue{"element_dtype": typ(f32)}, [2]int{0, 0}, kernels.Int32Tensor([]int{1}, []int32{1})),
		}}, want: []*kernels.Tensor{kernels.FloatTensor([]int{1}, []float32{8})}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Run(tc.c)
			if tc.error != "" {
				require.ErrorContains(t, err, tc.error)
				return
			}
			require.NoError(t, err)
			require.Len(t, got, len(tc.want))
			for i := range got {
				d, err := Compare(got[i], tc.want[i], Tol{})
				require.NoError(t, err)
				assert.True(t, d.Identical, "output %d: %v", i, got[i].Data)
			}
		})
	}
}

func TestReadStepLinks(t *testing.T) {
	s, err := readStep("ReadVariableOp", "", []string{"@0:0", "@file:vocab.txt"}, 1)
	require.NoError(t, err)
	assert.Equal(t, [2]int{0, 0}, s.Links[0])
	assert.Equal(t, "vocab.txt", s.FileInputs[1])
	for _, bad := range []string{"@1:0", "@0", "@x:0", "@0:-1"} {
		_, err := readStep("ReadVariableOp", "", []string{bad}, 1)
		assert.Error(t, err, bad)
	}
}
