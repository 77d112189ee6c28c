package jsonout

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/reports/reportstest"
)

// The streamed JSON, reindented, is byte for byte what encoding/json
// writes for the whole report at once, whatever is empty or absent; every
// node entry is one line.
func TestWriteJSONIsEncodingJSON(t *testing.T) {
	withEmpties := reportstest.Fixture()
	withEmpties.Models = append(withEmpties.Models, &reports.Model{Path: "models/empty"},
		&reports.Model{Path: "models/bare", Targets: []*reports.Target{{Target: "musa"}}})
	withEmpties.Errors = []reports.ScanError{{Path: "models/bad", Message: "models/bad: no", Class: reports.ErrorClassModel}}
	quoted := reportstest.Big(50)
	quoted.Models[0].Targets[0].Nodes[3].Path = `a "nodes": [] b`
	quoted.Models[0].Targets[0].Uncovered[0].Nodes = []string{"\n    \"nodes\": []"}
	for name, r := range map[string]*reports.Report{
		"fixture":      reportstest.Fixture(),
		"empty":        {Tool: reports.Tool{Name: "tfscan", Version: "test"}},
		"with empties": withEmpties,
		"quoted keys":  quoted,
		"big":          reportstest.Big(3000),
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
	err := WriteJSON(&failingWriter{after: 100 << 10}, reportstest.Big(3000))
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
