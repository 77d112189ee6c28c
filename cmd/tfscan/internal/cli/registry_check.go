package cli

import (
	"fmt"
	"text/tabwriter"

	"github.com/tfscan/tfscan/coverage"
)

// registryCheck compares the built-in packs that are checked against a
// binary (coverage.BinaryChecks) with a live dump of that binary's
// registry: the check conformance/registries_test.go runs, for a user who
// wants to see it on their own install. Exit 1 when a pack disagrees, 3
// when the dump cannot be read or is not of the binary's TensorFlow version.
func registryCheck(e *env, args []string) error {
	format, pos, err := formatArgs(e, "registry check", args, 1, "one dump file (tools/dump_registry.py)")
	if err != nil {
		return err
	}
	d, err := coverage.ReadDumpFile(abs(e, pos[0]))
	if err != nil {
		return inputError(err)
	}
	checks, err := coverage.CheckDump(d)
	if err != nil {
		return inputError(fmt.Errorf("%s: %w", pos[0], err))
	}
	ok := true
	for _, c := range checks {
		ok = ok && c.OK()
	}
	if format == "json" {
		if err := writeJSON(e.stdout, checks); err != nil {
			return err
		}
	} else {
		tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
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
				fmt.Fprintf(e.stdout, "%s: unexplained %s\n", c.Pack, u)
			}
			for _, s := range c.Stale {
				fmt.Fprintf(e.stdout, "%s: listed but not a difference: %s %s\n", c.Pack, s.Side, s.Kernel)
			}
		}
	}
	if !ok {
		fmt.Fprintf(e.stderr, "tfscan: %s: a built-in pack disagrees with this registry beyond the explained differences (coverage/checked_differences.txt)\n", pos[0])
		return errGateFailed
	}
	return nil
}
