// Package layering checks that dependencies point one way: the domain
// packages never import the report writers or the command line, and the
// op library never imports the executor that runs it.
package layering

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDomainPackagesDoNotImportReportsOrCmd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	for _, pkg := range []string{"savedmodel", "graph", "coverage", "kernels", "executor", "rewrite", "security", "dtype", "tflog"} {
		out, err := exec.Command("go", "list", "-deps", "github.com/tfscan/tfscan/"+pkg+"/...").CombinedOutput()
		require.NoError(t, err, "%s", out)
		for _, dep := range strings.Fields(string(out)) {
			if strings.HasPrefix(dep, "github.com/tfscan/tfscan/reports") || strings.HasPrefix(dep, "github.com/tfscan/tfscan/cmd") {
				t.Errorf("%s depends on %s", pkg, dep)
			}
		}
	}
}

// TestOpLibraryDoesNotImportExecutor: kernels (with its tensor I/O and
// precision profiles) is the op library; the executor runs graphs with it
// and hands kernels what they need through kernels.Context. Parity, which
// runs models, sits above both.
func TestOpLibraryDoesNotImportExecutor(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	for _, pkg := range []string{"kernels", "kernels/npz", "kernels/precision"} {
		out, err := exec.Command("go", "list", "-deps", "github.com/tfscan/tfscan/"+pkg).CombinedOutput()
		require.NoError(t, err, "%s", out)
		for _, dep := range strings.Fields(string(out)) {
			if dep == "github.com/tfscan/tfscan/executor" || strings.HasPrefix(dep, "github.com/tfscan/tfscan/executor/") {
				t.Errorf("%s depends on %s", pkg, dep)
			}
		}
	}
}
