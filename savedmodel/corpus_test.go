package savedmodel

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLoadCorpus loads every model of ../shared/corpus with the format and
// node counts corpus/README.md lists.
func TestLoadCorpus(t *testing.T) {
	tests := []struct {
		path         string
		format       Format
		nodes, funcs int
		sigs         int
		variables    bool
		assets       []string
	}{
		{"tf/sm_half_plus_two_v1", FormatSavedModel, 65, 0, 6, true, []string{"foo.txt"}},
		{"tf/sm_half_plus_two_pbtxt", FormatSavedModelText, 65, 0, 6, true, []string{"foo.txt"}},
		{"tf/sm_simple_while_loop", FormatSavedModel, 7, 40, 2, true, nil},
		{"tf/sm_static_hashtable", FormatSavedModel, 21, 35, 2, true, []string{"static_hashtable_asset.txt"}},
		{"tf/sm_x_plus_y_debuginfo", FormatSavedModel, 8, 22, 2, true, nil},
		{"tf/gd_if_op/if_op.pbtxt", FormatGraphDefText, 10, 4, 0, false, nil},
		{"tf/gd_lstm_layer_inference/lstm_layer_inference.pbtxt", FormatGraphDefText, 312, 0, 0, false, nil},
		{"tf/gd_keras_imagenet_train/keras_imagenet_main.pbtxt", FormatGraphDefText, 2853, 106, 0, false, nil},
		{"tf/gd_unknown_op/test_graph_tfunknownop.pbtxt", FormatGraphDefText, 6, 0, 0, false, nil},
		{"tf/mg_text_in_dot_pb/metrics_export_meta_graph.pb", FormatMetaGraphText, 35, 0, 0, false, nil},
		{"tfjs/emotion", FormatTFJS, 45, 0, 0, false, nil},
		{"tfjs/meet", FormatTFJS, 407, 0, 1, false, nil},
		{"tfjs/mobilefacenet", FormatTFJS, 359, 0, 0, false, nil},
		{"tfjs/centernet", FormatTFJS, 544, 0, 1, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			p := sharedDir(t, "corpus", filepath.FromSlash(tt.path))
			m, err := Load(p)
			require.NoError(t, err)
			assert.Equal(t, tt.format, m.Format)
			assert.Equal(t, p, m.Path)
			require.Len(t, m.MetaGraphs, 1)
			nodes, funcs := countNodes(m)
			assert.Equal(t, tt.nodes, nodes, "graph nodes")
			assert.Equal(t, tt.funcs, funcs, "function nodes")
			assert.Len(t, m.MetaGraphs[0].Signatures, tt.sigs)
			if tt.variables {
				assert.Equal(t, filepath.Join(p, "variables", "variables"), m.VariablesPrefix)
			} else {
				assert.Empty(t, m.VariablesPrefix)
			}
			assert.Equal(t, tt.assets, m.Assets)
		})
	}
}

func TestLoadCorpusBad(t *testing.T) {
	tests := []struct {
		path string
		file string
		want string
	}{
		{"tf/gd_malformed/graph-malformed.pbtxt", "graph-malformed.pbtxt",
			`: not a model: text proto syntax error: line 3:1: unknown field: this ("this" is no field of SavedModel, MetaGraphDef or GraphDef)`},
		{"tf/sm_fuzz_const_no_value", "saved_model.pb", `: node "Assign/value" (Const) has no "value" attr`},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			p := sharedDir(t, "corpus", filepath.FromSlash(tt.path))
			_, err := Load(p)
			require.Error(t, err)
			var e *Error
			require.True(t, errors.As(err, &e))
			assert.Equal(t, tt.file, filepath.Base(e.File))
			assert.Equal(t, e.File+tt.want, err.Error())
			assert.NotContains(t, err.Error(), "\n")
		})
	}
}

