package rewrite

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"

	"github.com/tfscan/tfscan/kernels"
)

// lookupModel is a text model as a TF1 export of a vocabulary lookup is:
// a string Placeholder w looked up in a HashTableV2 that the model's main
// op fills from Consts ("cat", "dog", "fish" → 2, 4, 5; anything else -1),
// the ids cast to float and clipped by Relu6 (which the target lacks).
func lookupModel() []*nodepb.NodeDef {
	str, i64 := tpb.DataType_DT_STRING, tpb.DataType_DT_INT64
	return []*nodepb.NodeDef{
		ph("w", str, 6),
		node("table", "HashTableV2", nil, attrs{"key_dtype": typeAttr(str), "value_dtype": typeAttr(i64),
			"shared_name": strAttr("vocab"), "container": strAttr(""), "use_node_name_sharing": boolAttr(false)}),
		cst("keys", &kernels.Tensor{DType: str, Shape: []int{3}, Data: [][]byte{[]byte("cat"), []byte("dog"), []byte("fish")}}),
		cst("values", &kernels.Tensor{DType: i64, Shape: []int{3}, Data: []int64{2, 4, 5}}),
		node("import", "LookupTableImportV2", []string{"table", "keys", "values"}, attrs{"Tin": typeAttr(str), "Tout": typeAttr(i64)}),
		node("init", "NoOp", []string{"^import"}, nil),
		cst("default", &kernels.Tensor{DType: i64, Shape: []int{}, Data: []int64{-1}}),
		node("find", "LookupTableFindV2", []string{"table", "w", "default"}, attrs{"Tin": typeAttr(str), "Tout": typeAttr(i64)}),
		node("ids", "Cast", []string{"find"}, attrs{"SrcT": typeAttr(i64), "DstT": typeAttr(f32), "Truncate": boolAttr(false)}),
		node("y", "Relu6", []string{"ids"}, attrs{"T": typeAttr(f32)}),
	}
}

// TestProofStringInput proves a rewrite of a model fed strings: the
// seeded strings hold words of the model's own table, so the lookup
// finds them, and a wrong rewrite is caught. The corruption (Relu6's six
// made 1.5) changes only the ids of vocabulary words (2, 4, 5): an unknown
// word's -1 clips to 0 either way, so a proof fed made-up strings alone
// would pass it.
func TestProofStringInput(t *testing.T) {
	m := modelOf(lookupModel()...)
	m.MetaGraphs[0].Def.CollectionDef = map[string]*mgpb.CollectionDef{"saved_model_main_op": {Kind: &mgpb.CollectionDef_NodeList_{
		NodeList: &mgpb.CollectionDef_NodeList{Value: []string{"init"}}}}}
	r := planModel(t, m, "Relu6").MetaGraphs[0]
	require.Len(t, r.Applications, 1, "skipped: %+v", r.Skipped)
	assert.Equal(t, "decompose-relu6", r.Applications[0].Rule.Name)

	pr, err := Prove(context.Background(), r, ProofOptions{Seed: 1, Dim: 4})
	require.NoError(t, err)
	require.Len(t, pr.Runs, 1)
	assert.Equal(t, "the graph's outputs, seeded inputs (seed 1; strings: 3 words of the model's tables and made-up words)", pr.Runs[0].Name)
	assert.True(t, pr.Runs[0].Identical)
	require.Len(t, pr.Rules, 1)
	assert.Equal(t, 1, pr.Rules[0].Checks)

	setConst(t, r.Graph, "y/six", kernels.ScalarFloat(1.5))
	_, err = Prove(context.Background(), r, ProofOptions{Seed: 1, Dim: 4})
	var pe *ProofError
	require.True(t, errors.As(err, &pe), "%v", err)
	assert.Equal(t, "decompose-relu6", pe.Rule)
	assert.Equal(t, "y", pe.Node)
	assert.Contains(t, pe.Detail, "not bit-identical")
}
