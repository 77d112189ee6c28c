package cli

import (
	"context"
	"errors"
	"flag"
	"strconv"
	"strings"

	"github.com/tfscan/tfscan/cmd/tfscan/internal/scan"
)

// rewriteFlags are the flags of `tfscan rewrite` (scan.Rewrite says what
// it does).
type rewriteFlags struct {
	targets                   listFlag
	registries, formats, dims repeatFlag
	tags, rules               listFlag
	out, inputs, signature    string
	lower, clear, verbose     bool
	seed                      uint
	inputDim                  int
	stack                     stackFlags
}

func (f *rewriteFlags) register(fs *flag.FlagSet) {
	fs.Var(&f.targets, "target", "the target registry `NAME` to rewrite for (see 'tfscan registry list')")
	fs.StringVar(&f.out, "o", "", "write the rewritten model to `PATH` (must not exist, or be an empty directory)")
	fs.StringVar(&f.inputs, "inputs", "", "`FILE`.npz of inputs the proof also runs on (keys: signature input keys or tensor names)")
	fs.Var(&f.rules, "rules", "rewrite only with `RULES` (names or kinds: unfuse, decompose, fold, cast, unpin; default: all but cast and unpin)")
	fs.BoolVar(&f.lower, "allow-lower-precision", false, "let the cast rule run float32 nodes in the target's float16 kernels (cast-float16)")
	fs.BoolVar(&f.clear, "clear-devices", false, "drop the top-level nodes' device fields, as an import with clear_devices=True does (rule unpin)")
	fs.StringVar(&f.signature, "signature", "", "the signature `KEY` the figures and --inputs are about (default: serving_default, else the first)")
	fs.Var(&f.tags, "tags", "MetaGraph `TAGS` the figures are about (default: serve, else the first); every meta graph is rewritten")
	fs.Var(&f.registries, "registry", "registry `FILE`: a pack file or a raw kernel dump (repeatable)")
	fs.Var(&f.formats, "format", "report `FORMAT[=FILE]`: table, json, html, markdown (repeatable; default table)")
	fs.Var(&f.dims, "dim", "value for an unknown dimension in the placement's byte counts, `NAME=VALUE` (as scan's --dim)")
	fs.UintVar(&f.seed, "seed", 1, "seed of the proof's generated inputs")
	fs.IntVar(&f.inputDim, "input-dim", 128, "size of unknown non-batch dimensions of the proof's generated inputs")
	f.stack.register(fs)
	fs.BoolVar(&f.verbose, "v", false, "table view: every section, nothing cut to the terminal width")
}

// runRewrite implements `tfscan rewrite MODEL --target T -o OUT
// [--inputs in.npz] [--rules LIST] [--allow-lower-precision]
// [--clear-devices] [--precision-mode MODE] [--stack-option KEY=VALUE]...
// [--signature KEY] [--tags T] [--seed N] [--dim N]
// [--input-dim N] [--dim NAME=V]... [--registry FILE]... [--format FORMAT[=FILE]]... [-v]`:
// it rewrites the nodes the target cannot run into nodes it can, proves
// on the executor that the rewritten model computes what the original does,
// writes it in the format it came in, and reports before → after. A failed
// proof writes nothing and exits 1; usage problems (an unknown rule or
// target, an output that exists or cannot be created) exit 2 before the
// model is read; a model or input that cannot be read or run exits 3.
func runRewrite(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("rewrite", e.stderr)
	var f rewriteFlags
	f.register(fs)
	paths, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	e.verbose = f.verbose
	switch {
	case len(paths) != 1:
		return usageErrorf("rewrite: want exactly one model PATH (tfscan rewrite MODEL --target T -o OUT)")
	case len(f.targets) != 1:
		return usageErrorf("rewrite: want exactly one --target")
	case f.out == "":
		return usageErrorf("rewrite: -o PATH is required")
	case f.seed > 1<<32-1:
		return usageErrorf("rewrite: --seed must fit in 32 bits")
	case f.inputDim <= 0:
		return usageErrorf("rewrite: --input-dim must be positive")
	}
	for _, format := range f.formats {
		name, _, _ := strings.Cut(format, "=")
		if name == "sarif" || name == "junit" {
			return usageErrorf("rewrite: --format %s is for scan and check; use table, json, html or markdown", name)
		}
	}
	placeDims := map[string]int64{}
	for _, d := range f.dims {
		name, v, ok := strings.Cut(d, "=")
		n, err := strconv.ParseInt(v, 10, 64)
		if !ok || name == "" || err != nil || n < 0 || n > maxDim {
			return usageErrorf("--dim %q: want NAME=VALUE with a non-negative integer VALUE", d)
		}
		placeDims[name] = n
	}
	if _, err := parseFormats(f.formats); err != nil {
		return err
	}
	settings, err := f.stack.settings()
	if err != nil {
		return err
	}
	opts := scan.RewriteOptions{
		Path: joinIfRel(e.wd, paths[0]), Target: f.targets[0], Output: joinIfRel(e.wd, f.out),
		Registries: f.registries, Tags: f.tags, Signature: f.signature,
		Rules: f.rules, AllowLowerPrecision: f.lower, ClearDevices: f.clear,
		Seed: uint32(f.seed), Dim: f.inputDim, Dims: placeDims, Version: Version, From: "none", Stack: settings,
	}
	if f.inputs != "" {
		opts.Inputs = joinIfRel(e.wd, f.inputs)
	}
	rep, err := scan.Rewrite(ctx, opts)
	if err != nil {
		var pf *scan.ProofFailedError
		if errors.As(err, &pf) {
			return &exitError{code: ExitGate, err: err}
		}
		return scanError(err)
	}
	rep.Models[0].Path = paths[0]
	if rw := rep.Models[0].Targets[0].Rewrite; rw != nil {
		rw.Output = f.out
	}
	return writeReports(e, f.formats, rep)
}
