package format

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/reports/reportstest"
)

// TestRefusedTargetReadsAsFailing holds every view to saying first that
// TensorFlow refuses to place the model on a target, even with no gate
// (the fixture's ascend-910b target has a placement error).
func TestRefusedTargetReadsAsFailing(t *testing.T) {
	r := reportstest.Fixture()
	r.Gate = nil
	tests := []struct {
		name  string
		write func(*bytes.Buffer) error
		want  string
		not   string
	}{
		{"table", func(b *bytes.Buffer) error { return write(b, "table", r) }, "fails to place", "+2 66.7% (medium)"},
		{"markdown", func(b *bytes.Buffer) error { return write(b, "markdown", r) }, "| models/resnet | ascend-910b | **fails to place** |", "| models/resnet | ascend-910b | **+2 on CPU"},
		{"html", func(b *bytes.Buffer) error { return write(b, "html", r) }, ">fails to place</td>", ""},
		{"junit", func(b *bytes.Buffer) error { return write(b, "junit", r) }, `<failure message="TensorFlow refuses to place the model: Cannot assign a device for operation model/block_1/erf`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tc.write(&b); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), tc.want) {
				t.Errorf("%s does not say %q:\n%s", tc.name, tc.want, b.String())
			}
			if tc.not != "" && strings.Contains(b.String(), tc.not) {
				t.Errorf("%s still says %q", tc.name, tc.not)
			}
		})
	}
}

// write renders r with the writer of a --format name.
func write(b *bytes.Buffer, format string, r *reports.Report) error {
	w, err := Writer(format)
	if err != nil {
		return err
	}
	return w(b, r)
}
