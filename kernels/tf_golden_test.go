package kernels_test

import (
	"path/filepath"
	"testing"

	"github.com/tfscan/tfscan/internal/tfgolden"
	"github.com/tfscan/tfscan/kernels"
)

// TestTensorFlowGoldens holds every kernel to TensorFlow's CPU kernel on
// the committed goldens (testdata/tf, tools/tf/kernel_goldens.py): each
// case bit-identical, or within its op's stated tolerance
// (tfgolden.RuleFor), or refused by both; a dtype tfscan's kernel lacks is
// a listed gap. A difference neither named (tfgolden's Differences) nor
// in its defects fails, and so does a listed one that no longer shows,
// and a registered kernel without goldens that tfgolden's NoGolden does
// not explain.
func TestTensorFlowGoldens(t *testing.T) {
	files, err := tfgolden.ReadAll(filepath.Join("testdata", "tf"))
	if err != nil {
		t.Fatal(err)
	}
	stillDiffers, shown := map[string]bool{}, map[string]bool{}
	swept := map[string]bool{}
	for _, f := range files {
		if f.TensorFlow != "2.15.0" || f.Generator != tfgolden.Generator {
			t.Errorf("%s: made by TensorFlow %s with %s, want 2.15.0 with %s", f.Family, f.TensorFlow, f.Generator, tfgolden.Generator)
		}
		for _, c := range f.Cases {
			swept[c.Op] = true
			if kernels.Find(c.Op) == nil {
				t.Errorf("%s: the goldens sweep an op tfscan does not register", c.Name())
				continue
			}
			r := tfgolden.Check(c)
			if r.Outcome != tfgolden.Differs && r.Outcome != tfgolden.Accepts {
				continue
			}
			if d := tfgolden.DifferenceOf(c, r); d != nil {
				shown[d.Name] = true
				continue
			}
			if d := tfgolden.Defect(c); d != "" {
				stillDiffers[c.Op+" "+c.DType()] = true
				continue
			}
			t.Errorf("%s: %s: %s", c.Name(), r.Outcome, r.Detail)
		}
	}
	for op := range tfgolden.NoGolden() {
		if swept[op] || kernels.Find(op) == nil {
			t.Errorf("%s is listed as an op TensorFlow cannot run but has goldens or no tfscan kernel: update internal/tfgolden/nogolden.go", op)
		}
	}
	// Every kernel tfscan registers is held to TensorFlow's, or is listed
	// with the reason no golden can hold it.
	for _, op := range kernels.RegisteredOps() {
		if _, never := tfgolden.NoGolden()[op]; !swept[op] && !never {
			t.Errorf("%s: a registered kernel without TensorFlow goldens: add cases to %s (make kernel-goldens)", op, tfgolden.Generator)
		}
	}
	for _, d := range tfgolden.Differences() {
		if !shown[d.Name] {
			t.Errorf("named difference %q no longer shows in any case: remove it from internal/tfgolden/differences.go", d.Name)
		}
	}
	for k := range tfgolden.Defects() {
		if !stillDiffers[k] {
			t.Errorf("known defect %q no longer differs from TensorFlow: remove it from internal/tfgolden/defects.go", k)
		}
	}
}
