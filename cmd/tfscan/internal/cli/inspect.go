package cli

import (
	"context"
	"flag"

	"github.com/tfscan/tfscan/cmd/tfscan/internal/scan"
	"github.com/tfscan/tfscan/reports/jsonout"
	"github.com/tfscan/tfscan/reports/table"
)

// inspectFlags are the flags of `tfscan inspect`.
type inspectFlags struct {
	format   string
	failFast bool
	tags     listFlag
}

func (f *inspectFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.format, "format", "table", "output format: table or json")
	fs.BoolVar(&f.failFast, "fail-fast", false, "stop at the first model that cannot be read")
	fs.Var(&f.tags, "tags", "meta graph tags to inspect (default: the one tagged serve, else the first)")
}

// runInspect implements `tfscan inspect PATH... [--format table|json]
// [--tags serve,gpu]`: what each model holds, before any target. A
// directory that is not itself a model is searched for models. A model that
// cannot be read is listed in the report's errors (and on stderr), the
// others are still inspected, and the command exits 3; --fail-fast stops at
// the first.
// A model TensorFlow would refuse to load (graph.InvalidGraphError) is
// listed with every problem, and is also one of the errors.
func runInspect(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("inspect", e.stderr)
	var f inspectFlags
	f.register(fs)
	paths, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if f.format != "table" && f.format != "json" {
		return usageErrorf("inspect: unknown --format %q (want table or json)", f.format)
	}
	if len(paths) == 0 {
		return usageErrorf("inspect: no model path given (tfscan inspect PATH... [--format table|json])")
	}
	rep, err := scan.Inspect(ctx, scan.InspectOptions{Paths: paths, WD: e.wd, Tags: f.tags, FailFast: f.failFast})
	if err != nil {
		return err
	}
	write := table.WriteInspectTable
	if f.format == "json" {
		write = jsonout.WriteInspectJSON
	}
	if err := write(e.stdout, rep); err != nil {
		return err
	}
	return reportErrors(e, rep.Errors)
}
