package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/reports"
)

func TestParseFormats(t *testing.T) {
	specs, err := parseFormats(nil)
	require.NoError(t, err)
	require.Equal(t, []outputSpec{{format: "table"}}, specs)

	specs, err = parseFormats([]string{"json", "html=r.html", "sarif=-"})
	require.Error(t, err, "json and sarif=- both go to stdout")
	require.Equal(t, ExitUsage, exitCode(err))

	specs, err = parseFormats([]string{"json=a.json", "html=r.html", "markdown"})
	require.NoError(t, err)
	require.Equal(t, []outputSpec{{"json", "a.json"}, {"html", "r.html"}, {"markdown", ""}}, specs)

	for _, bad := range []string{"yaml", "json=", "=x", ""} {
		_, err := parseFormats([]string{bad})
		require.Error(t, err, bad)
		require.Equal(t, ExitUsage, exitCode(err), bad)
	}
}

func TestWriteReports(t *testing.T) {
	dir := t.TempDir()
	var stdout bytes.Buffer
	e := &env{stdout: &stdout, stderr: &bytes.Buffer{}, wd: dir, getenv: func(string) string { return "" }}
	rep := &reports.Report{Tool: reports.Tool{Name: "tfscan", Version: "test"}}
	require.NoError(t, writeReports(e, []string{"markdown", "json=sub/r.json"}, rep))
	require.True(t, strings.HasPrefix(stdout.String(), "## tfscan report"))
	data, err := os.ReadFile(filepath.Join(dir, "sub", "r.json"))
	require.NoError(t, err)
	require.Contains(t, string(data), `"schema_version": 2`)

	// A file that cannot be written is an error and nothing is half written.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "file"), nil, 0o644))
	err = writeReports(e, []string{"json=file/r.json"}, rep)
	require.Error(t, err)
	require.Equal(t, ExitUsage, exitCode(err))
}

func TestProgress(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b)
	p(1, 4)
	require.Contains(t, b.String(), "scanning models")
	require.Contains(t, b.String(), "(1/4)")
	p(4, 4)
	require.True(t, strings.HasSuffix(b.String(), "\033[2K\r"), "the bar is erased when done")

	// Not a terminal, or CI set: no bar.
	e := &env{stderr: &b, getenv: func(string) string { return "" }}
	require.Nil(t, progressBar(e))
	e = &env{stderr: os.Stderr, getenv: func(k string) string {
		if k == "CI" {
			return "true"
		}
		return ""
	}}
	require.Nil(t, progressBar(e))
}
