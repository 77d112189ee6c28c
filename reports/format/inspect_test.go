package format

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/reports/jsonout"
	"github.com/tfscan/tfscan/reports/reportstest"
	"github.com/tfscan/tfscan/reports/table"
)

func TestInspectGolden(t *testing.T) {
	for _, tt := range []struct {
		name  string
		write func(*bytes.Buffer, *reports.InspectReport) error
	}{
		{"inspect.json", func(b *bytes.Buffer, r *reports.InspectReport) error { return jsonout.WriteInspectJSON(b, r) }},
		{"inspect.txt", func(b *bytes.Buffer, r *reports.InspectReport) error { return table.WriteInspectTable(b, r) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var a, b bytes.Buffer
			require.NoError(t, tt.write(&a, reportstest.Inspect()))
			require.NoError(t, tt.write(&b, reportstest.Inspect()))
			require.Equal(t, a.String(), b.String(), "output must be deterministic")
			checkGolden(t, tt.name, a.Bytes())
		})
	}
}

// The JSON keys the brief fixes must be there, with these exact names.
func TestInspectJSONKeys(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, jsonout.WriteInspectJSON(&buf, reportstest.Inspect()))
	var top map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(buf.Bytes(), &top))
	assert.Equal(t, "1", string(top["schema_version"]))
	var models []map[string]any
	require.NoError(t, json.Unmarshal(top["models"], &models))
	for _, k := range []string{"path", "format", "graph_nodes", "functions", "function_nodes", "op_types", "unknown_ops", "signatures"} {
		assert.Contains(t, models[0], k)
	}
}
