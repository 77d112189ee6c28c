package registry

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/tfscan/tfscan/coverage"
)

// CheckOptions names the live dump `registry check` compares the built-in
// packs with.
type CheckOptions struct {
	Dir  string
	Dump string
	JSON bool
}

// Check compares the built-in packs that are checked against a binary
// (coverage.BinaryChecks) with a live dump of that binary's registry: the
// check conformance/registries_test.go runs, for a user who wants to see
// it on their own install. A GateError when a pack disagrees; an
// InputError when the dump cannot be read or is not of the binary's
// TensorFlow version.
func Check(w io.Writer, o CheckOptions) error {
	d, err := coverage.ReadDumpFile(abs(o.Dir, o.Dump))
	if err != nil {
		return inputError(err)
	}
	checks, err := coverage.CheckDump(d)
	if err != nil {
		return inputError(fmt.Errorf("%s: %w", o.Dump, err))
	}
	ok := true
	for _, c := range checks {
		ok = ok && c.OK()
	}
	if o.JSON {
		if err := writeJSON(w, checks); err != nil {
			return err
		}
	} else {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "PACK\tDEVICE\tDUMP\tPACK KERNELS\tAGREE\tEXPLAINED\tUNEXPLAINED\tRECALL\tPRECISION")
		for _, c := range checks {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%.4f\t%.4f\n", c.Pack, c.DeviceType, c.Binary, c.PackKernels,
				c.Agree, len(c.Explained), len(c.Unexplained), c.Recall(), c.Precision())
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, c := range checks {
			for _, u := range c.Unexplained {
				fmt.Fprintf(w, "%s: unexplained %s\n", c.Pack, u)
			}
			for _, s := range c.Stale {
				fmt.Fprintf(w, "%s: listed but not a difference: %s %s\n", c.Pack, s.Side, s.Kernel)
			}
		}
	}
	if !ok {
		return &GateError{Err: fmt.Errorf("%s: a built-in pack disagrees with this registry beyond the explained differences (coverage/checked_differences.txt)", o.Dump)}
	}
	return nil
}
