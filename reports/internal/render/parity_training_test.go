package render

import (
	"strings"
	"testing"

	"github.com/tfscan/tfscan/reports"
)

// TestParityTrainingLines checks the lines of the three outcomes of a
// loss scale: gradients that underflow without it and not with it, ones
// that overflow at every scale, and a settled scale whose doubling
// overflows again.
func TestParityTrainingLines(t *testing.T) {
	const path = "train_step/StatefulPartitionedCall/__inference_train_step_623/gradient_tape/model/dense/MatMul/MatMul_1"
	origin := &reports.ParityOrigin{Path: "train_step/StatefulPartitionedCall/__inference_train_step_623/gradient_tape/Cast", Op: "Cast", Part: "backward", Values: 40}
	grad := func(finding string) reports.ParityGradient {
		g := reports.ParityGradient{Path: path, Op: "MatMul", Values: 40, Finding: finding}
		switch finding {
		case "overflow":
			g.Overflow, g.Origin = 40, origin
		case "underflow":
			g.Underflow, g.LostMass, g.Origin = 40, 1, origin
		}
		return g
	}
	step := func(scale float64, finding string) reports.ParityStep {
		return reports.ParityStep{LossScale: scale, Applied: finding != "overflow", Gradients: []reports.ParityGradient{grad(finding), grad("")}}
	}
	one := func(v float64) *float64 { return &v }
	cases := []struct {
		name string
		p    *reports.ParityTraining
		want []string
	}{
		{"underflow fixed", &reports.ParityTraining{InitialScale: 32768, WithoutLossScaling: step(1, "underflow"),
			WithLossScaling: []reports.ParityStep{step(32768, "")}, SettledScale: one(32768), AfterGrowth: ptr(step(65536, ""))},
			[]string{
				"without loss scaling: 1 of 2 gradient(s) underflow in float16 (gradient_tape/model/dense/MatMul/MatMul_1: 100.0% of its mass flushed to zero, from Cast gradient_tape/Cast in backward)",
				"with the dynamic loss scale from 32768: applied: no gradient overflows or underflows in float16 (2 checked)",
				"after 2000 finite steps the scale doubles to 65536: still finite",
			}},
		{"overflow at every scale", &reports.ParityTraining{InitialScale: 2, WithoutLossScaling: step(1, "overflow"),
			WithLossScaling: []reports.ParityStep{step(2, "overflow"), step(1, "overflow")}, SkippedSteps: 2},
			[]string{
				"without loss scaling: 1 of 2 gradient(s) overflow in float16 (gradient_tape/model/dense/MatMul/MatMul_1: 40 of 40 value(s) Inf/NaN, from Cast gradient_tape/Cast in backward)",
				"with the dynamic loss scale from 2: every step is skipped (2 tried, down to scale 1; LossScaleOptimizer never goes below 1): 1 of 2 gradient(s) overflow in float16 (gradient_tape/model/dense/MatMul/MatMul_1: 40 of 40 value(s) Inf/NaN, from Cast gradient_tape/Cast in backward)",
			}},
		{"settles after a skip, doubling overflows", &reports.ParityTraining{InitialScale: 32768, WithoutLossScaling: step(1, ""),
			WithLossScaling: []reports.ParityStep{step(32768, "overflow"), step(16384, "")}, SettledScale: one(16384), SkippedSteps: 1,
			AfterGrowth: ptr(step(32768, "overflow"))},
			[]string{
				"without loss scaling: no gradient overflows or underflows in float16 (2 checked)",
				"with the dynamic loss scale from 32768: 1 step(s) skipped (1 of 2 gradient(s) overflow in float16 (gradient_tape/model/dense/MatMul/MatMul_1: 40 of 40 value(s) Inf/NaN, from Cast gradient_tape/Cast in backward)), then applied at 16384: no gradient overflows or underflows in float16 (2 checked)",
				"after 2000 finite steps the scale doubles to 32768: the gradients overflow again and that step is skipped (1 of 2 gradient(s) overflow in float16 (gradient_tape/model/dense/MatMul/MatMul_1: 40 of 40 value(s) Inf/NaN, from Cast gradient_tape/Cast in backward))",
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ParityTrainingLines(c.p)
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
	if ParityTrainingLines(nil) != nil {
		t.Error("lines for a parity run without a training step")
	}
}

func ptr[T any](v T) *T { return &v }
