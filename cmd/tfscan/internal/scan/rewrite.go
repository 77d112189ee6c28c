package scan

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/coverage/placement"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/graph/shape"
	"github.com/tfscan/tfscan/kernels"
	"github.com/tfscan/tfscan/kernels/npz"
	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/rewrite"
	"github.com/tfscan/tfscan/savedmodel"
)

// RewriteOptions are `tfscan rewrite`'s.
type RewriteOptions struct {
	Path   string
	Target string
	// Output is where the rewritten model goes (-o).
	Output     string
	Registries []string
	Tags       []string
	// Signature is the signature the figures and the user's inputs are
	// about ("" for the default one).
	Signature string
	// Rules, AllowLowerPrecision and ClearDevices choose the rules
	// (rewrite.SelectRules).
	Rules               []string
	AllowLowerPrecision bool
	ClearDevices        bool
	// Inputs is an .npz of inputs for the proof (--inputs), "" for none.
	Inputs string
	// Seed and Dim make the proof's seeded inputs.
	Seed uint32
	Dim  int
	// Dims are the placement's --dim values.
	Dims    map[string]int64
	Version string
	// From is the --from source of the original model's scan.
	From string
	// Stack are the target stack's settings (--precision-mode,
	// --stack-option), as scan takes them.
	Stack coverage.StackSettings
}

// ProofFailedError is a rewrite the proof refuted: nothing was written.
type ProofFailedError struct{ Err *rewrite.ProofError }

func (e *ProofFailedError) Error() string {
	return e.Err.Error() + "; nothing was written"
}
func (e *ProofFailedError) Unwrap() error { return e.Err }

// Rewrite rewrites the model at opts.Path for one target, proves the
// rewrite on the executor and writes the model to opts.Output: the report
// holds the original model's scan with a rewrite section (rules, figures
// before and after, the proof). Usage problems (an unknown target or rule,
// an output that exists or cannot be created: savedmodel.OutputError) are
// UsageErrors found before the model is read;
// a model or input that cannot be read or run is a ModelError; a proof
// that fails is a ProofFailedError, and nothing is written then.
func Rewrite(ctx context.Context, opts RewriteOptions) (*reports.Report, error) {
	ts, err := ResolveTargets([]string{opts.Target}, opts.Registries)
	if err != nil {
		return nil, err
	}
	if len(ts.List) != 1 {
		return nil, &UsageError{errors.New("rewrite: want exactly one --target")}
	}
	if err := ts.SetFrom(opts.From); err != nil {
		return nil, err
	}
	if err := ts.ConfigureStacks(opts.Stack); err != nil {
		return nil, err
	}
	rules, err := rewrite.SelectRules(opts.Rules, opts.AllowLowerPrecision, opts.ClearDevices)
	if err != nil {
		return nil, &UsageError{err}
	}
	if err := savedmodel.CheckOutput(opts.Output); err != nil {
		return nil, &UsageError{err}
	}
	var inputs map[string]*kernels.Tensor
	if opts.Inputs != "" {
		if inputs, err = npz.Read(opts.Inputs); err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, &ModelError{Path: opts.Inputs, Err: err}
		}
	}
	m, g, err := Load(opts.Path, opts.Tags)
	if err != nil {
		return nil, err
	}
	if err := savedmodel.CheckOutputFor(m, opts.Output); err != nil {
		return nil, &UsageError{err}
	}
	counted, _ := ParsePhases(nil)
	sopts := Options{Targets: []string{opts.Target}, Signature: opts.Signature, Tags: opts.Tags, Version: opts.Version,
		Placement: PlacementOptions{Dims: opts.Dims}, Stack: opts.Stack}
	rm, err := scanLoaded(opts.Path, m, g, ts, counted, sopts, nil)
	if err != nil {
		return nil, err
	}
	t := ts.List[0]
	// The plan sizes what is restored from the checkpoint as the scan
	// does; one that cannot be read leaves those sizes unknown (the
	// scan's placement says so).
	sopts.checkpoint, _ = shape.OpenCheckpoint(m.VariablesPrefix)
	ropts, err := planOptions(ts, t, counted, sopts, rules)
	if err != nil {
		return nil, &ModelError{Path: opts.Path, Err: err}
	}
	primary := 0
	for i, mg := range m.MetaGraphs {
		if mg == g.MetaGraph {
			primary = i
		}
	}
	if m.VariablesPrefix != "" {
		ck, err := kernels.OpenCheckpoint(m.VariablesPrefix)
		if err != nil {
			return nil, &ModelError{Path: opts.Path, Err: err}
		}
		ropts.Weights = ck
	}
	res, err := rewrite.RewriteModel(ctx, m, primary, ropts)
	if err != nil {
		return nil, &ModelError{Path: opts.Path, Err: err}
	}
	var proofs []*rewrite.Proof
	for i, r := range res.MetaGraphs {
		popts := rewrite.ProofOptions{Seed: opts.Seed, Dim: opts.Dim, Weights: ropts.Weights}
		if i == primary {
			popts.Inputs, popts.InputsName, popts.Signature = inputs, opts.Inputs, opts.Signature
		}
		pr, err := rewrite.Prove(ctx, r, popts)
		if err != nil {
			var pe *rewrite.ProofError
			if errors.As(err, &pe) {
				return nil, &ProofFailedError{Err: pe}
			}
			return nil, &ModelError{Path: opts.Path, Err: err}
		}
		proofs = append(proofs, pr)
	}
	if err := savedmodel.Write(res.Model, opts.Output); err != nil {
		var oe *savedmodel.OutputError
		if errors.As(err, &oe) {
			// The output cannot be written (a race with CheckOutput, a
			// full disk): the user's -o, not the model.
			return nil, &UsageError{err}
		}
		return nil, &ModelError{Path: opts.Output, Err: err}
	}
	rt := rm.Targets[0]
	rt.Rewrite = rewriteSection(res, primary, proofs[primary], opts.Output)
	return &reports.Report{SchemaVersion: reports.SchemaVersion, Tool: reports.Tool{Name: "tfscan", Version: opts.Version},
		Models: []*reports.Model{rm}}, nil
}

