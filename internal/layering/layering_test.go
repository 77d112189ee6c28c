// Package layering checks that dependencies point one way: the domain
// packages never import the report writers or the command line, the op
// library never imports the executor that runs it, the result model
// imports only the standard library, each report writer reads only the
// model, and the command line reaches the domain only through the
// application layer.
package layering

import (
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const module = "github.com/tfscan/tfscan/"

// deps lists, for every package of the module, the packages it depends on
// (go list -deps: direct and indirect, tests left out).
func deps(t *testing.T) map[string][]string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Deps \" \"}}", module+"...").CombinedOutput()
	require.NoError(t, err, "%s", out)
	all := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		all[strings.TrimPrefix(f[0], module)] = f[1:]
	}
	return all
}

// under reports whether pkg is dir or a package below it.
func under(pkg, dir string) bool { return pkg == dir || strings.HasPrefix(pkg, dir+"/") }

// forbid fails for every package selected by from that depends on a module
// package selected by to.
func forbid(t *testing.T, all map[string][]string, from, to func(string) bool) {
	t.Helper()
	n := 0
	for pkg, ds := range all {
		if !from(pkg) {
			continue
		}
		n++
		for _, dep := range ds {
			if d, ok := strings.CutPrefix(dep, module); ok && to(d) {
				t.Errorf("%s depends on %s", pkg, d)
			}
		}
	}
	require.Positive(t, n, "no package selected")
}

func TestDomainPackagesDoNotImportReportsOrCmd(t *testing.T) {
	forbid(t, deps(t), func(p string) bool {
		for _, d := range domain {
			if under(p, d) {
				return true
			}
		}
		return false
	}, func(d string) bool { return under(d, "reports") || under(d, "cmd") })
}

// TestOpLibraryDoesNotImportExecutor: kernels and every package below it
// (tensor I/O, precision profiles) are the op library; the executor runs
// graphs with it and hands kernels what they need through kernels.Context.
// Parity, which runs models, sits above both.
func TestOpLibraryDoesNotImportExecutor(t *testing.T) {
	forbid(t, deps(t), func(p string) bool { return under(p, "kernels") },
		func(d string) bool { return under(d, "executor") })
}

// TestReportModelIsStandardLibraryOnly: the result model is read by every
// producer and consumer, so it names no model format, graph, registry or
// writer: it imports the standard library alone.
func TestReportModelIsStandardLibraryOnly(t *testing.T) {
	all := deps(t)
	ds, ok := all["reports"]
	require.True(t, ok)
	for _, dep := range ds {
		if first, _, _ := strings.Cut(dep, "/"); strings.Contains(first, ".") {
			t.Errorf("reports depends on %s", dep)
		}
	}
}

// writers are the report writers: each reads the model (and the phrases
// they share, reports/internal/render) and nothing else of reports.
var writers = []string{"reports/table", "reports/jsonout", "reports/html", "reports/markdown", "reports/sarif", "reports/junit"}

// TestWritersReadOnlyTheModel: a writer never imports another writer, the
// gate or the format dispatcher, nor anything of the module outside reports.
func TestWritersReadOnlyTheModel(t *testing.T) {
	all := deps(t)
	for _, w := range writers {
		forbid(t, all, func(p string) bool { return p == w }, func(d string) bool {
			return d != "reports" && d != "reports/internal/render"
		})
	}
}

// TestGateReadsOnlyTheModel: the gate judges the model; it prints nothing
// and imports no writer.
func TestGateReadsOnlyTheModel(t *testing.T) {
	forbid(t, deps(t), func(p string) bool { return under(p, "reports/gate") }, func(d string) bool {
		return d != "reports" && d != "reports/internal/render"
	})
}

// domain are the packages that do tfscan's work; the command line reaches
// them only through the application layer (cmd/tfscan/internal/scan,
// registry, explain, config, cache).
var domain = []string{"savedmodel", "graph", "coverage", "kernels", "executor", "parity", "rewrite", "security", "dtype", "tflog", "training"}

// TestCLIImportsNoDomainPackage: cmd/tfscan/internal/cli parses flags,
// calls the application layer, picks writers and maps errors to exit
// codes; it imports no domain package. The check reads each file's
// imports, so that a command that still assembles work itself is named.
func TestCLIImportsNoDomainPackage(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-f", "{{.Dir}}", module+"cmd/tfscan/internal/cli").CombinedOutput()
	require.NoError(t, err, "%s", out)
	dir := strings.TrimSpace(string(out))
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		name := filepath.Base(file)
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
		require.NoError(t, err)
		var bad []string
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if d, ok := strings.CutPrefix(path, module); ok && slices.ContainsFunc(domain, func(p string) bool { return under(d, p) }) {
				bad = append(bad, d)
			}
		}
		if len(bad) > 0 {
			t.Errorf("cli/%s imports %s: reach it through the application layer", name, strings.Join(bad, ", "))
		}
	}
}

// TestHelpersImportNoDomain: the small helpers every layer uses (chunked
// arrays, grouping by key, the last few keys, lazy patterns, huge pages)
// import nothing of tfscan but the huge pages, which the grouping asks
// for.
func TestHelpersImportNoDomain(t *testing.T) {
	helpers := []string{"internal/slab", "internal/csr", "internal/lastfew", "internal/lazyre", "internal/hugepage"}
	forbid(t, deps(t), func(p string) bool { return slices.Contains(helpers, p) },
		func(d string) bool { return d != "internal/hugepage" })
}
