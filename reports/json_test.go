package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The streamed JSON, reindented, is byte for byte what encoding/json
// writes for the whole report at once, whatever is empty or absent; every
// node entry is one line.
func TestWriteJSONIsEncodingJSON(t *testing.T) {
	withEmpties := fixture()
	withEmpties.Models = append(withEmpties.Models, &Model{Path: "models/empty"},
		&Model{Path: "models/bare", Targets: []*Target{{Target: "musa"}}})
	withEmpties.Errors = []ScanError{{Path: "models/bad", Message: "models/bad: no", Class: ErrorClassModel}}
	quoted := bigReport(50)
	quoted.Models[0].Targets[0].Nodes[3].Path = `a "nodes": [] b`
	quoted.Models[0].Targets[0].Uncovered[0].Nodes = []string{"\n    \"nodes\": []"}
	for name, r := range map[string]*Report{
		"fixture":      fixture(),
		"empty":        {Tool: Tool{Name: "tfscan", Version: "test"}},
		"with empties": withEmpties,
		"quoted keys":  quoted,
		"big":          bigReport(3000),
	} {
		t.Run(name, func(t *testing.T) {
			var got bytes.Buffer
			require.NoError(t, WriteJSON(&got, r))
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetIndent("", "  ")
			require.NoError(t, enc.Encode(r))
			var re bytes.Buffer
			require.NoError(t, json.Indent(&re, got.Bytes(), "", "  "))
			require.Equal(t, want.String(), re.String())
			lines := map[string]bool{}
			for _, l := range strings.Split(got.String(), "\n") {
				lines[strings.TrimSuffix(l, ",")] = true
			}
			for _, m := range r.Models {
				for _, tg := range m.Targets {
					for _, n := range tg.Nodes {
						b, err := json.Marshal(n)
						require.NoError(t, err)
						require.True(t, lines[strings.Repeat(" ", 12)+string(b)], "node %s on one line", n.Path)
					}
				}
			}
		})
	}
}

// A writer that fails part way is an error, not a silently short report.
func TestWriteJSONReportsWriteErrors(t *testing.T) {
	err := WriteJSON(&failingWriter{after: 100 << 10}, bigReport(3000))
	require.ErrorIs(t, err, errFull)
}

var errFull = errors.New("disk full")

type failingWriter struct{ after int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.after < len(p) {
		return 0, errFull
	}
	w.after -= len(p)
	return len(p), nil
}

func TestReadVersions(t *testing.T) {
	dir := t.TempDir()
	write := func(name, doc string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(doc), 0o644))
		return p
	}
	v1 := write("v1.json", `{"schema_version": 1, "tool": {"name": "tfscan", "version": "0.1"}, "models": []}`)
	v2 := write("v2.json", `{"schema_version": 2, "tool": {"name": "tfscan", "version": "0.2"}, "models": []}`)
	none := write("none.json", `{"tool": {"name": "tfscan", "version": "0.2"}, "models": []}`)
	v9 := write("v9.json", `{"schema_version": 9, "tool": {"name": "tfscan", "version": "9"}, "models": []}`)

	_, err := ReadJSON(v2)
	require.NoError(t, err)
	_, err = ReadJSON(v1)
	require.ErrorContains(t, err, "v1.json: report schema version 1; this tfscan reads reports of version 2 (rescan with this tfscan)")
	_, err = ReadJSON(none)
	require.ErrorContains(t, err, "report schema version 0")

	b, err := ReadAnyVersion(v1)
	require.NoError(t, err, "a version 1 baseline lists every node: the gate reads it")
	require.Equal(t, 1, b.SchemaVersion)
	_, err = ReadAnyVersion(v2)
	require.NoError(t, err)
	_, err = ReadAnyVersion(v9)
	require.ErrorContains(t, err, "this tfscan reads reports of version 1 to 2")
	require.False(t, strings.Contains(err.Error(), "\n"))
}