// planOptions are the rewrite planner's options for target t: the same
// placement the scan simulates (signature, dims, the source GPU for
// fusions), counting the phases the scan counts.
func planOptions(ts *Targets, t Target, counted PhaseSet, opts Options, rules rewrite.RuleSet) (rewrite.Options, error) {
	cpu, err := ts.CPU()
	if err != nil {
		return rewrite.Options{}, err
	}
	src, err := ts.Source()
	if err != nil {
		return rewrite.Options{}, err
	}
	sig := opts.Signature
	return rewrite.Options{
		Rules: rules, Target: t.Index, CPU: cpu,
		Placement: placement.Options{Signature: sig, Dims: opts.Placement.Dims, Source: src, Precision: opts.Placement.Precision,
			Stack: t.Index.Stack(), Checkpoint: opts.checkpoint,
			// check's preview places as check does; rewrite's own scan
			// leaves both off (its --clear-devices is the unpin rule).
			NoSoftPlacement: opts.Placement.NoSoftPlacement, ClearDevices: opts.Placement.ClearDevices},
		Count: func(g *graph.Graph) func(*graph.Node) bool {
			if counted.All() {
				return func(*graph.Node) bool { return true }
			}
			phases := g.Phases(sig)
			return func(n *graph.Node) bool { return counted[phases[n.ID]] }
		},
	}, nil
}

// rewritePreview is how many fallback nodes `tfscan rewrite` would remove
// on t with its default rules (check's mention): the plan, not proven or
// written.
func rewritePreview(ctx context.Context, m *savedmodel.Model, g *graph.Graph, ts *Targets, t Target, counted PhaseSet, opts Options) (int, error) {
	rules, err := rewrite.SelectRules(nil, false, false)
	if err != nil {
		return 0, err
	}
	ropts, err := planOptions(ts, t, counted, opts, rules)
	if err != nil {
		return 0, err
	}
	// Plan sets the GraphDef of the def it is given, and nothing else.
	def := &mgpb.MetaGraphDef{}
	r, err := rewrite.Plan(ctx, g, def, ropts)
	if err != nil {
		return 0, err
	}
	return max(0, r.Before.Fallback-r.After.Fallback), nil
}

