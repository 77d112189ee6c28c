package extract

import (
	"fmt"
	"strings"
)

// describe renders registrations as "Op attr=[types] ... host=[args]" with
// constraints in source order, plus label/priority/unresolved when set.
func describe(regs []Registration) []string {
	var out []string
	for _, r := range regs {
		k := r.Kernel
		parts := []string{k.GetOp()}
		if k.GetDeviceType() != "GPU" {
			parts = append(parts, "dev="+k.GetDeviceType())
		}
		for _, c := range k.GetConstraint() {
			l := c.GetAllowedValues().GetList()
			switch {
			case len(l.GetType()) > 0:
				parts = append(parts, fmt.Sprintf("%s=%v", c.GetName(), l.GetType()))
			case len(l.GetI()) > 0:
				parts = append(parts, fmt.Sprintf("%s=%v", c.GetName(), l.GetI()))
			case len(l.GetB()) > 0:
				parts = append(parts, fmt.Sprintf("%s=%v", c.GetName(), l.GetB()))
			default:
				parts = append(parts, fmt.Sprintf("%s=%q", c.GetName(), l.GetS()))
			}
		}
		parts = append(parts, fmt.Sprintf("host=%v", k.GetHostMemoryArg()))
		if k.GetLabel() != "" {
			parts = append(parts, "label="+k.GetLabel())
		}
		if k.GetPriority() != 0 {
			parts = append(parts, fmt.Sprintf("prio=%d", k.GetPriority()))
		}
		if len(r.Unresolved) > 0 {
			parts = append(parts, "unresolved="+strings.Join(r.Unresolved, ","))
		}
		out = append(out, strings.Join(parts, " "))
	}
	return out
}
