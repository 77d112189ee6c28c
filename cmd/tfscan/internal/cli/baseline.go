package cli

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/tfscan/tfscan/cmd/tfscan/internal/scan"
	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/reports/jsonout"
)

// baselineFlags are the flags of `tfscan baseline` besides those it
// shares with check (scanFlags, gateFlags).
type baselineFlags struct {
	out string
}

func (f *baselineFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.out, "o", "", "write the baseline JSON report to `FILE` (required)")
}

// runBaseline scans and writes the JSON report that a later
// `tfscan check --baseline FILE` compares against. It takes the same
// configuration as check (targets, registries) so that both see the same
// models the same way; thresholds are not evaluated. A model that cannot be
// scanned is in the baseline's errors and the command exits 3, after
// writing the baseline of the others.
func runBaseline(ctx context.Context, e *env, args []string) error {
	var f baselineFlags
	s, err := setup(e, "baseline", args, f.register)
	if err != nil {
		return err
	}
	if f.out == "" {
		return usageErrorf("baseline: -o FILE is required")
	}
	rep, err := scan.Run(ctx, s.opts)
	if err != nil {
		return scanError(err)
	}
	if err := writeJSONReport(e, "baseline", f.out, rep); err != nil {
		return err
	}
	return reportErrors(e, rep.Errors)
}

// writeJSONReport writes rep as JSON to out: "-" is stdout, else a file
// relative to the working directory, written whole or not at all. what
// names the command in errors.
func writeJSONReport(e *env, what, out string, rep *reports.Report) error {
	if out == "-" {
		bw := bufio.NewWriterSize(e.stdout, 1<<16)
		if err := jsonout.WriteJSON(bw, rep); err != nil {
			return err
		}
		return bw.Flush()
	}
	if !isAbs(out) {
		out = joinWD(e, out)
	}
	if err := writeFileAtomic(out, func(w io.Writer) error { return jsonout.WriteJSON(w, rep) }); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}
