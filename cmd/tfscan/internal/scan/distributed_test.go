package scan

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/reports"
)

// xlaGraph calls, marked for XLA, a function with a Neg (an op tf2xla
// lowers) and a StringLength (one it does not).
const xlaGraph = `
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 4 } } } } }
node { name: "s" op: "Placeholder" attr { key: "dtype" value { type: DT_STRING } } attr { key: "shape" value { shape { dim { size: 4 } } } } }
node { name: "step" op: "StatefulPartitionedCall" input: "x" input: "s"
  attr { key: "Tin" value { list { type: DT_FLOAT type: DT_STRING } } } attr { key: "Tout" value { list { type: DT_FLOAT type: DT_INT32 } } }
  attr { key: "f" value { func { name: "body" } } } attr { key: "_XlaMustCompile" value { b: true } } }
node { name: "y" op: "Identity" input: "step" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "n" op: "Identity" input: "step:1" attr { key: "T" value { type: DT_INT32 } } }
library {
  function { signature { name: "body" input_arg { name: "x" type: DT_FLOAT } input_arg { name: "s" type: DT_STRING }
      output_arg { name: "y" type: DT_FLOAT } output_arg { name: "n" type: DT_INT32 } }
    node_def { name: "neg" op: "Neg" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "len" op: "StringLength" input: "s" }
    ret { key: "y" value: "neg:y:0" } ret { key: "n" value: "len:output:0" } }
}
`

// TestXLAPerTarget checks a function marked for XLA compilation on the xla
// pack and on cuda through it (not compiled: StringLength has no XLA
// kernel), and on musa, which has no XLA device (op by op).
func TestXLAPerTarget(t *testing.T) {
	p := filepath.Join(t.TempDir(), "xla.pbtxt")
	require.NoError(t, os.WriteFile(p, []byte(xlaGraph), 0o644))
	m := scanOne(t, Options{Paths: []string{p}, Targets: []string{"xla", "cuda", "musa"}, From: "none"})
	byTarget := map[string]*reports.XLA{}
	for _, tg := range m.Targets {
		require.NotNil(t, tg.XLA, tg.Target)
		byTarget[tg.Target] = tg.XLA
		require.Len(t, tg.XLA.Functions, 1, tg.Target)
		f := tg.XLA.Functions[0]
		assert.Equal(t, "body", f.Function, tg.Target)
		assert.Equal(t, "step", f.Caller, tg.Target)
		assert.False(t, f.Compiled, tg.Target)
		assert.NotEmpty(t, tg.XLA.Source, tg.Target)
	}
	missing := []reports.TrainingOp{{Op: "StringLength", DTypes: []string{}, Count: 1}}
	assert.Equal(t, "xla", byTarget["xla"].Device)
	assert.Equal(t, missing, byTarget["xla"].Functions[0].Missing)
	assert.Equal(t, "xla", byTarget["cuda"].Device)
	assert.Equal(t, missing, byTarget["cuda"].Functions[0].Missing)
	assert.Empty(t, byTarget["musa"].Device)
	assert.Empty(t, byTarget["musa"].Functions[0].Missing)
}
