package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/cmd/tfscan/internal/scan"
	"github.com/tfscan/tfscan/coverage/placement"
	"github.com/tfscan/tfscan/dtype"
	"github.com/tfscan/tfscan/executor"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/kernels"
	"github.com/tfscan/tfscan/kernels/npz"
	"github.com/tfscan/tfscan/kernels/parity"
	"github.com/tfscan/tfscan/kernels/precision"
	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/savedmodel"
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

// loadedModel is a model ready to execute.
type loadedModel struct {
	path  string // as given
	model *savedmodel.Model
	graph *graph.Graph
	pm    parity.Model
}

// loadForRun reads the model at path, opens its checkpoint and prepares
// feeds and fetches. Every failure is an input error (exit 3) except a
// bad flag value (exit 2).
func loadForRun(e *env, path string, f *parityFlags) (*loadedModel, error) {
	abs := path
	if !filepath.IsAbs(abs) {
		abs = joinWD(e, abs)
	}
	m, g, err := scan.Load(abs, f.tags)
	if err != nil {
		return nil, inputError(err)
	}
	lm := &loadedModel{path: path, model: m, graph: g, pm: parity.Model{Graph: g}}
	if m.VariablesPrefix != "" {
		ck, err := kernels.OpenCheckpoint(m.VariablesPrefix)
		if err != nil {
			return nil, inputError(fmt.Errorf("%s: checkpoint: %w", path, err))
		}
		lm.pm.Weights = ck
	}
	sig, err := chooseSignature(g, f.signature)
	if err != nil {
		return nil, err
	}
	// Fetches.
	if len(f.fetches) > 0 {
		lm.pm.Fetches = append([]string(nil), f.fetches...)
	} else {
		lm.pm.Fetches, lm.pm.Names = executor.Outputs(g, sig)
	}
	if len(lm.pm.Fetches) == 0 {
		return nil, usageErrorf("%s: nothing to fetch (the model has no outputs; use --fetch NAME)", path)
	}
	// Feeds.
	if f.inputs != "" {
		file := f.inputs
		if !filepath.IsAbs(file) {
			file = joinWD(e, file)
		}
		ts, err := npz.Read(file)
		if err != nil {
			return nil, inputError(fmt.Errorf("%s: %w", f.inputs, err))
		}
		if lm.pm.Feeds, _, err = executor.FeedsFrom(g, sig, ts); err != nil {
			return nil, inputError(fmt.Errorf("%s: %w", f.inputs, err))
		}
		return lm, nil
	}
	feeds, err := seededFeeds(g, lm.pm.Weights, executor.Inputs(g, sig), uint32(f.seed), f.dim)
	if err != nil {
		return nil, inputError(fmt.Errorf("%s: %w", path, err))
	}
	lm.pm.Feeds = feeds
	return lm, nil
}

// seededFeeds seeds the inputs as `tfscan run` and the rewrite proof do:
// string inputs from a session of the model (its tables' words, the
// tf.Examples its ParseExample nodes parse), started only for them. A
// model whose session cannot start is seeded without one: the parity runs
// report why it cannot run.
func seededFeeds(g *graph.Graph, weights kernels.WeightSource, infos []*savedmodel.TensorInfo, seed uint32, dim int) (map[string]*kernels.Tensor, error) {
	if executor.HasStringInput(infos) {
		if ex, err := executor.New(g, weights, executor.Options{}); err == nil {
			return ex.SeededFeeds(infos, seed, dim)
		}
	}
	return executor.SeededFeeds(infos, seed, dim)
}

// runError maps an execution failure to exit 3: the model could not be
// run (a missing kernel, a bad feed, a malformed loop).
func runError(path string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return inputError(fmt.Errorf("%s: %w", path, err))
}

