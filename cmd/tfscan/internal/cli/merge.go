package cli

import (
	"context"
	"flag"

	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/reports/gate"
)

// mergeFlags are the flags of `tfscan merge`.
type mergeFlags struct {
	out string
}

func (f *mergeFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.out, "o", "", "write the merged JSON report to `FILE` (required; - for stdout)")
}

// runMerge combines the JSON reports of shards (`scan --shard i/n` on each
// runner) into the report one run over every model writes, byte for byte
// (gate.Merge says what may be combined). Reports that may not be
// combined are a usage error (exit 2) and nothing is written; a report that
// cannot be read is exit 3. The models the shards could not scan stay in
// errors[], and merge succeeds: `tfscan check --results` gates the merged
// report and exits 3 for them.
func runMerge(_ context.Context, e *env, args []string) error {
	fs := newFlagSet("merge", e.stderr)
	var fl mergeFlags
	fl.register(fs)
	files, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if fl.out == "" {
		return usageErrorf("merge: -o FILE is required")
	}
	if len(files) == 0 {
		return usageErrorf("merge: no report given (tfscan merge REPORT... -o FILE)")
	}
	in := make([]gate.Named, 0, len(files))
	for _, f := range files {
		path := f
		if !isAbs(path) {
			path = joinWD(e, path)
		}
		r, err := reports.ReadAnyVersion(path) // Merge refuses other versions, exit 2
		if err != nil {
			return inputError(err)
		}
		in = append(in, gate.Named{Name: f, Report: r})
	}
	rep, err := gate.Merge(in)
	if err != nil {
		return usageErrorf("merge: %v", err)
	}
	return writeJSONReport(e, "merge", fl.out, rep)
}
