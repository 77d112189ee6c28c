package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/savedmodel/modelgen"
)

// Every command that loads a model refuses each graph TensorFlow refuses:
// exit 3, one line naming the file and the node or function in
// TensorFlow's words. inspect lists the model with its problems, scan and
// check list it among the models that could not be scanned; run, parity
// and vectors write nothing.
func TestCommandsRefuseWhatTensorFlowRefuses(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, modelgen.WriteHostile(filepath.Join(dir, "h")))
	commands := [][]string{
		{"inspect"},
		{"scan", "--target", "cuda"},
		{"check", "--target", "cuda", "--min-coverage", "0"},
		{"baseline", "--target", "cuda", "-o", "base.json"},
		{"run", "--outputs", "out.npz"},
		{"parity", "--target", "musa", "--precision", "fp16"},
		{"vectors", "--target", "musa", "-o", "vec"},
	}
	for _, h := range modelgen.HostileModels() {
		path := filepath.Join(dir, "h", h.Name)
		want := "tfscan: " + filepath.Join(dir, "h", h.File()) + ": " + h.Where + ": " + h.Refusal + "\n"
		for _, c := range commands {
			t.Run(h.Name+"/"+c[0], func(t *testing.T) {
				args := append([]string{c[0], path}, c[1:]...)
				var out, errb bytes.Buffer
				code := Run(context.Background(), args, strings.NewReader(""), &out, &errb, func(string) string { return "" }, dir)
				assert.Equal(t, ExitInput, code)
				assert.Equal(t, want, errb.String())
				switch c[0] {
				case "inspect":
					assert.Contains(t, out.String(), "(refused) at ")
				case "scan", "check":
					assert.Contains(t, out.String(), "1 could not be scanned")
				default:
					assert.Empty(t, out.String())
				}
			})
		}
	}
}
