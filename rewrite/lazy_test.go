package rewrite

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"

	"github.com/tfscan/tfscan/kernels"
	"github.com/tfscan/tfscan/savedmodel"
)

// A model whose large constants the load left in its file
// (savedmodel/lazy.go) is rewritten and written with those constants
// byte for byte: rewrite reads them before it copies the model.
func TestRewriteLazilyLoadedModel(t *testing.T) {
	const n = 300_000 // 1.2 MB of float32: the file is loaded lazily
	vals := make([]float32, n)
	for i := range vals {
		vals[i] = float32(i%1000) / 7
	}
	nodes := []*nodepb.NodeDef{
		ph("x", f32, 3, 11),
		node("y", "Relu6", []string{"x"}, attrs{"T": typeAttr(f32)}),
		cst("w", kernels.FloatTensor([]int{n}, vals)),
		node("wid", "Identity", []string{"w"}, attrs{"T": typeAttr(f32)}),
	}
	want := nodes[2].GetAttr()["value"].GetTensor().GetTensorContent()
	require.Len(t, want, 4*n)
	b, err := proto.Marshal(modelOf(nodes...).MetaGraphs[0].Def.GetGraphDef())
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "model.pb")
	require.NoError(t, os.WriteFile(file, b, 0o644))

	m, err := savedmodel.Load(file)
	require.NoError(t, err)
	require.Equal(t, 1, m.LazyContents(), "the constant is left in the file")
	res := planModel(t, m, "Relu6")
	require.Len(t, res.MetaGraphs[0].Applications, 1)
	_, err = Prove(context.Background(), res.MetaGraphs[0], ProofOptions{Seed: 1, Dim: 4})
	require.NoError(t, err)

	out := filepath.Join(t.TempDir(), "out.pb")
	require.NoError(t, savedmodel.Write(res.Model, out))
	back, err := savedmodel.Load(out)
	require.NoError(t, err)
	require.NoError(t, back.Materialize())
	var got []byte
	for _, nd := range back.MetaGraphs[0].Def.GetGraphDef().GetNode() {
		if nd.GetName() == "w" {
			got = nd.GetAttr()["value"].GetTensor().GetTensorContent()
		}
	}
	assert.Equal(t, want, got)
}
