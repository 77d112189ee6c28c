package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tfscan/tfscan/internal/testutil"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// inspectCorpus is ../shared/corpus; tests fail without it under CI=true.
func inspectCorpus(t *testing.T) string {
	t.Helper()
	return testutil.Corpus(t)
}

func runInspectCLI(t *testing.T, wd string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Run(context.Background(), append([]string{"inspect"}, args...), strings.NewReader(""), &out, &errb,
		func(string) string { return "" }, wd)
	return code, out.String(), errb.String()
}

func TestInspectCLIJSON(t *testing.T) {
	corpus := inspectCorpus(t)
	code, stdout, stderr := runInspectCLI(t, corpus,
		"tf/sm_simple_while_loop", "--format", "json", "tf/gd_unknown_op/test_graph_tfunknownop.pbtxt")
	require.Equal(t, ExitOK, code, stderr)
	assert.Empty(t, stderr)
	var got struct {
		SchemaVersion int `json:"schema_version"`
		Models        []struct {
			Path          string   `json:"path"`
			Format        string   `json:"format"`
			GraphNodes    int      `json:"graph_nodes"`
			Functions     int      `json:"functions"`
			FunctionNodes int      `json:"function_nodes"`
			OpTypes       []string `json:"op_types"`
			UnknownOps    []string `json:"unknown_ops"`
			Signatures    []struct {
				Key string `json:"key"`
			} `json:"signatures"`
		} `json:"models"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &got))
	assert.Equal(t, 1, got.SchemaVersion)
	require.Len(t, got.Models, 2)
	m := got.Models[0]
	assert.Equal(t, "tf/sm_simple_while_loop", m.Path)
	assert.Equal(t, "saved_model", m.Format)
	assert.Equal(t, 7, m.GraphNodes)
	assert.Equal(t, 40, m.FunctionNodes)
	assert.Equal(t, 6, m.Functions)
	assert.Contains(t, m.OpTypes, "StatelessWhile")
	assert.Empty(t, m.UnknownOps)
	require.Len(t, m.Signatures, 2)
	assert.Equal(t, "serving_default", m.Signatures[1].Key)
	u := got.Models[1]
	assert.Equal(t, 6, u.GraphNodes)
	assert.Equal(t, []string{"SomeUnknownOp"}, u.UnknownOps)

	// Same input, byte-identical output.
	_, again, _ := runInspectCLI(t, corpus, "tf/sm_simple_while_loop", "--format", "json", "tf/gd_unknown_op/test_graph_tfunknownop.pbtxt")
	assert.Equal(t, stdout, again)
}

func TestInspectCLITable(t *testing.T) {
	corpus := inspectCorpus(t)
	code, stdout, stderr := runInspectCLI(t, corpus, "tfjs/emotion")
	require.Equal(t, ExitOK, code, stderr)
	assert.Empty(t, stderr)
	assert.Contains(t, stdout, "tfjs/emotion (tfjs_graph_model)")
	assert.Contains(t, stdout, "graph nodes:    45")
	assert.Contains(t, stdout, "| _FusedConv2D ")
}

func TestInspectCLIErrors(t *testing.T) {
	corpus := inspectCorpus(t)
	tests := []struct {
		name    string
		args    []string
		code    int
		message string
	}{
		{"malformed", []string{"tf/gd_malformed/graph-malformed.pbtxt"}, ExitInput, "graph-malformed.pbtxt"},
		{"const without value", []string{"tf/sm_fuzz_const_no_value"}, ExitInput, `sm_fuzz_const_no_value/saved_model.pb: node "Assign/value" (Const) has no "value" attr`},
		{"missing", []string{"no/such/model"}, ExitInput, "no/such/model"},
		{"good then bad", []string{"tfjs/emotion", "tf/gd_malformed/graph-malformed.pbtxt"}, ExitInput, "graph-malformed.pbtxt"},
		{"bad format", []string{"tfjs/emotion", "--format", "xml"}, ExitUsage, `unknown --format "xml"`},
		{"unknown flag", []string{"--nope", "tfjs/emotion"}, ExitUsage, "nope"},
		{"no path", nil, ExitUsage, "no model path"},
		{"no such tags", []string{"tf/sm_half_plus_two_v1", "--tags", "train"}, ExitInput, "no meta graph tagged [train]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runInspectCLI(t, corpus, tt.args...)
			assert.Equal(t, tt.code, code)
			assert.Contains(t, stderr, tt.message)
			if tt.code == ExitInput {
				// the report lists the model that could not be read, after
				// the ones that could
				assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
				assert.Contains(t, stdout, "1 model(s) could not be read:\n  "+strings.TrimPrefix(strings.TrimSpace(stderr), "tfscan: ")+"\n")
				assert.Equal(t, tt.name == "good then bad", strings.Contains(stdout, "tfjs/emotion (tfjs_graph_model)"))
			} else {
				assert.Empty(t, stdout, "nothing on stdout on a usage error")
			}
		})
	}
}