// TestHalfPlusTwoSignatures checks the six signatures of the canonical TF1
// SavedModel, sorted by key, with their inputs and outputs.
func TestHalfPlusTwoSignatures(t *testing.T) {
	for _, dir := range []string{"sm_half_plus_two_v1", "sm_half_plus_two_pbtxt"} {
		t.Run(dir, func(t *testing.T) {
			m, err := Load(sharedDir(t, "corpus", "tf", dir))
			require.NoError(t, err)
			mg := m.MetaGraphs[0]
			assert.Equal(t, []string{"serve"}, mg.Tags)
			type io struct{ key, name string }
			type sig struct {
				key, method string
				in, out     []io
			}
			var got []sig
			for _, s := range mg.Signatures {
				g := sig{key: s.Key, method: s.Method}
				for _, ti := range s.Inputs {
					g.in = append(g.in, io{ti.Key, ti.Name})
				}
				for _, ti := range s.Outputs {
					g.out = append(g.out, io{ti.Key, ti.Name})
				}
				got = append(got, g)
			}
			want := []sig{
				{"classify_x2_to_y3", "tensorflow/serving/classify", []io{{"inputs", "x2:0"}}, []io{{"scores", "y3:0"}}},
				{"classify_x_to_y", "tensorflow/serving/classify", []io{{"inputs", "tf_example:0"}}, []io{{"scores", "y:0"}}},
				{"regress_x2_to_y3", "tensorflow/serving/regress", []io{{"inputs", "x2:0"}}, []io{{"outputs", "y3:0"}}},
				{"regress_x_to_y", "tensorflow/serving/regress", []io{{"inputs", "tf_example:0"}}, []io{{"outputs", "y:0"}}},
				{"regress_x_to_y2", "tensorflow/serving/regress", []io{{"inputs", "tf_example:0"}}, []io{{"outputs", "y2:0"}}},
				{"serving_default", "tensorflow/serving/predict", []io{{"x", "x:0"}}, []io{{"y", "y:0"}}},
			}
			assert.Equal(t, want, got)

			in := mg.Signatures[1].Inputs[0] // classify_x_to_y
			assert.Equal(t, tpb.DataType_DT_STRING, in.DType)
			assert.True(t, in.UnknownRank)
			assert.Nil(t, in.Shape)
			out := mg.Signatures[1].Outputs[0]
			assert.Equal(t, tpb.DataType_DT_FLOAT, out.DType)
			assert.False(t, out.UnknownRank)
			assert.Equal(t, []int64{-1, 1}, out.Shape)
		})
	}
}

// TestTFJSCorpusWeights checks that every weight of the corpus TF.js models
// decodes to the element count and dtype its manifest declares, and that
// every Const has its weight.
func TestTFJSCorpusWeights(t *testing.T) {
	for _, name := range []string{"centernet", "emotion", "meet", "mobilefacenet"} {
		t.Run(name, func(t *testing.T) {
			dir := sharedDir(t, "corpus", "tfjs", name)
			m, err := Load(dir)
			require.NoError(t, err)
			manifest := readManifest(t, filepath.Join(dir, "model.json"))
			require.Len(t, m.Weights, len(manifest))
			for _, spec := range manifest {
				w := m.Weights[spec.Name]
				require.NotNil(t, w, spec.Name)
				n := int64(1)
				for _, d := range spec.Shape {
					n *= d
				}
				assert.Equal(t, spec.Shape, w.Shape, spec.Name)
				dt := tfjsDTypes[spec.DType]
				assert.Equal(t, dt.dt, w.DType, spec.Name)
				assert.Equal(t, n*int64(dt.size), int64(len(w.Data)), spec.Name)
			}
			// The weights fill the shard exactly.
			var need int64
			for _, spec := range manifest {
				n := int64(1)
				for _, d := range spec.Shape {
					n *= d
				}
				size := int64(tfjsDTypes[spec.DType].size)
				if spec.Quantization != nil {
					size = int64(tfjsQuantSizes[spec.Quantization.DType])
				}
				need += n * size
			}
			fi, err := os.Stat(filepath.Join(dir, name+".bin"))
			require.NoError(t, err)
			assert.Equal(t, fi.Size(), need)
			for _, n := range m.MetaGraphs[0].Def.GetGraphDef().GetNode() {
				if n.GetOp() == "Const" {
					assert.Contains(t, m.Weights, n.GetName())
				}
				assert.NotEqual(t, TFJSFusedDepthwiseConv2d, n.GetOp())
			}
		})
	}
}

// readManifest returns every weight entry of a model.json's manifest.
func readManifest(t *testing.T, file string) []tfjsWeightEntry {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	var mj tfjsModel
	require.NoError(t, json.Unmarshal(b, &mj))
	var out []tfjsWeightEntry
	for _, g := range mj.WeightsManifest {
		out = append(out, g.Weights...)
	}
	return out
}
