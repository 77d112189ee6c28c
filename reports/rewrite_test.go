package reports

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rewriteFixture is what `tfscan rewrite` reports: model B of the fixture
// scanned for musa, with a rewrite section that has an exact rule with a
// chained rule, a tolerance rule, a rule not applied, two proof runs and a
// node no run executed. The values are made up for rendering tests.
func rewriteFixture() *Report {
	r := fixture()
	m := r.Models[1]
	m.Targets = m.Targets[1:2]
	r.Models, r.Gate, r.Options = []*Model{m}, nil, nil
	m.Targets[0].Rewrite = &Rewrite{
		Output: "out/resnet",
		Rules: []RewriteRule{
			{Rule: "unfuse-conv2d", Chained: []string{"decompose-relu6"}, Kind: "unfuse", Ops: []string{"_FusedConv2D"}, Nodes: 2,
				Paths: []string{"model/conv1", "model/conv2"}, Exactness: "exact", Claim: "bit-identical in float32",
				Semantics: "tensorflow/core/kernels/conv_ops_fused_impl.h:143", Checks: 2},
			{Rule: "cast-float16", Kind: "cast", Ops: []string{"MaxPool"}, Nodes: 1, Paths: []string{"model/pool/MaxPool"},
				Exactness: "tolerance", Claim: "within float16 rounding of the input", Semantics: "tensorflow/core/kernels/cast_op.cc:113",
				Checks: 1, MaxAbsError: 1.5e-4, MaxRelError: 4.8e-4},
		},
		Before: RewriteFigures{Nodes: 10, Covered: 7, CoveragePercent: 70, FallbackNodes: 3, CPUNodes: 4, PinnedCPUNodes: 1,
			Partitions: 3, Transfers: 4, TransferBytes: 3 << 20},
		After: RewriteFigures{Nodes: 14, Covered: 13, CoveragePercent: 92.86, FallbackNodes: 1, CPUNodes: 2, PinnedCPUNodes: 1,
			Partitions: 2, Transfers: 2, TransferBytes: 1 << 20},
		Proof: RewriteProof{
			Runs: []RewriteRun{
				{Name: "serving_default, seeded inputs (seed 1)", Outputs: 1, Identical: false, MaxAbsError: 2e-4, MaxRelError: 6e-4},
				{Name: "serving_default, the inputs of in.npz", Outputs: 1, Identical: false, MaxAbsError: 1e-4, MaxRelError: 3e-4},
			},
			NotExercised: []string{"model/conv2"},
		},
		Skipped: []RewriteSkip{{Rule: "decompose-einsum", Op: "Einsum", Reason: "the replacement is not covered on the target either", Nodes: 1,
			Example: "model/head/einsum"}},
	}
	return r
}

// The rewrite section in every writer that shows it, and check's mention
// of what a rewrite would remove.
func TestRewriteGolden(t *testing.T) {
	s := compileSchema(t, "report.schema.json", Schema())
	for _, format := range []string{"table", "json", "markdown", "html"} {
		t.Run(format, func(t *testing.T) {
			b := writeGolden(t, format, "rewrite", rewriteFixture())
			if format == "json" {
				require.NoError(t, validate(t, s, b))
			}
		})
	}

	preview := fixture()
	n := 2
	preview.Models[1].Targets[1].RewriteRemovesFallback = &n
	for _, format := range []string{"table", "markdown", "html"} {
		w, err := Writer(format)
		require.NoError(t, err)
		var b bytes.Buffer
		require.NoError(t, w(&b, preview))
		assert.Contains(t, b.String(), "would remove 2 fallback node(s)", format)
	}
	var b bytes.Buffer
	require.NoError(t, WriteJSON(&b, preview))
	require.NoError(t, validate(t, s, b.Bytes()))
	var back Report
	require.NoError(t, json.Unmarshal(b.Bytes(), &back))
	var found []int
	for _, m := range back.Models {
		for _, t := range m.Targets {
			if t.RewriteRemovesFallback != nil {
				found = append(found, *t.RewriteRemovesFallback)
			}
		}
	}
	assert.Equal(t, []int{2}, found)
}

// The schema holds the rewrite section's fields: a report without a
// required one is refused.
func TestSchemaRejectsBadRewrite(t *testing.T) {
	s := compileSchema(t, "report.schema.json", Schema())
	var b bytes.Buffer
	require.NoError(t, WriteJSON(&b, rewriteFixture()))
	for _, cut := range []string{`"proof": {`, `"exactness": "exact",`} {
		doc := b.String()
		require.Contains(t, doc, cut)
		bad := strings.Replace(doc, cut, strings.Replace(cut, `"`, `"x_`, 1), 1)
		assert.Error(t, validate(t, s, []byte(bad)), cut)
	}
}
