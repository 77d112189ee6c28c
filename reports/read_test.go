package reports

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

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
