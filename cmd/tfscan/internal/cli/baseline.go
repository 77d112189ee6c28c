package cli

import (
	"bytes"
	"context"
	"flag"
	"os"

	"github.com/tfscan/tfscan/cmd/tfscan/internal/scan"
	"github.com/tfscan/tfscan/reports"
)

// runBaseline scans and writes the JSON report that a later
// `tfscan check --baseline FILE` compares against. It takes the same
// configuration as check (targets, registries) so that both see the same
// models the same way; thresholds are not evaluated. A model that cannot be
// scanned is in the baseline's errors and the command exits 3, after
// writing the baseline of the others.
func runBaseline(ctx context.Context, e *env, args []string) error {
	var out string
	s, err := setup(e, "baseline", args, func(fs *flag.FlagSet) {
		fs.StringVar(&out, "o", "", "write the baseline JSON report to `FILE` (required)")
	})
	if err != nil {
		return err
	}
	if out == "" {
		return usageErrorf("baseline: -o FILE is required")
	}
	rep, err := scan.Run(ctx, s.opts)
	if err != nil {
		return scanError(err)
	}
	var buf bytes.Buffer
	if err := reports.WriteJSON(&buf, rep); err != nil {
		return err
	}
	if out == "-" {
		if _, err := e.stdout.Write(buf.Bytes()); err != nil {
			return err
		}
		return reportErrors(e, rep.Errors)
	}
	if !isAbs(out) {
		out = joinWD(e, out)
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		return usageErrorf("baseline: %v", err)
	}
	return reportErrors(e, rep.Errors)
}
