// Package layering checks that dependencies point one way: the domain
// packages never import the report writers or the command line.
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
	for _, pkg := range []string{"savedmodel", "graph", "coverage", "kernels", "security", "dtype", "tflog"} {
		out, err := exec.Command("go", "list", "-deps", "github.com/tfscan/tfscan/"+pkg+"/...").CombinedOutput()
		require.NoError(t, err, "%s", out)
		for _, dep := range strings.Fields(string(out)) {
			if strings.HasPrefix(dep, "github.com/tfscan/tfscan/reports") || strings.HasPrefix(dep, "github.com/tfscan/tfscan/cmd") {
				t.Errorf("%s depends on %s", pkg, dep)
			}
		}
	}
}
