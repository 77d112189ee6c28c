// Package layering checks that dependencies point one way: the domain
// packages never import the report writers or the command line, the op
// library never imports the executor that runs it, the result model
// imports only the standard library, and each report writer reads only the
// model.
package layering

import (
	"os/exec"
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
	domain := []string{"savedmodel", "graph", "coverage", "kernels", "executor", "parity", "rewrite", "security", "dtype", "tflog"}
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