// rewriteSection is the report's view of a rewrite.
func rewriteSection(res *rewrite.ModelResult, primary int, pr *rewrite.Proof, out string) *reports.Rewrite {
	r := res.MetaGraphs[primary]
	rw := &reports.Rewrite{Output: out, Rules: []reports.RewriteRule{}, Skipped: []reports.RewriteSkip{},
		UnpinnedNodes: r.Unpinned, Before: figures(r.Before), After: figures(r.After),
		Proof: reports.RewriteProof{Runs: []reports.RewriteRun{}, NotExercised: pr.NotExercised}}
	for i, o := range res.MetaGraphs {
		if i != primary && (len(o.Applications) > 0 || o.Unpinned > 0) {
			rw.OtherMetaGraphs++
		}
	}
	byChain := map[string]*reports.RewriteRule{}
	var order []string
	for _, a := range r.Applications {
		k := a.ChainName()
		e := byChain[k]
		if e == nil {
			ex := a.Exactness()
			e = &reports.RewriteRule{Rule: a.Rule.Name, Kind: string(a.Rule.Kind), Exactness: ex.Name(), Claim: ex.Claim,
				Semantics: a.Rule.Semantics, Paths: []string{}, Ops: []string{}}
			for _, c := range a.Chained {
				if !contains(e.Chained, c.Name) {
					e.Chained = append(e.Chained, c.Name)
				}
			}
			byChain[k] = e
			order = append(order, k)
		}
		e.Nodes++
		e.Paths = append(e.Paths, a.Path)
		if !contains(e.Ops, a.Op) {
			e.Ops = append(e.Ops, a.Op)
		}
	}
	for _, ev := range pr.Rules {
		k := ev.Rule.Name
		for _, c := range ev.Chained {
			k += "+" + c.Name
		}
		if e := byChain[k]; e != nil {
			e.Checks, e.MaxAbsError, e.MaxRelError = ev.Checks, ev.MaxAbs, ev.MaxRel
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return ruleOrder(byChain[order[i]].Rule) < ruleOrder(byChain[order[j]].Rule) })
	for _, k := range order {
		e := byChain[k]
		sort.Strings(e.Paths)
		rw.Rules = append(rw.Rules, *e)
	}
	if r.Unpinned > 0 {
		u := rewrite.ByName("unpin")
		rw.Rules = append(rw.Rules, reports.RewriteRule{Rule: u.Name, Kind: string(u.Kind), Ops: []string{}, Nodes: r.Unpinned,
			Paths: []string{}, Exactness: u.Exactness.Name(), Claim: u.Exactness.Claim, Semantics: u.Semantics})
	}
	for _, run := range pr.Runs {
		rw.Proof.Runs = append(rw.Proof.Runs, reports.RewriteRun{Name: run.Name, Outputs: run.Outputs, Identical: run.Identical,
			MaxAbsError: run.MaxAbs, MaxRelError: run.MaxRel})
	}
	type skipKey struct{ rule, op, reason string }
	skips := map[skipKey]*reports.RewriteSkip{}
	var sk []skipKey
	for _, s := range r.Skipped {
		reason := s.Reason
		// The same reason with a different count of nodes is one group.
		k := skipKey{s.Rule, s.Op, reason}
		e := skips[k]
		if e == nil {
			e = &reports.RewriteSkip{Rule: s.Rule, Op: s.Op, Reason: reason, Example: s.Path}
			skips[k] = e
			sk = append(sk, k)
		}
		e.Nodes++
	}
	sort.SliceStable(sk, func(i, j int) bool { return skips[sk[i]].Nodes > skips[sk[j]].Nodes })
	for _, k := range sk {
		rw.Skipped = append(rw.Skipped, *skips[k])
	}
	return rw
}

func figures(f rewrite.Figures) reports.RewriteFigures {
	pct := 100.0
	if f.Nodes > 0 {
		pct = 100 * float64(f.Nodes-f.Uncovered) / float64(f.Nodes)
	}
	return reports.RewriteFigures{Nodes: f.Nodes, Covered: f.Nodes - f.Uncovered, CoveragePercent: pct,
		FallbackNodes: f.Fallback, UnplaceableNodes: f.Unplaceable, CPUNodes: f.OnCPU, PinnedCPUNodes: f.PinnedOnCPU,
		Partitions: f.Partitions, Transfers: f.Transfers, TransferBytes: f.TransferBytes}
}

