package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The real TensorFlow 2.15 logs of tflog/testdata/tf2.15 through the
// commands a user runs: explain with the model, explain --learn-registry
// alone, and scan --compare-log. (What each yields in detail is tested in
// packages tflog and explain.)
func TestRealLogsCLI(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "..", "tflog", "testdata", "tf2.15"))
	require.NoError(t, err)
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Run(context.Background(), args, strings.NewReader(""), &out, &errb, func(string) string { return "" }, dir)
		return code, out.String(), errb.String()
	}
	for _, c := range []struct {
		log, model string
		// learned is the --learn-registry line's op list ("" when none).
		learned string
		// matched and agreed are --compare-log's counts; matched 0 means
		// the log has no placement lines, a usage error (exit 2).
		matched, agreed int
	}{
		{"placement.log", "placement.pbtxt", "", 7, 7},
		{"device_not_available.log", "device_not_available.pbtxt", "", 0, 0},
		{"no_opkernel.log", "no_opkernel.pbtxt", ": MatMul", 0, 0},
		{"eager.log", "", ": MatMul", 0, 0},
		{"op_not_registered.log", "op_not_registered", "", 0, 0},
		{"explicit_device.log", "explicit_device.pbtxt", ": MatrixDeterminant", 0, 0},
		{"explicit_device_group.log", "explicit_device_group.pbtxt", ": VarIsInitializedOp", 0, 0},
		{"eager_device.log", "", "", 0, 0},
		// the nodes TensorFlow left on XLA_CPU are predicted on the CPU of
		// the cpu target, which has no XLA_CPU device
		{"soft_placement_resources.log", "soft_placement_resources.pbtxt", "", 29, 17},
	} {
		t.Run(c.log, func(t *testing.T) {
			learned := filepath.Join(t.TempDir(), "learned.json")
			code, stdout, stderr := run("explain", c.log, "--learn-registry", learned)
			require.Equal(t, ExitOK, code, stderr)
			assert.Empty(t, stdout)
			n := "0"
			if c.learned != "" {
				n = "1"
			}
			assert.Contains(t, stderr, "learned the kernels of "+n+" op(s) from "+c.log)
			assert.True(t, strings.HasSuffix(strings.TrimSpace(stderr), ")"+c.learned), stderr)
			_, err := os.Stat(learned)
			require.NoError(t, err)

			if c.model == "" {
				return
			}
			model := filepath.Join(dir, c.model) // explain and scan take the model from the process's directory
			code, stdout, stderr = run("explain", c.log, "--model", model, "--target", "cpu", "--format", "json")
			require.Equal(t, ExitOK, code, stderr)
			var rep struct {
				Summary struct {
					Messages int `json:"messages"`
					NotFound int `json:"not_found"`
				} `json:"summary"`
				UnparsedLines int `json:"unparsed_lines"`
			}
			require.NoError(t, json.Unmarshal([]byte(stdout), &rep))
			assert.Positive(t, rep.Summary.Messages)
			assert.Zero(t, rep.Summary.NotFound)
			assert.Zero(t, rep.UnparsedLines)
			assert.NotContains(t, stderr, "not in", "every node the log names is in the model")

			code, stdout, stderr = run("scan", model, "--target", "cpu", "--compare-log", filepath.Join(dir, c.log), "--format", "json")
			if c.matched == 0 {
				assert.Equal(t, ExitUsage, code)
				assert.Contains(t, stderr, "--compare-log "+filepath.Join(dir, c.log)+": no placement lines found")
				return
			}
			require.Equal(t, ExitOK, code, stderr)
			var scan struct {
				Models []struct {
					Targets []struct {
						Placement struct {
							Comparison struct {
								Matched, Agreed int
								Unmatched       []string
							} `json:"comparison"`
						} `json:"placement"`
					} `json:"targets"`
				} `json:"models"`
			}
			require.NoError(t, json.Unmarshal([]byte(stdout), &scan))
			cmp := scan.Models[0].Targets[0].Placement.Comparison
			assert.Equal(t, c.matched, cmp.Matched)
			assert.Equal(t, c.agreed, cmp.Agreed)
			assert.Empty(t, cmp.Unmatched)
		})
	}
}
