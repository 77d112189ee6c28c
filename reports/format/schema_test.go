package format

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/reports/jsonout"
	"github.com/tfscan/tfscan/reports/reportstest"
)

// Every JSON golden must satisfy the embedded report schema.
func TestJSONGoldensMatchSchema(t *testing.T) {
	s := reportstest.CompileSchema(t, "report.schema.json", reports.Schema())
	for _, name := range []string{"fixture.json", "empty.json", "errors.json", "training.json"} {
		f := filepath.Join("testdata", "golden", name)
		doc, err := os.ReadFile(f)
		require.NoError(t, err)
		require.NoError(t, reportstest.Validate(t, s, doc), f)
	}
}

// The schema must reject what a consumer could not read: it is not a
// schema that accepts everything.
func TestSchemaRejectsBadReports(t *testing.T) {
	s := reportstest.CompileSchema(t, "report.schema.json", reports.Schema())
	var good bytes.Buffer
	require.NoError(t, jsonout.WriteJSON(&good, reportstest.Fixture()))
	require.NoError(t, reportstest.Validate(t, s, good.Bytes()))
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
			require.Error(t, reportstest.Validate(t, s, doc))
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
	s := reportstest.CompileSchema(t, "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json", doc)
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.sarif.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		got, err := os.ReadFile(f)
		require.NoError(t, err)
		require.NoError(t, reportstest.Validate(t, s, got), f)
	}
}