func ruleOrder(name string) int {
	for i, r := range rewrite.Rules() {
		if r.Name == name {
			return i
		}
	}
	return len(rewrite.Rules())
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// RewriteFixes names, for a node the target has no kernel for, the
// `tfscan rewrite` command line that replaces it by nodes the target
// covers (explain's fixes). The graph is planned as that command line
// plans it — its default rules, with the cast rule where the fix needs
// --allow-lower-precision — and with the scan's settings: the target's
// stack as configured (--precision-mode, --stack-option), the signature,
// and the placement's --clear-devices and --no-soft-placement (as check's
// preview). Only what the plan does to the node is named: a rule that could
// replace the node alone but that the plan leaves (it would add transfers,
// say) is no fix. The command carries the settings rewrite takes
// (--clear-devices, --precision-mode, --stack-option, --signature, --tags).
func (s *Scanned) RewriteFixes(n *graph.Node) []reports.Fix {
	if s == nil || s.Graph == nil || len(s.ts.List) != 1 {
		return nil
	}
	t := s.ts.List[0]
	var fixes []reports.Fix
	for _, sg := range rewrite.Suggest(s.Graph, n, t.Index) {
		names := []string{sg.Rule.Name}
		for _, c := range sg.Chained {
			names = append(names, c.Name)
		}
		lower := sg.Rule.Kind == rewrite.KindCast
		if !s.planApplies(lower, strings.Join(names, "+"), n) {
			continue
		}
		flags := ""
		if lower {
			flags += " --allow-lower-precision"
		}
		flags += s.rewriteFlags()
		how := "bit-identical in the op's dtype"
		if !sg.Exactness.Exact {
			how = "within a declared bound: " + sg.Exactness.Claim
		}
		fixes = append(fixes, reports.Fix{Rule: sg.Rule.Name,
			Text: fmt.Sprintf("tfscan rewrite MODEL --target %s -o OUT%s replaces it by %s, which %s has kernels for (%s, %s; proven on the executor before it writes)",
				t.Name, flags, strings.Join(sg.Ops, ", "), t.Name, strings.Join(names, "+"), how)})
	}
	return fixes
}

// planApplies reports whether rewrite's default plan (with the cast rule
// when lower) rewrites n with the rule chain named chain. The two plans
// are made once each: explain asks of many nodes.
func (s *Scanned) planApplies(lower bool, chain string, n *graph.Node) bool {
	res, ok := s.plans[lower]
	if !ok {
		rules, err := rewrite.SelectRules(nil, lower, false)
		if err != nil {
			return false
		}
		ropts, err := planOptions(s.ts, s.ts.List[0], s.counted, s.opts, rules)
		if err != nil {
			return false
		}
		// A plan that fails names no fix (the scan itself went through).
		res, _ = rewrite.Plan(context.Background(), s.Graph, &mgpb.MetaGraphDef{}, ropts)
		s.plans[lower] = res
	}
	if res == nil {
		return false
	}
	path := n.Path()
	for _, a := range res.Applications {
		if a.Path == path && a.ChainName() == chain {
			return true
		}
	}
	return false
}

// rewriteFlags are the settings of the scan that `tfscan rewrite` takes as
// flags, for a command line that plans as the scan placed: the stack's, the
// signature and tags, and --clear-devices (rewrite's unpin rule drops the
// pins an import with clear_devices=True ignores). --no-soft-placement has
// no rewrite flag: it is how the rewritten model is run, not written.
func (s *Scanned) rewriteFlags() string {
	var b strings.Builder
	o := s.opts
	if o.Placement.ClearDevices {
		b.WriteString(" --clear-devices")
	}
	if o.Stack.PrecisionMode != "" {
		b.WriteString(" --precision-mode " + o.Stack.PrecisionMode)
	}
	keys := make([]string, 0, len(o.Stack.Options))
	for k := range o.Stack.Options {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		b.WriteString(" --stack-option " + k + "=" + o.Stack.Options[k])
	}
	if o.Signature != "" {
		b.WriteString(" --signature " + o.Signature)
	}
	if len(o.Tags) > 0 {
		b.WriteString(" --tags " + strings.Join(o.Tags, ","))
	}
	return b.String()
}
