package format

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/reports/reportstest"
	"github.com/tfscan/tfscan/reports/table"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// checkGolden compares got with testdata/golden/name, or rewrites it with -update.
// An HTML page is stored with its stylesheet and script replaced by markers
// (htmlAssetMarkers), so that a change to html/report.css or report.js
// changes no golden page.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	if strings.HasSuffix(name, ".html") {
		got = htmlAssetMarkers(t, got)
	}
	file := filepath.Join("testdata", "golden", name)
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
		require.NoError(t, os.WriteFile(file, got, 0o644))
		return
	}
	want, err := os.ReadFile(file)
	require.NoError(t, err, "run 'go test ./reports/format -update' to create it")
	if !bytes.Equal(want, got) {
		t.Errorf("golden %s differs (rerun with -update if the change is intended):\n%s", file, firstDiff(string(want), string(got)))
	}
}

// htmlAssetMarkers checks that page inlines reports/html's report.css and
// report.js once each, byte for byte, as its <style> and <script>
// elements, and returns it with them replaced by the markers
// "/* html/report.css */" and "/* html/report.js */".
func htmlAssetMarkers(t *testing.T, page []byte) []byte {
	t.Helper()
	for _, a := range []struct{ file, open, close string }{
		{"html/report.css", "<style>", "</style>"},
		{"html/report.js", "<script>", "</script>"},
	} {
		asset, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(a.file)))
		require.NoError(t, err)
		inlined := []byte(a.open + string(asset) + a.close)
		require.Equal(t, 1, bytes.Count(page, inlined), "the page inlines %s once", a.file)
		page = bytes.Replace(page, inlined, []byte(a.open+"/* "+a.file+" */"+a.close), 1)
	}
	return page
}

// writeGolden writes r in format, compares it with the golden name.EXT
// (checkGolden) and returns what it wrote.
func writeGolden(t *testing.T, format, name string, r *reports.Report) []byte {
	t.Helper()
	w, err := Writer(format)
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, w(&b, r))
	checkGolden(t, name+"."+ext(format), b.Bytes())
	return b.Bytes()
}

// firstDiff shows the first differing line with a little context, instead of
// two whole documents.
func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\n  want: %q\n  got:  %q", i+1, w, g)
		}
	}
	return "(no line differs)"
}

func TestWritersGolden(t *testing.T) {
	for _, format := range Formats() {
		t.Run(format, func(t *testing.T) {
			w, err := Writer(format)
			require.NoError(t, err)
			var a, b bytes.Buffer
			require.NoError(t, w(&a, reportstest.Fixture()))
			require.NoError(t, w(&b, reportstest.Fixture()))
			require.Equal(t, a.String(), b.String(), "output must be deterministic")
			checkGolden(t, "fixture."+ext(format), a.Bytes())
			writeGolden(t, format, "empty", &reports.Report{Tool: reports.Tool{Name: "tfscan", Version: "0.1.0-test"}})
			writeGolden(t, format, "errors", reportstest.Errors())
			writeGolden(t, format, "training", reportstest.Training())
		})
	}
}

func ext(format string) string {
	switch format {
	case "table":
		return "txt"
	case "markdown":
		return "md"
	case "junit":
		return "xml"
	case "sarif":
		return "sarif.json"
	}
	return format
}

// TestTableVerboseGolden: -v shows every section of every model, uncut.
func TestTableVerboseGolden(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, table.TableWriter(table.TableOptions{Verbose: true})(&b, reportstest.Fixture()))
	checkGolden(t, "fixture_verbose.txt", b.Bytes())
	assert.Contains(t, b.String(), "model/debug/write <script>: writes files on the serving host", "nothing is cut")
}
