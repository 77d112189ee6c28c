package render

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tfscan/tfscan/reports"
)

// View is what the sections share: the source compared with, the
// target names in order, the phases counted and short model names.
type View struct {
	Source  string
	Targets []string
	Phases  []string
	Names   map[string]string // model path → name shown
	Prefix  string            // directory common to every model, left out of names
}

func NewView(r *reports.Report) *View {
	v := &View{Names: map[string]string{}}
	var paths []string
	for _, m := range r.Models {
		paths = append(paths, m.Path)
		for _, t := range m.Targets {
			if !slices.Contains(v.Targets, t.Target) {
				v.Targets = append(v.Targets, t.Target)
			}
			if t.Delta != nil && v.Source == "" {
				v.Source = t.Delta.Source
			}
			if v.Phases == nil && len(t.Coverage.Phases) > 0 {
				v.Phases = t.Coverage.Phases
			}
		}
	}
	for _, e := range r.Errors {
		paths = append(paths, e.Path)
	}
	if len(paths) > 1 {
		v.Prefix = commonDir(paths)
	}
	for _, p := range paths {
		v.Names[p] = strings.TrimPrefix(p, v.Prefix)
	}
	return v
}

// commonDir is the directory prefix (ending in "/") every path shares.
func commonDir(paths []string) string {
	prefix := paths[0]
	for _, p := range paths[1:] {
		for !strings.HasPrefix(p, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	if i := strings.LastIndexByte(prefix, '/'); i >= 0 {
		return prefix[:i+1]
	}
	return ""
}

func (v *View) Name(p string) string {
	if n := v.Names[p]; n != "" {
		return n
	}
	return p
}

// GateScope qualifies a passed gate when some models could not be scanned:
// the gate saw only the others.
func GateScope(r *reports.Report) string {
	if len(r.Errors) == 0 {
		return ""
	}
	return fmt.Sprintf(" on the %d model(s) scanned; %d could not be scanned", len(r.Models), len(r.Errors))
}
