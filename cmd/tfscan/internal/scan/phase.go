package scan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tfscan/tfscan/graph"
)

// PhaseSet is the set of phases whose nodes the figures count, indexed by
// graph.Phase.
type PhaseSet [int(graph.PhaseStep) + 1]bool

// ParsePhases reads --phase values: phase names or "all". None means the
// step, the work done on every call.
func ParsePhases(names []string) (PhaseSet, error) {
	var s PhaseSet
	if len(names) == 0 {
		s[graph.PhaseStep] = true
		return s, nil
	}
	for _, name := range names {
		if name == "all" {
			for i := range s {
				s[i] = true
			}
			continue
		}
		p, ok := phaseOf(name)
		if !ok {
			return s, fmt.Errorf("--phase %q: want %s or all", name, strings.Join(graph.PhaseNames(), ", "))
		}
		s[p] = true
	}
	return s, nil
}

// All tells whether every phase counts.
func (s PhaseSet) All() bool { return !slices.Contains(s[:], false) }

// Names lists the counted phases, step first.
func (s PhaseSet) Names() []string {
	var out []string
	for _, name := range graph.PhaseNames() {
		if p, _ := phaseOf(name); s[p] {
			out = append(out, name)
		}
	}
	return out
}

func phaseOf(name string) (graph.Phase, bool) {
	for p := range len(PhaseSet{}) {
		if graph.Phase(p).String() == name {
			return graph.Phase(p), true
		}
	}
	return graph.PhaseUnreachable, false
}
