package shape

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/internal/benchmodel"
	"github.com/tfscan/tfscan/internal/testmodel"
)

// The nodes of function bodies alike are inferred alike across the calls
// that reach them: each call node, whose attr map is its own, leaves the
// answers kept for the bodies' ops in place, so that the outputs kept grow
// by a call's own outputs and nothing of its body after the first.
func TestCallsKeepTheBodiesAlike(t *testing.T) {
	const calls = 64
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "saved_model.pb"), benchmodel.FunctionsSavedModel(calls), 0o644))
	g := testmodel.Graph(t, dir)
	got, want := Infer(g, Options{}), infer(g, Options{}, true)
	for _, n := range g.Nodes {
		w, _ := want.Output(n, 0)
		o, _ := got.Output(n, 0)
		require.Equal(t, w, o, n.Name)
	}
	// The first body's layer, each call's output, the input and output.
	assert.LessOrEqual(t, got.outs.next, calls+16, "outputs kept")
}
