package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/tfscan/tfscan/cmd/tfscan/internal/scan"
	"github.com/tfscan/tfscan/reports"
)

// scanFlags are the flags `scan`, `check` and `baseline` share.
type scanFlags struct {
	targets    listFlag
	registries repeatFlag
	formats    repeatFlag
	dims       repeatFlag
	tags       listFlag
	fetches    repeatFlag
	signature  string
	jobs       int
	noSoft     bool
	clearDevs  bool
	noPlace    bool
	precision  string
	compareLog string
	failFast   bool
	phases     listFlag
	from       string
	verbose    bool
	shard      string
	cache      string
	nodes      string
	stack      stackFlags
}

// stackFlags set what a target's stack does (scan.StackSettings).
type stackFlags struct {
	mode    string
	options repeatFlag
}

func (f *stackFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.mode, "precision-mode", "", "the stack's precision `MODE` (e.g. Ascend's allow_fp32_to_fp16; default: the stack's, see 'tfscan registry show')")
	fs.Var(&f.options, "stack-option", "a stack setting `KEY=VALUE` (e.g. soc=ascend910b, adapter=tf1, mix_compile_mode=true; repeatable)")
}

func (f *stackFlags) settings() (scan.StackSettings, error) {
	opts, err := scan.ParseStackOptions(f.options)
	if err != nil {
		return scan.StackSettings{}, usageError(err)
	}
	return scan.StackSettings{PrecisionMode: f.mode, Options: opts}, nil
}

func (f *scanFlags) register(fs *flag.FlagSet) {
	fs.Var(&f.targets, "target", "target registry `NAME[,NAME...]` (repeatable; see 'tfscan registry list')")
	fs.Var(&f.registries, "registry", "registry `FILE`: a pack file or a raw kernel dump (repeatable)")
	fs.Var(&f.formats, "format", "output `FORMAT[=FILE]`: table, json, html, markdown, sarif, junit (repeatable)")
	fs.Var(&f.dims, "dim", "value for an unknown dimension, `NAME=VALUE` (NAME: an input or 'batch'; repeatable)")
	fs.Var(&f.tags, "tags", "MetaGraph `TAGS` to scan (default: serve, else the first)")
	fs.StringVar(&f.signature, "signature", "", "scan only what signature `KEY` needs")
	fs.Var(&f.fetches, "fetch", "tensor or node `NAME` the placement fetches instead of the signature's outputs or the assumed outputs of a graph without signatures (repeatable)")
	fs.IntVar(&f.jobs, "j", 0, "models scanned in parallel (default: number of CPUs)")
	fs.BoolVar(&f.noSoft, "no-soft-placement", false, "predict TensorFlow's error instead of CPU fallback")
	fs.BoolVar(&f.clearDevs, "clear-devices", false, "drop the top-level nodes' device fields before placement, as an import with clear_devices=True does")
	fs.BoolVar(&f.noPlace, "no-placement", false, "skip the placement simulation (coverage only)")
	fs.StringVar(&f.precision, "precision", "", "simulate auto mixed precision: mixed_float16 or mixed_bfloat16")
	fs.StringVar(&f.compareLog, "compare-log", "", "compare the prediction with a placement log `FILE` of a real run")
	fs.BoolVar(&f.failFast, "fail-fast", false, "stop at the first model that cannot be read (in path order) instead of scanning the rest")
	fs.Var(&f.phases, "phase", "count the nodes of `PHASES`: step (default: every call), load, save, unreachable, or all")
	fs.BoolVar(&f.verbose, "v", false, "table view: every section of every model, nothing cut to the terminal width")
	fs.StringVar(&f.from, "from", "cuda", "compare every target with the pack `NAME` the model runs on today (built-in or --registry); none: no comparison")
	f.stack.register(fs)
	fs.StringVar(&f.nodes, "nodes", reports.NodesAttention, "which nodes the JSON and HTML reports list one by one: `attention` (not covered, off the device, lower precision, changed against --from, flagged) or all; every count is exact either way")
	fs.StringVar(&f.cache, "cache", "", "reuse the results of models unchanged since a run stored them in `DIR` (keyed by the model's files, tfscan, the packs and the options), and store the others")
	fs.StringVar(&f.shard, "shard", "", "scan only share `I/N` of the models found (1 ≤ I ≤ N), chosen by a hash of each model's path relative to the path given; 'tfscan merge' combines the shards' JSON reports")
}

