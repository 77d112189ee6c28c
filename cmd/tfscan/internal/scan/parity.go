package scan

import (
	"context"
	"fmt"
	"io"
	"strings"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/coverage/placement"
	"github.com/tfscan/tfscan/dtype"
	"github.com/tfscan/tfscan/executor"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/kernels"
	"github.com/tfscan/tfscan/kernels/npz"
	"github.com/tfscan/tfscan/kernels/precision"
	"github.com/tfscan/tfscan/parity"
	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/savedmodel"
)

// loadedModel is a model ready to execute.
type loadedModel struct {
	path  string // as given
	model *savedmodel.Model
	graph *graph.Graph
	pm    parity.Model
}

// LoadOptions are what a parity or vectors run loads, feeds and fetches:
// Path and Inputs as given (for messages), File and InputsFile resolved
// against the working directory.
type LoadOptions struct {
	Path, File         string
	Tags               []string
	Signature          string
	Fetches            []string
	Inputs, InputsFile string
	Seed               uint32
	Dim                int
}

// loadForRun reads the model, opens its checkpoint and prepares feeds and
// fetches. Every failure is an input error (exit 3) except a bad flag
// value (exit 2).
func loadForRun(f LoadOptions) (*loadedModel, error) {
	path := f.Path
	m, g, err := Load(f.File, f.Tags)
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
	sig, err := ChooseSignature(g, f.Signature)
	if err != nil {
		return nil, err
	}
	// Fetches.
	if len(f.Fetches) > 0 {
		lm.pm.Fetches = append([]string(nil), f.Fetches...)
	} else {
		lm.pm.Fetches, lm.pm.Names = executor.Outputs(g, sig)
	}
	if len(lm.pm.Fetches) == 0 {
		return nil, usageErrorf("%s: nothing to fetch (the model has no outputs; use --fetch NAME)", path)
	}
	// Feeds.
	if f.Inputs != "" {
		ts, err := npz.Read(f.InputsFile)
		if err != nil {
			return nil, inputError(fmt.Errorf("%s: %w", f.Inputs, err))
		}
		if lm.pm.Feeds, _, err = executor.FeedsFrom(g, sig, ts); err != nil {
			return nil, inputError(fmt.Errorf("%s: %w", f.Inputs, err))
		}
		return lm, nil
	}
	feeds, err := seededFeeds(g, lm.pm.Weights, executor.Inputs(g, sig), f.Seed, f.Dim)
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

// ParityOptions are what `tfscan parity` compares: the model and its
// inputs, the targets (ResolveTargets), the profile and tolerances
// (Precision "" and negative ATol, RTol: the target's), and the outputs
// recorded on a device (Golden as given, GoldenFile resolved).
type ParityOptions struct {
	Load               LoadOptions
	Targets            *Targets
	Precision          string
	FTZ                bool
	ATol, RTol         float64
	Golden, GoldenFile string
	// Emulated is where the outputs under the profile go (.npz, one
	// target; "" for nowhere), for comparing with a device's own run.
	Emulated  string
	Signature string
	Version   string
	// Warn receives warnings (a placement simulation that failed);
	// OnTarget is called with each target's result as it is done.
	Warn     io.Writer
	OnTarget func(path, target string, p *reports.Parity)
}

// Parity runs the model in float64 and under each target's precision
// profile and reports how far they are apart (docs/precision.md); failed
// is true when an output is outside its tolerance.
func Parity(ctx context.Context, o ParityOptions) (rep *reports.Report, failed bool, err error) {
	ts := o.Targets
	var gold map[string]*kernels.Tensor
	if o.Golden != "" {
		if gold, err = npz.Read(o.GoldenFile); err != nil {
			return nil, false, inputError(fmt.Errorf("%s: %w", o.Golden, err))
		}
	}
	lm, err := loadForRun(o.Load)
	if err != nil {
		return nil, false, err
	}
	rm := &reports.Model{Path: lm.path, File: lm.model.File, Format: string(lm.model.Format), Signature: o.Load.Signature, Findings: []reports.Finding{}}
	nodes := PrepareNodes(lm.graph, nil, ts.List)
	for _, t := range ts.List {
		rt := Coverage(nodes, t)
		name := o.Precision
		if name == "" {
			name = t.Index.Info().Precision
		}
		if name == "" {
			// A derived pack's stack computes like its base (hygon-dcu like rocm).
			like := t.Name
			if d := t.Index.Info().Derived; d != nil {
				like = d.Base
			}
			name = precision.DefaultFor(like, t.Index.DeviceType()).Profile
		}
		prof, err := precision.Lookup(name, o.FTZ)
		if err != nil {
			return nil, false, usageErrorf("target %s: %v", t.Name, err)
		}
		tol := defaultTolerance(prof)
		lowered, err := loweredByStack(lm.graph, t, o.Precision, o.FTZ)
		if err != nil {
			return nil, false, usageErrorf("target %s: %v", t.Name, err)
		}
		if lowered != nil {
			prof.Name = lowered.name
			tol = lowered.tolerance(tol)
		}
		if o.ATol >= 0 {
			tol.ATol = o.ATol
		}
		if o.RTol >= 0 {
			tol.RTol = o.RTol
		}
		opts := parity.Options{Profile: prof, Tol: tol}
		if lowered != nil {
			opts.NodeProfile = func(n *graph.Node) *precision.Profile { return lowered.nodes[n] }
		}
		if err := parityPlacement(o.Warn, lm, t, ts, prof, &opts); err != nil {
			return nil, false, err
		}
		res, err := parity.Run(ctx, lm.pm, opts)
		if err != nil {
			return nil, false, runError(lm.path, err)
		}
		if o.Emulated != "" {
			if len(ts.List) != 1 {
				return nil, false, usageErrorf("--emulated: want exactly one --target")
			}
			if err := npz.Write(o.Emulated, res.Emulated); err != nil {
				return nil, false, usageErrorf("--emulated: %v", err)
			}
		}
		rp := parityReport(res)
		if rp.Training, err = parityTraining(ctx, lm, opts); err != nil {
			return nil, false, runError(lm.path, err)
		}
		if lowered != nil {
			lowered.annotate(rp, opts.OnCPU)
		}
		if gold != nil {
			g, err := compareGolden(gold, res, lm, tol)
			if err != nil {
				return nil, false, inputError(fmt.Errorf("%s: %w", o.Golden, err))
			}
			rp.Golden = g
		}
		for _, o := range append(append([]reports.ParityOutput{}, rp.Outputs...), rp.Golden...) {
			failed = failed || !o.Pass
		}
		rt.Parity = rp
		rm.Targets = append(rm.Targets, rt)
		if o.OnTarget != nil {
			o.OnTarget(lm.path, t.Name, rp)
		}
	}
	rep = &reports.Report{SchemaVersion: reports.SchemaVersion, Tool: reports.Tool{Name: "tfscan", Version: o.Version}, Models: []*reports.Model{rm}}
	return rep, failed, nil
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

// parityPlacement runs the placement simulation so that nodes soft placement
// leaves on the CPU stay in float32 and, for a mixed profile, only the
// nodes auto mixed precision converts run in half. A target that is the
// CPU itself runs every node under the profile. When the simulation
// fails, every node is taken to run on the target, with a warning.
func parityPlacement(stderr io.Writer, lm *loadedModel, t Target, ts *Targets, prof *precision.Profile, opts *parity.Options) error {
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

// PrecisionNames lists the precision profiles --precision takes.
func PrecisionNames() []string { return precision.Names() }

// CheckPrecision says whether name is a precision profile.
func CheckPrecision(name string) error {
	_, err := precision.Lookup(name, false)
	return err
}
