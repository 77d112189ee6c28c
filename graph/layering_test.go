package graph_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The graph package is a domain package: it must not depend on reports or
// the CLI (docs/architecture.md, "Data flows one way").
func TestLayering(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", "github.com/tfscan/tfscan/graph/...").CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "github.com/tfscan/tfscan/reports") || strings.HasPrefix(dep, "github.com/tfscan/tfscan/cmd") {
			t.Errorf("graph depends on %s", dep)
		}
	}
}
