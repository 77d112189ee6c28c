package registry

import (
	"fmt"
	"io"
	"strings"

	"github.com/tfscan/tfscan/coverage"
)

// writeStackDecl prints what a pack declares its stack does around its
// kernels: precision modes, options and the graph optimizer, each with
// where it was read.
func writeStackDecl(w io.Writer, st *coverage.Stack) {
	if st == nil {
		return
	}
	if pm := st.Precision; pm != nil {
		fmt.Fprintf(w, "%s (%s):\n", pm.Option, pm.Source)
		for _, m := range pm.Modes {
			sem := "no documented semantics in tfscan"
			if m.Matrix != "" {
				sem = fmt.Sprintf("matrix ops %s, other ops %s, float32-less kernels %s", m.Matrix, m.Vector, m.Unsupported)
				if m.LowerTo != "" {
					sem += ", lowered to " + m.LowerTo
				}
			}
			fmt.Fprintf(w, "  %-26s %s (%s)\n", m.Name, sem, m.Source)
		}
		if pm.Default != "" {
			fmt.Fprintf(w, "  default: %s (%s)\n", pm.Default, pm.DefaultSource)
		}
		for _, d := range pm.ChipDefaults {
			fmt.Fprintf(w, "  default on chip %s: %s (%s)\n", d.Chip, d.Mode, d.Source)
		}
		if len(pm.MatrixOps) > 0 {
			fmt.Fprintf(w, "  matrix ops: %s (%s)\n", strings.Join(pm.MatrixOps, ", "), pm.MatrixSource)
		}
	}
	for _, o := range st.Options {
		applies := ""
		if o.Applies != "" {
			applies = ", with adapter " + o.Applies
		}
		fmt.Fprintf(w, "stack option %s: %s (default %s, %s%s)\n", o.Name, strings.Join(o.Values, "|"), o.Default, o.Source, applies)
	}
	if op := st.Optimizer; op != nil {
		state := "modelled"
		if !op.Modelled {
			state = "not modelled: " + op.Note
		}
		fmt.Fprintf(w, "optimizer: %s (%s), %d fusion(s), %s\n", op.Name, op.Source, len(op.Fusions), state)
	}
}