// maxDim bounds a --dim value: a larger dimension is a typo, and byte counts
// built from it would only saturate.
const maxDim = 1<<31 - 1

func (f *scanFlags) options(paths []string) (scan.Options, error) {
	dims := map[string]int64{}
	for _, d := range f.dims {
		name, v, ok := strings.Cut(d, "=")
		n, err := strconv.ParseInt(v, 10, 64)
		if !ok || name == "" || err != nil || n < 0 {
			return scan.Options{}, usageErrorf("--dim %q: want NAME=VALUE with a non-negative integer VALUE", d)
		}
		if n > maxDim {
			return scan.Options{}, usageErrorf("--dim %q: %d is over the limit of %d for one dimension", d, n, int64(maxDim))
		}
		dims[name] = n
	}
	if f.jobs < 0 {
		return scan.Options{}, usageErrorf("-j %d: want the number of models scanned at once (0: one per CPU)", f.jobs)
	}
	switch f.precision {
	case "", "mixed_float16", "mixed_bfloat16":
	default:
		return scan.Options{}, usageErrorf("--precision %q: want mixed_float16 or mixed_bfloat16", f.precision)
	}
	if _, err := scan.ParsePhases(f.phases); err != nil {
		return scan.Options{}, usageError(err)
	}
	stack, err := f.stack.settings()
	if err != nil {
		return scan.Options{}, err
	}
	if f.nodes != reports.NodesAttention && f.nodes != reports.NodesAll {
		return scan.Options{}, usageErrorf("--nodes %q: want attention or all", f.nodes)
	}
	var shard *reports.Shard
	if f.shard != "" {
		s, err := scan.ParseShard(f.shard)
		if err != nil {
			return scan.Options{}, usageError(err)
		}
		shard = s
	}
	return scan.Options{
		Stack:      stack,
		Paths:      paths,
		Targets:    f.targets,
		Registries: f.registries,
		Signature:  f.signature,
		Fetches:    f.fetches,
		Tags:       f.tags,
		Jobs:       f.jobs,
		FailFast:   f.failFast,
		Version:    Version,
		Phases:     f.phases,
		From:       f.from,
		Shard:      shard,
		AllNodes:   f.nodes == reports.NodesAll,
		Cache:      f.cache,
		Placement: scan.PlacementOptions{
			Disabled:        f.noPlace,
			NoSoftPlacement: f.noSoft,
			Dims:            dims,
			Precision:       f.precision,
			CompareLog:      f.compareLog,
			ClearDevices:    f.clearDevs,
		},
	}, nil
}

func runScan(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("scan", e.stderr)
	var f scanFlags
	f.register(fs)
	paths, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	opts, err := f.options(paths)
	if err != nil {
		return err
	}
	e.verbose = f.verbose
	opts.CacheDone = cacheReport(e, opts.Cache)
	rep, err := scan.Run(ctx, opts)
	if err != nil {
		return scanError(err)
	}
	if err := writeReports(e, f.formats, rep); err != nil {
		return err
	}
	return reportErrors(e, rep.Errors)
}

// scanError maps the orchestrator's errors to exit codes.
func scanError(err error) error {
	var ue *scan.UsageError
	if errors.As(err, &ue) {
		return usageError(err)
	}
	var me *scan.ModelError
	if errors.As(err, &me) {
		return inputError(err)
	}
	return fmt.Errorf("internal error: %w", err)
}

// cacheReport prints what --cache did, one line on stderr, and a warning
// when results could not be stored.
func cacheReport(e *env, dir string) func(scan.CacheStats) {
	return func(s scan.CacheStats) {
		fmt.Fprintf(e.stderr, "tfscan: cache %s: %d model(s) from the cache, %d scanned\n", dir, s.Hits, s.Scanned)
		if s.WriteErrors > 0 {
			fmt.Fprintf(e.stderr, "tfscan: warning: cache %s: %d result(s) could not be stored (%v); the next run scans them again\n", dir, s.WriteErrors, s.Err)
		}
	}
}
