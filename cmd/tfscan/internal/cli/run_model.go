package cli

import (
	"context"
	"flag"
	"path/filepath"

	"github.com/tfscan/tfscan/cmd/tfscan/internal/scan"
)

// runFlags are the flags of `tfscan run` (scan.RunModel says what it does).
type runFlags struct {
	inputs, outputs, signature string
	fetches                    repeatFlag
	tags                       listFlag
	seed                       uint
	dim                        int
}

func (f *runFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.inputs, "inputs", "", "`FILE`.npz of inputs (default: seeded inputs, written to OUT.inputs.npz)")
	fs.StringVar(&f.outputs, "outputs", "", "`FILE`.npz to write the outputs to (required)")
	fs.StringVar(&f.signature, "signature", "", "signature `KEY` to run (default: serving_default, else the only one)")
	fs.Var(&f.fetches, "fetch", "tensor `NAME` to fetch instead of the signature's outputs (repeatable)")
	fs.Var(&f.tags, "tags", "meta graph `TAGS` (default: serve, else the first)")
	fs.UintVar(&f.seed, "seed", 1, "seed of the generated inputs")
	fs.IntVar(&f.dim, "dim", 128, "size of unknown non-batch dimensions of generated inputs")
}

// runRun implements `tfscan run PATH --outputs out.npz [--inputs in.npz]
// [--signature KEY] [--fetch NAME]... [--tags T] [--seed N] [--dim N]`
// through scan.RunModel.
func runRun(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("run", e.stderr)
	var f runFlags
	f.register(fs)
	paths, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(paths) != 1 {
		return usageErrorf("run: want exactly one model PATH (tfscan run PATH --outputs out.npz [--inputs in.npz])")
	}
	if f.outputs == "" {
		return usageErrorf("run: --outputs FILE.npz is required")
	}
	if f.dim <= 0 {
		return usageErrorf("run: --dim must be positive")
	}
	if f.seed > 1<<32-1 {
		return usageErrorf("run: --seed must fit in 32 bits")
	}
	o := scan.RunOptions{
		Path: joinIfRel(e.wd, paths[0]), Inputs: f.inputs, Outputs: joinIfRel(e.wd, f.outputs),
		Signature: f.signature, Fetches: f.fetches, Tags: f.tags, Seed: uint32(f.seed), Dim: f.dim,
	}
	if f.inputs != "" {
		o.InputsFile = joinIfRel(e.wd, f.inputs)
	}
	return appError(scan.RunModel(ctx, o))
}

func joinIfRel(wd, p string) string {
	if filepath.IsAbs(p) || wd == "" {
		return p
	}
	return filepath.Join(wd, p)
}
