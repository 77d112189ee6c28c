package reports

import "strings"

// Refused is the first line of the error TensorFlow would raise placing the
// model on t (Placement.Error), "" when it places it. A refused target does
// not run at all, so every view says so first, before any count or
// coverage figure (render.RefusedPhrase), which would otherwise read as a model
// that runs with a few nodes on CPU.
func (t *Target) Refused() string {
	if t == nil || t.Placement == nil || t.Placement.Error == "" {
		return ""
	}
	first, _, _ := strings.Cut(t.Placement.Error, "\n")
	return first
}
