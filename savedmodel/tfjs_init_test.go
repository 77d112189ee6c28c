package savedmodel

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A TF.js model whose table is filled by model.json's modelInitializer
// graph (as the converter writes a TF1 table): the loader merges that
// graph, sharing the table node the main graph names too, and names a NoOp
// over it as the meta graph's main op; Write puts modelTopology back
// without it.
func TestTFJSModelInitializer(t *testing.T) {
	const table = `{"name": "hash_table", "op": "HashTableV2", "attr": {"key_dtype": {"type": "DT_STRING"}, "value_dtype": {"type": "DT_FLOAT"}, "shared_name": {"s": "dA=="}}}`
	mj := `{"format": "graph-model",
 "modelTopology": {"node": [
  {"name": "key", "op": "Placeholder", "attr": {"dtype": {"type": "DT_STRING"}}},
  ` + table + `,
  {"name": "default", "op": "Const", "attr": {"dtype": {"type": "DT_FLOAT"}, "value": {"tensor": {"dtype": "DT_FLOAT", "tensorShape": {}}}}},
  {"name": "find", "op": "LookupTableFindV2", "input": ["hash_table", "key", "default"], "attr": {"Tin": {"type": "DT_STRING"}, "Tout": {"type": "DT_FLOAT"}}}
 ]},
 "modelInitializer": {"node": [
  {"name": "keys", "op": "Const", "attr": {"dtype": {"type": "DT_STRING"}, "value": {"tensor": {"dtype": "DT_STRING", "tensorShape": {"dim": [{"size": "1"}]}}}}},
  {"name": "vals", "op": "Const", "attr": {"dtype": {"type": "DT_FLOAT"}, "value": {"tensor": {"dtype": "DT_FLOAT", "tensorShape": {"dim": [{"size": "1"}]}}}}},
  ` + table + `,
  {"name": "import", "op": "LookupTableImportV2", "input": ["hash_table", "keys", "vals"], "attr": {"Tin": {"type": "DT_STRING"}, "Tout": {"type": "DT_FLOAT"}}}
 ]},
 "weightsManifest": []}`
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "model.json"), []byte(mj), 0o644))
	m, err := Load(dir)
	require.NoError(t, err)
	def := m.MetaGraphs[0].Def
	var names []string
	for _, n := range def.GetGraphDef().GetNode() {
		names = append(names, n.GetName())
	}
	assert.Equal(t, []string{"key", "hash_table", "default", "find", "keys", "vals", "import", TFJSInitOp}, names)
	init := def.GetGraphDef().GetNode()[len(names)-1]
	assert.Equal(t, []string{"^keys", "^vals", "^hash_table", "^import"}, init.GetInput())
	assert.Equal(t, []string{TFJSInitOp}, def.GetCollectionDef()["saved_model_main_op"].GetNodeList().GetValue())

	out := filepath.Join(t.TempDir(), "out")
	require.NoError(t, Write(m, out))
	b, err := os.ReadFile(filepath.Join(out, "model.json"))
	require.NoError(t, err)
	topo := string(b)[:strings.Index(string(b), `"modelInitializer"`)]
	assert.NotContains(t, topo, TFJSInitOp)
	assert.NotContains(t, topo, `"import"`)
	assert.Contains(t, string(b), `"LookupTableImportV2"`, "modelInitializer is kept")
	back, err := Load(out)
	require.NoError(t, err)
	assert.Len(t, back.MetaGraphs[0].Def.GetGraphDef().GetNode(), len(names))

	// a node of the initializer's name with another op in the main graph
	bad := strings.Replace(mj, `{"name": "vals", "op": "Const"`, `{"name": "find", "op": "Const"`, 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "model.json"), []byte(bad), 0o644))
	_, err = Load(dir)
	assert.ErrorContains(t, err, "modelInitializer's node find is a Const, modelTopology's a LookupTableFindV2")
}
