package reports_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/reports/jsonout"
	"github.com/tfscan/tfscan/reports/markdown"
	"github.com/tfscan/tfscan/reports/reportstest"
	"github.com/tfscan/tfscan/reports/table"
)

// TestParityTrainingReport writes a parity report with a training step's
// loss-scale replay in JSON (valid against the schema), the table and
// Markdown, each of which says what the loss scale does.
func TestParityTrainingReport(t *testing.T) {
	r := reportstest.Fixture()
	tg := r.Models[0].Targets[0]
	settled := 16384.0
	grad := reports.ParityGradient{Path: "train_step/__inference_train_step_1/gradient_tape/model/dense/MatMul/MatMul_1", Op: "MatMul",
		Values: 8, Overflow: 8, Finding: "overflow",
		Origin: &reports.ParityOrigin{Path: "train_step/__inference_train_step_1/gradient_tape/Cast", Op: "Cast", Part: "backward", Values: 8}}
	ok := reports.ParityGradient{Path: grad.Path, Op: "MatMul", Values: 8, RelError: 1e-4}
	tg.Parity = &reports.Parity{Profile: "tf32", ATol: 1e-3, RTol: 1e-3, Outputs: []reports.ParityOutput{{Name: "loss", Pass: true}},
		Nodes: []reports.ParityNode{}, Training: &reports.ParityTraining{
			LossScaleVariable: "current_loss_scale", InitialScale: 32768,
			WithoutLossScaling: reports.ParityStep{LossScale: 1, Applied: true, Gradients: []reports.ParityGradient{ok}},
			WithLossScaling: []reports.ParityStep{{LossScale: 32768, Gradients: []reports.ParityGradient{grad}},
				{LossScale: 16384, Applied: true, Gradients: []reports.ParityGradient{ok}}},
			SettledScale: &settled, SkippedSteps: 1,
			AfterGrowth: &reports.ParityStep{LossScale: 32768, Gradients: []reports.ParityGradient{grad}},
		}}
	var j, tb, md bytes.Buffer
	require.NoError(t, jsonout.WriteJSON(&j, r))
	require.NoError(t, reportstest.Validate(t, reportstest.CompileSchema(t, "report.schema.json", reports.Schema()), j.Bytes()))
	require.Contains(t, j.String(), `"settled_scale": 16384`)
	require.NoError(t, table.WriteTable(&tb, r))
	require.NoError(t, markdown.WriteMarkdown(&md, r))
	for _, out := range []string{tb.String(), md.String()} {
		require.Contains(t, out, "with the dynamic loss scale from 32768: 1 step(s) skipped")
	}
	require.Contains(t, md.String(), "| 32768 | skipped | `gradient_tape/model/dense/MatMul/MatMul_1` | overflow | 8 | 0 | 0.0% | `gradient_tape/Cast` (Cast, backward) |")
	require.True(t, strings.Contains(tb.String(), "after 2000 finite steps the scale doubles"), tb.String())
}
