package reports

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"
)

func compileSchema(t *testing.T, url string, doc []byte) *jsonschema.Schema {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	require.NoError(t, c.AddResource(url, v))
	s, err := c.Compile(url)
	require.NoError(t, err)
	return s
}

func validate(t *testing.T, s *jsonschema.Schema, doc []byte) error {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	require.NoError(t, err)
	return s.Validate(v)
}

// Every JSON golden must satisfy the embedded report schema.
func TestJSONGoldensMatchSchema(t *testing.T) {
	s := compileSchema(t, "report.schema.json", Schema())
	for _, name := range []string{"fixture.json", "empty.json", "errors.json"} {
		f := filepath.Join("testdata", "golden", name)
		doc, err := os.ReadFile(f)
		require.NoError(t, err)
		require.NoError(t, validate(t, s, doc), f)
	}
}

// The schema must reject what a consumer could not read: it is not a
// schema that accepts everything.
func TestSchemaRejectsBadReports(t *testing.T) {
	s := compileSchema(t, "report.schema.json", Schema())
	var good bytes.Buffer
	require.NoError(t, WriteJSON(&good, fixture()))
	require.NoError(t, validate(t, s, good.Bytes()))
	for name, mutate := range map[string]func(m map[string]any){
		"wrong version":   func(m map[string]any) { m["schema_version"] = 1 },
		"null models":     func(m map[string]any) { m["models"] = nil },
		"missing tool":    func(m map[string]any) { delete(m, "tool") },
		"null uncovered":  func(m map[string]any) { target(m)["uncovered"] = nil },
		"negative count":  func(m map[string]any) { target(m)["coverage"].(map[string]any)["nodes_total"] = -1 },
		"bad reason code": func(m map[string]any) { target(m)["nodes"].([]any)[0].(map[string]any)["reason"] = "No Kernel" },
		"error without class": func(m map[string]any) {
			m["errors"] = []any{map[string]any{"path": "m", "message": "m: bad"}}
		},
		"null errors": func(m map[string]any) { m["errors"] = nil },
		"shard 0": func(m map[string]any) {
			m["options"].(map[string]any)["shard"] = map[string]any{"index": 0, "count": 2}
		},
		"bad hash": func(m map[string]any) { m["options"].(map[string]any)["registries"] = []any{"md5:00"} },
	} {
		t.Run(name, func(t *testing.T) {
			var m map[string]any
			require.NoError(t, json.Unmarshal(good.Bytes(), &m))
			mutate(m)
			doc, err := json.Marshal(m)
			require.NoError(t, err)
			require.Error(t, validate(t, s, doc))
		})
	}
}

func target(m map[string]any) map[string]any {
	return m["models"].([]any)[1].(map[string]any)["targets"].([]any)[0].(map[string]any)
}

// The SARIF goldens must satisfy the official OASIS SARIF 2.1.0 schema.
func TestSARIFGoldensMatchOASISSchema(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("testdata", "sarif", "sarif-schema-2.1.0.json"))
	require.NoError(t, err)
	s := compileSchema(t, "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json", doc)
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.sarif.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		got, err := os.ReadFile(f)
		require.NoError(t, err)
		require.NoError(t, validate(t, s, got), f)
	}
}