func runParity(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("parity", e.stderr)
	var f parityFlags
	f.register(fs)
	var formats repeatFlag
	fs.Var(&formats, "format", "output `FORMAT[=FILE]`: table, json, html, markdown, sarif, junit (repeatable)")
	prec := fs.String("precision", "", "precision `PROFILE`: "+strings.Join(precision.Names(), ", ")+" (default: the target's)")
	ftz := fs.Bool("ftz", false, "flush subnormal results to zero (devices running with FTZ/DAZ)")
	atol := fs.Float64("atol", -1, "absolute tolerance (default: by profile, see docs/precision.md)")
	rtol := fs.Float64("rtol", -1, "relative tolerance (default: by profile)")
	golden := fs.String("golden", "", "outputs recorded on a device, `out.npz`, to compare too")
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
		if _, err := precision.Lookup(*prec, false); err != nil {
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
	var gold map[string]*kernels.Tensor
	if *golden != "" {
		file := *golden
		if !filepath.IsAbs(file) {
			file = joinWD(e, file)
		}
		if gold, err = npz.Read(file); err != nil {
			return inputError(fmt.Errorf("%s: %w", *golden, err))
		}
	}
	lm, err := loadForRun(e, paths[0], &f)
	if err != nil {
		return err
	}
	rm := &reports.Model{Path: lm.path, File: lm.model.File, Format: string(lm.model.Format), Signature: f.signature, Findings: []reports.Finding{}}
	failed := false
	nodes := scan.PrepareNodes(lm.graph, nil, ts.List)
	for _, t := range ts.List {
		rt := scan.Coverage(nodes, t)
		name := *prec
		if name == "" {
			name = t.Index.Pack().Precision
		}
		if name == "" {
			// A derived pack's stack computes like its base (hygon-dcu like rocm).
			like := t.Name
			if d := t.Index.Pack().Derived; d != nil {
				like = d.Base
			}
			name = precision.DefaultFor(like, t.Index.DeviceType()).Profile
		}
		prof, err := precision.Lookup(name, *ftz)
		if err != nil {
			return usageErrorf("target %s: %v", t.Name, err)
		}
		tol := defaultTolerance(prof)
		lowered, err := loweredByStack(lm.graph, t, *prec, *ftz)
		if err != nil {
			return usageErrorf("target %s: %v", t.Name, err)
		}
		if lowered != nil {
			prof.Name = lowered.name
			tol = lowered.tolerance(tol)
		}
		if *atol >= 0 {
			tol.ATol = *atol
		}
		if *rtol >= 0 {
			tol.RTol = *rtol
		}
		opts := parity.Options{Profile: prof, Tol: tol}
		if lowered != nil {
			opts.NodeProfile = func(n *graph.Node) *precision.Profile { return lowered.nodes[n] }
		}
		if err := placeNodes(e.stderr, lm, t, ts, prof, &opts); err != nil {
			return err
		}
		res, err := parity.Run(ctx, lm.pm, opts)
		if err != nil {
			return runError(lm.path, err)
		}
		rp := parityReport(res)
		if lowered != nil {
			lowered.annotate(rp, opts.OnCPU)
		}
		if gold != nil {
			g, err := compareGolden(gold, res, lm, tol)
			if err != nil {
				return inputError(fmt.Errorf("%s: %w", *golden, err))
			}
			rp.Golden = g
		}
		for _, o := range append(append([]reports.ParityOutput{}, rp.Outputs...), rp.Golden...) {
			failed = failed || !o.Pass
		}
		rt.Parity = rp
		rm.Targets = append(rm.Targets, rt)
		paritySummary(e.stderr, lm.path, t.Name, rp)
	}
	rep := &reports.Report{SchemaVersion: reports.SchemaVersion, Tool: reports.Tool{Name: "tfscan", Version: Version}, Models: []*reports.Model{rm}}
	if err := writeReports(e, formats, rep); err != nil {
		return err
	}
	if failed {
		return errGateFailed
	}
	return nil
}

// defaultTolerance is a few units of the storage format's rounding error:
// float32 storage 1e-5 (Polygraphy's default), TF32 operands and float16
// storage 1e-3, bfloat16 storage 1e-2 — absolute and relative alike.
func defaultTolerance(p *precision.Profile) parity.Tolerance {
	q := p
	if p.Mixed != nil {
		q = p.Mixed
	}
	switch {
	case q.Storage == tpb.DataType_DT_BFLOAT16:
		return parity.Tolerance{ATol: 1e-2, RTol: 1e-2}
	case q.Storage == tpb.DataType_DT_HALF, q.Operand != nil:
		return parity.Tolerance{ATol: 1e-3, RTol: 1e-3}
	}
	return parity.Tolerance{ATol: 1e-5, RTol: 1e-5}
}

// placeNodes runs the placement simulation so that nodes soft placement
// leaves on the CPU stay in float32 and, for a mixed profile, only the
// nodes auto mixed precision converts run in half. A target that is the
// CPU itself runs every node under the profile. When the simulation
// fails, every node is taken to run on the target, with a warning.
func placeNodes(stderr io.Writer, lm *loadedModel, t scan.Target, ts *scan.Targets, prof *precision.Profile, opts *parity.Options) error {
	source, err := ts.Source()
	if err != nil {
		return err
	}
	cpu, err := ts.CPUFor(t)
	if err != nil {
		return err
	}
	popts := placement.Options{Source: source, NoWishlist: true, Stack: t.Index.Stack()}
	switch {
	case strings.HasPrefix(prof.Name, precision.MixedFloat16):
		popts.Precision = placement.PrecisionMixedFloat16
	case strings.HasPrefix(prof.Name, precision.MixedBFloat16):
		popts.Precision = placement.PrecisionMixedBFloat16
	}
	res, err := placement.Simulate(lm.graph, t.Index, cpu, popts)
	if err != nil {
		fmt.Fprintf(stderr, "tfscan: warning: %s: placement simulation failed (%v); every node is taken to run on %s\n", lm.path, err, t.Name)
		return nil
	}
	if !strings.EqualFold(t.Index.DeviceType(), "CPU") {
		cpu := map[*graph.Node]bool{}
		for _, n := range res.Nodes {
			if n.Device == res.CPU && n.ID >= 0 && n.ID < len(lm.graph.Nodes) {
				cpu[lm.graph.Nodes[n.ID]] = true
			}
		}
		opts.OnCPU = func(n *graph.Node) bool { return cpu[n] }
	}
	if popts.Precision != "" {
		byPath := map[string]*graph.Node{}
		for _, n := range lm.graph.Nodes {
			byPath[n.Path()] = n
		}
		conv := map[*graph.Node]bool{}
		for _, a := range res.AMP {
			if n := byPath[a.Path]; n != nil && a.Covered {
				conv[n] = true
			}
		}
		opts.Converted = func(n *graph.Node) bool { return conv[n] }
	}
	return nil
}

// parityReport turns a parity result into the report model.
func parityReport(res *parity.Result) *reports.Parity {
	p := &reports.Parity{Profile: res.Profile, ATol: res.Tol.ATol, RTol: res.Tol.RTol, Outputs: []reports.ParityOutput{}, Nodes: []reports.ParityNode{}}
	if res.FirstDivergence != nil {
		s := res.FirstDivergence.Path()
		p.FirstDivergence = &s
	}
	for _, o := range res.Outputs {
		p.Outputs = append(p.Outputs, outputReport(o))
	}
	for _, n := range res.Nodes {
		p.Nodes = append(p.Nodes, reports.ParityNode{
			Path: n.Node.Path(), Op: n.Node.Op, MaxAbsError: n.MaxAbs, MaxRelError: n.MaxRel, MaxULP: n.MaxULP,
			Mismatches: n.Mismatches, NaNInfIntroduced: n.NaNInf, Overflow: n.Overflow, Underflow: n.Underflow,
		})
	}
	return p
}

func outputReport(o parity.OutputResult) reports.ParityOutput {
	st := &reports.ErrStats{Max: o.Stats.Max, Mean: o.Stats.Mean, Median: o.Stats.Median, P99: o.Stats.P99, Histogram: []reports.HistBin{}}
	for _, b := range o.Stats.Histogram {
		st.Histogram = append(st.Histogram, reports.HistBin{Lo: b.Lo, Hi: b.Hi, Count: b.Count})
	}
	return reports.ParityOutput{Name: o.Name, MaxAbsError: o.MaxAbs, MaxRelError: o.MaxRel, MaxULP: o.MaxULP,
		Mismatches: o.Mismatches, Pass: o.Pass, Stats: st}
}

// compareGolden compares recorded outputs with the float64 reference,
// output by output. A recorded array is found under the output's name,
// its tensor name, or the tensor name without ":0"; every output must be
// there, and every array must be an output.
func compareGolden(gold map[string]*kernels.Tensor, res *parity.Result, lm *loadedModel, tol parity.Tolerance) ([]reports.ParityOutput, error) {
	names := lm.pm.Names
	if names == nil {
		names = lm.pm.Fetches
	}
	used := map[string]bool{}
	var out []reports.ParityOutput
	for i, name := range names {
		fetch := lm.pm.Fetches[i]
		var g *kernels.Tensor
		for _, k := range []string{name, fetch, strings.TrimSuffix(fetch, ":0")} {
			if t, ok := gold[k]; ok {
				g, used[k] = t, true
				break
			}
		}
		if g == nil {
			return nil, fmt.Errorf("no recorded array for output %s (arrays: %s)", name, strings.Join(npz.SortedKeys(gold), ", "))
		}
		storage := g.DType
		if !dtype.IsFloat(storage) {
			storage = tpb.DataType_DT_DOUBLE
		}
		o, err := parity.CompareOutput(name, g, res.Reference[name], storage, tol)
		if err != nil {
			return nil, err
		}
		out = append(out, outputReport(o))
	}
	for _, k := range npz.SortedKeys(gold) {
		if !used[k] {
			return nil, fmt.Errorf("array %q is no output of the model (outputs: %s)", k, strings.Join(names, ", "))
		}
	}
	return out, nil
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
