package render

import "github.com/tfscan/tfscan/reports"

// RefusedPhrase is what a summary cell says of a target TensorFlow would
// refuse to place the model on (reports.Target.Refused).
const RefusedPhrase = "fails to place"

// RefusedIf is RefusedPhrase for a refused target, "" otherwise.
func RefusedIf(t *reports.Target) string {
	if t.Refused() != "" {
		return RefusedPhrase
	}
	return ""
}
