package shape_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/graph/shape"
	"github.com/tfscan/tfscan/internal/testmodel"
	"github.com/tfscan/tfscan/internal/testutil"
)

// TestTFJSShapesMatchTFJS compares the inferred output 0 of every node of
// the TF.js corpus models with the shape TensorFlow.js itself computes
// running them. testdata/tfjs_MODEL.shapes holds, per node, the shape of
// output 0 as ../shared/oracle/run_model.js reports it (an independent
// implementation: `node run_model.js --model ../shared/corpus/tfjs/MODEL
// --out OUT --dump all --no-json-values --repeat 1`, unknown batch = 1,
// then "name AxBxC" per output and dump of OUT/result.json, sorted; "-"
// is a scalar). A TF.js graph keeps its constants in the weight shards,
// so every shape operand (Reshape's target, Mean's axes) is read there.
func TestTFJSShapesMatchTFJS(t *testing.T) {
	corpus := testutil.Corpus(t)
	for _, m := range []string{"emotion", "meet", "mobilefacenet", "centernet"} {
		t.Run(m, func(t *testing.T) {
			g := testmodel.Graph(t, filepath.Join(corpus, "tfjs", m))
			sh := shape.Infer(g, shape.Options{})
			byName := map[string]*graph.Node{}
			for _, n := range g.Nodes[:g.TopLevel] {
				byName[n.Name] = n
			}
			f, err := os.Open(filepath.Join("testdata", "tfjs_"+m+".shapes"))
			require.NoError(t, err)
			defer f.Close()
			checked := 0
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				name, dims, _ := strings.Cut(sc.Text(), " ")
				want := []int64{}
				if dims != "-" {
					for _, d := range strings.Split(dims, "x") {
						v, err := strconv.ParseInt(d, 10, 64)
						require.NoError(t, err)
						want = append(want, v)
					}
				}
				n := byName[name]
				require.NotNil(t, n, name)
				got, ok := sh.Output(n, 0)
				require.True(t, ok, name)
				require.True(t, got.Shape.FullyKnown(), "%s (%s): shape not inferred, TF.js has %v", name, n.Op, want)
				assert.Equal(t, want, got.Shape.Dims, "%s (%s)", name, n.Op)
				checked++
			}
			require.NoError(t, sc.Err())
			assert.Greater(t, checked, 20)
		})
	}
}

// An int64 Const of a TF.js model, whose weight the converter stores as
// int32 and the loader reads back as int64, keeps its values, as an int32
// one does (savedmodel/testdata/tfjs_dtypes/wide: the int64 variable
// [5, -6, 2^30]).
func TestTFJSInt64WeightValues(t *testing.T) {
	g := testmodel.Graph(t, filepath.Join(testutil.RepoRoot(), "savedmodel", "testdata", "tfjs_dtypes", "wide"))
	sh := shape.Infer(g, shape.Options{})
	var found bool
	for _, n := range g.Nodes[:g.TopLevel] {
		if n.Name == "StatefulPartitionedCall/add/ReadVariableOp" {
			out, ok := sh.Output(n, 0)
			require.True(t, ok)
			assert.Equal(t, []int64{5, -6, 1 << 30}, out.Value)
			found = true
		}
	}
	require.True(t, found)
}
