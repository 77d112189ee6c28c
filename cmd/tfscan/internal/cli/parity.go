package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/tfscan/tfscan/cmd/tfscan/internal/scan"
	"github.com/tfscan/tfscan/reports"
)

// parityFlags are the flags `parity` and `vectors` share: the model, what
// to feed and what to fetch.
type parityFlags struct {
	targets    listFlag
	registries repeatFlag
	tags       listFlag
	fetches    repeatFlag
	signature  string
	inputs     string
	seed       uint
	dim        int
	stack      stackFlags
}

func (f *parityFlags) register(fs *flag.FlagSet) {
	fs.Var(&f.targets, "target", "target registry `NAME[,NAME...]` (see 'tfscan registry list')")
	fs.Var(&f.registries, "registry", "registry `FILE`: a pack file or a raw kernel dump (repeatable)")
	fs.Var(&f.tags, "tags", "MetaGraph `TAGS` (default: serve, else the first)")
	fs.Var(&f.fetches, "fetch", "tensor `NAME` to fetch instead of the signature's outputs (repeatable)")
	fs.StringVar(&f.signature, "signature", "", "signature `KEY` to run (default: serving_default, else the first)")
	fs.StringVar(&f.inputs, "inputs", "", "input tensors `in.npz` (default: seeded inputs, as 'tfscan run')")
	fs.UintVar(&f.seed, "seed", 1, "seed of the generated inputs (the TF.js oracle's --seed)")
	fs.IntVar(&f.dim, "dim", 128, "size of unknown non-batch input dimensions for generated inputs")
	f.stack.register(fs)
}

// resolveTargets resolves --target with the --registry files anchored at
// the working directory.
func (f *parityFlags) resolveTargets(e *env) (*scan.Targets, error) {
	regs := make([]string, len(f.registries))
	for i, r := range f.registries {
		regs[i] = joinIfRel(e.wd, r)
	}
	ts, err := scan.ResolveTargets(f.targets, regs)
	if err != nil {
		return nil, scanError(err)
	}
	settings, err := f.stack.settings()
	if err != nil {
		return nil, err
	}
	if err := ts.ConfigureStacks(settings); err != nil {
		return nil, scanError(err)
	}
	return ts, nil
}

// paritySummary writes one line per target to stderr: the table writer
// does not render parity, and a CI log should show why the gate failed.
func paritySummary(w io.Writer, path, target string, p *reports.Parity) {
	fail := 0
	for _, o := range append(append([]reports.ParityOutput{}, p.Outputs...), p.Golden...) {
		if !o.Pass {
			fail++
		}
	}
	first := "none"
	if p.FirstDivergence != nil {
		first = *p.FirstDivergence
	}
	fmt.Fprintf(w, "tfscan: parity %s on %s under %s (atol %g, rtol %g): %d of %d output(s) outside tolerance; first divergence: %s\n",
		path, target, p.Profile, p.ATol, p.RTol, fail, len(p.Outputs)+len(p.Golden), first)
}

// check validates the flags that need no model.
func (f *parityFlags) check() error {
	if f.dim <= 0 {
		return usageErrorf("--dim must be positive")
	}
	if f.seed > 1<<32-1 {
		return usageErrorf("--seed must fit in 32 bits")
	}
	return nil
}

// load is what a parity or vectors run of the model at path (as given)
// loads, feeds and fetches.
func (f *parityFlags) load(e *env, path string) scan.LoadOptions {
	o := scan.LoadOptions{Path: path, File: path, Tags: f.tags, Signature: f.signature, Fetches: f.fetches,
		Inputs: f.inputs, Seed: uint32(f.seed), Dim: f.dim}
	if !filepath.IsAbs(o.File) {
		o.File = joinWD(e, o.File)
	}
	if o.InputsFile = f.inputs; o.InputsFile != "" && !filepath.IsAbs(o.InputsFile) {
		o.InputsFile = joinWD(e, o.InputsFile)
	}
	return o
}

// runParity implements `tfscan parity PATH --target T [--precision P]
// [--inputs in.npz] [--golden out.npz]` through scan.Parity: one summary
// line per target on stderr, the report in each --format, exit 1 when an
// output is outside its tolerance.
func runParity(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("parity", e.stderr)
	var f parityFlags
	f.register(fs)
	var formats repeatFlag
	fs.Var(&formats, "format", "output `FORMAT[=FILE]`: table, json, html, markdown, sarif, junit (repeatable)")
	prec := fs.String("precision", "", "precision `PROFILE`: "+strings.Join(scan.PrecisionNames(), ", ")+" (default: the target's)")
	ftz := fs.Bool("ftz", false, "flush subnormal results to zero (devices running with FTZ/DAZ)")
	atol := fs.Float64("atol", -1, "absolute tolerance (default: by profile, see docs/precision.md)")
	rtol := fs.Float64("rtol", -1, "relative tolerance (default: by profile)")
	golden := fs.String("golden", "", "outputs recorded on a device, `out.npz`, to compare too")
	emulated := fs.String("emulated", "", "write the outputs under the profile to `emu.npz` (one target)")
	paths, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(paths) != 1 {
		return usageErrorf("parity: want exactly one model path (tfscan parity PATH --target T)")
	}
	if len(f.targets) == 0 {
		return usageErrorf("parity: no --target given (see 'tfscan registry list')")
	}
	if *prec != "" {
		if err := scan.CheckPrecision(*prec); err != nil {
			return usageErrorf("--precision: %v", err)
		}
	}
	if err := f.check(); err != nil {
		return err
	}
	negative := false
	fs.Visit(func(fl *flag.Flag) {
		if (fl.Name == "atol" && *atol < 0) || (fl.Name == "rtol" && *rtol < 0) {
			negative = true
		}
	})
	if negative {
		return usageErrorf("--atol and --rtol must not be negative")
	}
	if _, err := parseFormats(formats); err != nil {
		return err
	}
	ts, err := f.resolveTargets(e)
	if err != nil {
		return err
	}
	o := scan.ParityOptions{Load: f.load(e, paths[0]), Targets: ts, Precision: *prec, FTZ: *ftz, ATol: *atol, RTol: *rtol,
		Golden: *golden, Version: Version, Warn: e.stderr,
		OnTarget: func(path, target string, p *reports.Parity) { paritySummary(e.stderr, path, target, p) }}
	if *emulated != "" {
		o.Emulated = *emulated
		if !filepath.IsAbs(o.Emulated) {
			o.Emulated = joinWD(e, o.Emulated)
		}
	}
	if *golden != "" {
		o.GoldenFile = *golden
		if !filepath.IsAbs(o.GoldenFile) {
			o.GoldenFile = joinWD(e, o.GoldenFile)
		}
	}
	rep, failed, err := scan.Parity(ctx, o)
	if err != nil {
		return appError(err)
	}
	if err := writeReports(e, formats, rep); err != nil {
		return err
	}
	if failed {
		return errGateFailed
	}
	return nil
}
