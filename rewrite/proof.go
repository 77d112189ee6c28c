package rewrite

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/executor"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/kernels"
	"github.com/tfscan/tfscan/savedmodel"
)

// The proof runs the original and the rewritten graph through the executor
// on the same inputs and checks two things:
//
//   - every rewritten top-level node, on the inputs the original graph
//     gives it, against its replacement fed those same inputs (so that a
//     rule is judged on its own, not on what rules before it changed):
//     bit-identical for an exact rule, within the rule's element bound for
//     a tolerance rule. A node in a function body, which cannot be fed, is
//     compared in the two whole runs instead: each execution of it (once
//     per call of its function) against the same execution of its
//     replacement's last node (a folded constant: the Const);
//   - every output of the run: bit-identical when only exact rules
//     applied, else within the largest OutputTol of the tolerance rules
//     applied, relative to the output's largest magnitude.

// ProofOptions are the inputs the proof runs on.
type ProofOptions struct {
	// Inputs are the user's arrays (--inputs), keyed by signature input
	// key or tensor name, for Signature; nil for none.
	Inputs     map[string]*kernels.Tensor
	InputsName string
	// Signature is the signature the user's inputs are for ("": the one
	// the run would choose: serving_default, else the only one).
	Signature string
	// Seed and Dim make the seeded inputs (executor.Executor.SeededFeeds:
	// strings from the words of the model's own lookup tables, tf.Examples
	// for the inputs a ParseExample parses) every signature is also run on.
	Seed uint32
	Dim  int
	// Weights is the model's checkpoint (nil without one).
	Weights kernels.WeightSource
}

// Proof is what the runs showed.
type Proof struct {
	Runs []ProofRun
	// Rules holds, per rule applied, what its nodes' checks saw.
	Rules []*RuleEvidence
	// NotExercised are the paths of rewritten nodes that no run executed:
	// their rule's exactness is argued, not measured, on this model.
	NotExercised []string
}

// ProofRun is one run of both graphs on one set of inputs.
type ProofRun struct {
	// Name says which signature and which inputs ("serving_default,
	// seeded inputs (seed 1)").
	Name    string
	Outputs int
	// Identical is set when every output was bit-identical.
	Identical      bool
	MaxAbs, MaxRel float64
}

// RuleEvidence is what the checks of one rule's nodes saw: the nodes
// rewritten by Rule alone, or by Rule with Chained rules on the nodes of
// its replacement (each such chain is its own entry, with the chain's
// exactness).
type RuleEvidence struct {
	Rule      *Rule
	Chained   []*Rule
	Exactness Exactness
	Nodes     int
	// Checks counts node executions compared (a node runs once a run, or
	// once per call of its function).
	Checks         int
	MaxAbs, MaxRel float64
}

// ProofError is a rewrite whose values do not hold: nothing is written.
type ProofError struct {
	Rule, Node, Run string
	Detail          string
}

func (e *ProofError) Error() string {
	if e.Rule == "" {
		return fmt.Sprintf("proof failed on %s: %s", e.Run, e.Detail)
	}
	return fmt.Sprintf("proof failed: rule %s on node %s (%s): %s", e.Rule, e.Node, e.Run, e.Detail)
}

// RunError is a graph the executor cannot run, so that nothing can be
// proven.
type RunError struct{ Err error }

func (e *RunError) Error() string {
	return "cannot run the model to prove the rewrite: " + e.Err.Error()
}
func (e *RunError) Unwrap() error { return e.Err }

// Prove runs the original graph (res.Base, which computes what the model's
// graph does) and the rewritten graph (res.Graph) as described above.
// Without applications there is nothing to prove and no run is made: the
// unpin rule changes device fields only.
func Prove(ctx context.Context, res *Result, opts ProofOptions) (*Proof, error) {
	orig := res.Base
	pr := &Proof{}
	if len(res.Applications) == 0 {
		// Nothing computes differently: dropping device fields (unpin)
		// changes where nodes run, never what a kernel reads.
		return pr, nil
	}
	st := newProofState(orig, res)
	ex0, err := executor.New(orig, opts.Weights, executor.Options{AfterNode: st.after0, BeforeKernel: st.before0})
	if err != nil {
		return nil, &RunError{err}
	}
	ex1, err := executor.New(res.Graph, opts.Weights, executor.Options{AfterNode: st.after1})
	if err != nil {
		return nil, &RunError{fmt.Errorf("the rewritten graph: %w", err)}
	}
	st.ex1 = ex1
	sets, err := inputSets(orig, ex0, opts)
	if err != nil {
		return nil, err
	}
	for _, s := range sets {
		if err := st.run(ctx, ex0, ex1, s, pr); err != nil {
			return nil, err
		}
	}
	for _, a := range res.Applications {
		if !st.exercised[a] {
			pr.NotExercised = append(pr.NotExercised, a.Path)
		}
	}
	sort.Strings(pr.NotExercised)
	for _, ev := range st.evidence {
		pr.Rules = append(pr.Rules, ev)
	}
	sort.Slice(pr.Rules, func(i, j int) bool {
		a, b := pr.Rules[i], pr.Rules[j]
		if ia, ib := ruleIndex(a.Rule), ruleIndex(b.Rule); ia != ib {
			return ia < ib
		}
		return chainName(a.Rule, a.Chained) < chainName(b.Rule, b.Chained)
	})
	return pr, nil
}

// inputSet is one run: feeds by tensor name and what to fetch.
type inputSet struct {
	name    string
	feeds   map[string]*kernels.Tensor
	fetches []string
}

// inputSets are the user's inputs (for their signature) and seeded
// inputs for every signature but the init op, or for a graph without
// signatures its Placeholders and sinks, seeded by ex (the original
// model's session: string inputs draw from its tables' words).
func inputSets(g *graph.Graph, ex *executor.Executor, opts ProofOptions) ([]inputSet, error) {
	var sigs []*savedmodel.Signature
	for _, s := range g.Signatures {
		if s.Key != "__saved_model_init_op" {
			sigs = append(sigs, s)
		}
	}
	var sets []inputSet
	if opts.Inputs != nil {
		sig := pickSignature(sigs, opts.Signature)
		feeds, _, err := executor.FeedsFrom(g, sig, opts.Inputs)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", opts.InputsName, err)
		}
		names, _ := executor.Outputs(g, sig)
		sets = append(sets, inputSet{name: runName(sig, "the inputs of "+opts.InputsName), feeds: feeds, fetches: names})
	}
	seeded := func(sig *savedmodel.Signature) error {
		inputs := executor.Inputs(g, sig)
		feeds, err := ex.SeededFeeds(inputs, opts.Seed, opts.Dim)
		if err != nil {
			return &RunError{err}
		}
		what := fmt.Sprintf("seed %d", opts.Seed)
		if s := ex.StringSeeding(inputs); s != "" {
			what += "; " + s
		}
		names, _ := executor.Outputs(g, sig)
		sets = append(sets, inputSet{name: runName(sig, "seeded inputs ("+what+")"), feeds: feeds, fetches: names})
		return nil
	}
	if len(sigs) == 0 {
		sigs = []*savedmodel.Signature{nil}
	}
	for _, sig := range sigs {
		if err := seeded(sig); err != nil {
			return nil, err
		}
	}
	return sets, nil
}

func pickSignature(sigs []*savedmodel.Signature, key string) *savedmodel.Signature {
	if key != "" {
		return executor.FindSignature(sigs, key)
	}
	if s := executor.FindSignature(sigs, "serving_default"); s != nil {
		return s
	}
	if len(sigs) == 1 {
		return sigs[0]
	}
	return nil
}

func runName(sig *savedmodel.Signature, inputs string) string {
	if sig == nil {
		return "the graph's outputs, " + inputs
	}
	return "signature " + sig.Key + ", " + inputs
}

// proofState is what the hooks record during the runs.
type proofState struct {
	mu sync.Mutex
	// byOrig finds the application of an original node; byName that of a
	// replacement's last node, by function name and node name.
	byOrig map[*graph.Node]*Application
	byName map[[2]string]*Application
	ex1    *executor.Executor
	// per run
	set      *inputSet
	inputs   map[*Application][]*kernels.Tensor
	outs0    map[*Application][]*kernels.Tensor
	outs1    map[*Application][]*kernels.Tensor
	failure  *ProofError
	localErr error
	// over all runs
	exercised map[*Application]bool
	evidence  map[string]*RuleEvidence
	inLocal   bool
}

func newProofState(orig *graph.Graph, res *Result) *proofState {
	st := &proofState{byOrig: map[*graph.Node]*Application{}, byName: map[[2]string]*Application{},
		exercised: map[*Application]bool{}, evidence: map[string]*RuleEvidence{}}
	for _, a := range res.Applications {
		st.byOrig[a.orig] = a
		st.byName[[2]string{a.Function, a.Name}] = a
		k := a.ChainName()
		ev := st.evidence[k]
		if ev == nil {
			ev = &RuleEvidence{Rule: a.Rule, Chained: chainRules(a.Chained), Exactness: a.Exactness()}
			st.evidence[k] = ev
		}
		ev.Nodes++
	}
	return st
}

func (st *proofState) before0(n *graph.Node, in []*kernels.Tensor) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if a := st.byOrig[n]; a != nil && st.set != nil {
		st.inputs[a] = append([]*kernels.Tensor(nil), in...)
	}
}

// after0 records an original node's output and, at top level, checks its
// replacement on the same inputs at once (so that no run holds every
// node's tensors).
func (st *proofState) after0(n *graph.Node, outs []*kernels.Tensor) {
	st.mu.Lock()
	a := st.byOrig[n]
	if a == nil || st.set == nil || len(outs) == 0 || outs[0] == nil {
		st.mu.Unlock()
		return
	}
	st.exercised[a] = true
	in := st.inputs[a]
	delete(st.inputs, a)
	if n.Func != nil || in == nil && a.Rule != ruleFold {
		// Not fed on its own (a function body, or an op the executor runs
		// itself): compared in the whole runs.
		st.outs0[a] = append(st.outs0[a], outs[0])
		st.mu.Unlock()
		return
	}
	st.mu.Unlock()
	st.local(a, n, in, outs[0])
}

func (st *proofState) after1(n *graph.Node, outs []*kernels.Tensor) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.set == nil || st.inLocal || len(outs) == 0 || outs[0] == nil {
		return
	}
	fn := ""
	if n.Func != nil {
		fn = n.Func.Name
	}
	if a := st.byName[[2]string{fn, n.Name}]; a != nil && st.outs0[a] != nil {
		st.outs1[a] = append(st.outs1[a], outs[0])
	}
}

// local runs the replacement of the top-level node n fed n's inputs and
// compares its output 0 with want.
func (st *proofState) local(a *Application, n *graph.Node, in []*kernels.Tensor, want *kernels.Tensor) {
	feeds := map[string]*kernels.Tensor{}
	k := 0
	for _, e := range n.Inputs {
		if e.Node == nil {
			continue
		}
		if k < len(in) && in[k] != nil {
			feeds[fmt.Sprintf("%s:%d", e.Node.Name, e.Output)] = in[k]
		}
		k++
	}
	if a.Rule == ruleFold {
		feeds = nil
	} else if k != len(in) {
		st.fail(a, fmt.Sprintf("the original node took %d inputs, the graph names %d", len(in), k))
		return
	}
	st.mu.Lock()
	st.inLocal = true
	st.mu.Unlock()
	out, err := st.ex1.Run(context.Background(), feeds, []string{n.Name + ":0"})
	st.mu.Lock()
	st.inLocal = false
	st.mu.Unlock()
	if err != nil {
		st.mu.Lock()
		if st.localErr == nil {
			st.localErr = fmt.Errorf("running the replacement of %s: %w", a.Path, err)
		}
		st.mu.Unlock()
		return
	}
	st.check(a, n, in, want, out[n.Name+":0"])
}

// check compares one execution of a rewritten node.
func (st *proofState) check(a *Application, n *graph.Node, in []*kernels.Tensor, want, got *kernels.Tensor) {
	st.mu.Lock()
	defer st.mu.Unlock()
	ev := st.evidence[a.ChainName()]
	ev.Checks++
	d, err := compare(a.Exactness(), n, in, want, got)
	ev.MaxAbs = math.Max(ev.MaxAbs, d.maxAbs)
	ev.MaxRel = math.Max(ev.MaxRel, d.maxRel)
	if err != nil && st.failure == nil {
		st.failure = &ProofError{Rule: a.Rule.Name, Node: a.Path, Run: st.set.name, Detail: err.Error()}
	}
}

func (st *proofState) fail(a *Application, detail string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.failure == nil {
		st.failure = &ProofError{Rule: a.Rule.Name, Node: a.Path, Run: st.set.name, Detail: detail}
	}
}

// run runs both graphs on one input set.
func (st *proofState) run(ctx context.Context, ex0, ex1 *executor.Executor, s inputSet, pr *Proof) error {
	st.set = &s
	st.inputs = map[*Application][]*kernels.Tensor{}
	st.outs0 = map[*Application][]*kernels.Tensor{}
	st.outs1 = map[*Application][]*kernels.Tensor{}
	defer func() { st.set = nil }()
	want, err := ex0.Run(ctx, s.feeds, s.fetches)
	if err != nil {
		return &RunError{fmt.Errorf("%s: %w", s.name, err)}
	}
	if st.localErr != nil {
		return &RunError{st.localErr}
	}
	if st.failure != nil {
		return st.failure
	}
	got, err := ex1.Run(ctx, s.feeds, s.fetches)
	if err != nil {
		return &RunError{fmt.Errorf("the rewritten graph, %s: %w", s.name, err)}
	}
	// Function bodies: compare the whole runs' executions in order.
	for _, a := range slices.SortedFunc(maps.Keys(st.outs0), func(a, b *Application) int { return strings.Compare(a.Path, b.Path) }) {
		ws, gs := st.outs0[a], st.outs1[a]
		if len(gs) == 0 && a.Rule == ruleFold {
			// A folded node whose consumers were folded too (a chain):
			// its Const feeds nothing in the rewritten body, so no run
			// executes it; it holds one value, which each execution of
			// the original must give.
			v, err := st.foldedValue(ctx, a)
			if err != nil {
				return &RunError{fmt.Errorf("the rewritten graph, %s: %w", s.name, err)}
			}
			for range ws {
				gs = append(gs, v)
			}
		}
		if len(gs) != len(ws) {
			st.fail(a, fmt.Sprintf("ran %d times in the original, %d times rewritten", len(ws), len(gs)))
			continue
		}
		for i := range ws {
			st.check(a, a.orig, nil, ws[i], gs[i])
		}
	}
	if st.failure != nil {
		return st.failure
	}
	// The outputs.
	exact, tol := true, 0.0
	for a := range st.byOrig {
		if e := st.byOrig[a].Exactness(); !e.Exact {
			exact = false
			tol = math.Max(tol, e.OutputTol)
		}
	}
	run := ProofRun{Name: s.name, Outputs: len(s.fetches), Identical: true}
	for _, name := range s.fetches {
		w, g := want[name], got[name]
		if w == nil && g == nil {
			continue
		}
		if w == nil || g == nil {
			return &ProofError{Run: s.name, Detail: fmt.Sprintf("output %s is missing from one of the runs", name)}
		}
		e := Exactness{Exact: exact, MaxULP: 0}
		d, err := compareOutput(e, tol, w, g)
		run.MaxAbs, run.MaxRel = math.Max(run.MaxAbs, d.maxAbs), math.Max(run.MaxRel, d.maxRel)
		if !d.identical {
			run.Identical = false
		}
		if err != nil {
			return &ProofError{Run: s.name, Detail: fmt.Sprintf("output %s: %v (rules applied: %s)", name, err, st.ruleList())}
		}
	}
	pr.Runs = append(pr.Runs, run)
	return nil
}

// foldedValue is the value of the Const that replaces a's node in the
// rewritten graph.
func (st *proofState) foldedValue(ctx context.Context, a *Application) (*kernels.Tensor, error) {
	var c *graph.Node
	if f := st.ex1.Graph().FunctionByName[a.Function]; f != nil {
		if i := slices.IndexFunc(f.Nodes, func(n *graph.Node) bool { return n.Op == "Const" && n.Name == a.Name }); i >= 0 {
			c = f.Nodes[i]
		}
	}
	if c == nil {
		return nil, fmt.Errorf("no Const %s in function %s", a.Name, a.Function)
	}
	outs, err := st.ex1.RunNode(ctx, c, nil)
	if err != nil {
		return nil, err
	}
	return outs[0], nil
}

func (st *proofState) ruleList() string {
	var names []string
	for k := range st.evidence {
		names = append(names, k)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// diff is what a comparison saw.
type diff struct {
	identical      bool
	maxAbs, maxRel float64
}

// compare checks got against want under e, for a rewritten node.
func compare(e Exactness, n *graph.Node, in []*kernels.Tensor, want, got *kernels.Tensor) (diff, error) {
	d, err := sameShape(want, got)
	if err != nil {
		return d, err
	}
	wf, gf, isFloat := kernels.FloatValues(want), kernels.FloatValues(got), true
	if wf == nil || gf == nil {
		isFloat = false
	}
	if isFloat {
		d.maxAbs, d.maxRel = errors2(wf, gf)
	}
	if d.identical = kernels.Identical(want, got); d.identical {
		return d, nil
	}
	if e.Exact || !isFloat {
		return d, fmt.Errorf("not bit-identical (max abs difference %.3g, max rel %.3g)", d.maxAbs, d.maxRel)
	}
	var bound func(int) float64
	if e.bound != nil && in != nil {
		var err error
		if bound, err = e.bound(n, in); err != nil {
			return d, fmt.Errorf("cannot work out the bound: %v", err)
		}
	} else if e.bound != nil {
		return d, errors.New("differs, and the bound needs the node's inputs, which a function body does not give")
	}
	u := unitRoundoff(e.Unit, want.DType)
	scale := maxAbs(wf)
	for i := range wf {
		w, g := wf[i], gf[i]
		if !finite(w) || !finite(g) {
			if !(kernels.Tolerance{}).Close(g, w) {
				return d, fmt.Errorf("element %d is %g, the original's %g", i, g, w)
			}
			continue
		}
		lim := u * (e.ULP*math.Abs(w) + e.MaxULP*scale)
		if bound != nil {
			lim += bound(i)
		}
		if !(kernels.Tolerance{ATol: lim}).Close(g, w) {
			return d, fmt.Errorf("element %d is %g, the original's %g: off by %.3g, over the rule's bound %.3g", i, g, w, math.Abs(w-g), lim)
		}
	}
	return d, nil
}

// compareOutput checks a model output: bit-identical when exact, else
// within tol of its largest magnitude.
func compareOutput(e Exactness, tol float64, want, got *kernels.Tensor) (diff, error) {
	d, err := sameShape(want, got)
	if err != nil {
		return d, err
	}
	wf, gf := kernels.FloatValues(want), kernels.FloatValues(got)
	if wf != nil && gf != nil {
		d.maxAbs, d.maxRel = errors2(wf, gf)
	}
	if d.identical = kernels.Identical(want, got); d.identical {
		return d, nil
	}
	if e.Exact || wf == nil || gf == nil {
		return d, fmt.Errorf("not bit-identical (max abs difference %.3g, max rel %.3g)", d.maxAbs, d.maxRel)
	}
	lim := tol * maxAbs(wf)
	for i := range wf {
		w, g := wf[i], gf[i]
		if !finite(w) || !finite(g) {
			if !(kernels.Tolerance{}).Close(g, w) {
				return d, fmt.Errorf("element %d is %g, the original's %g", i, g, w)
			}
			continue
		}
		if !(kernels.Tolerance{ATol: lim}).Close(g, w) {
			return d, fmt.Errorf("element %d is %g, the original's %g: off by %.3g, over %g of the output's largest magnitude", i, g, w, math.Abs(w-g), tol)
		}
	}
	return d, nil
}

func sameShape(want, got *kernels.Tensor) (diff, error) {
	if want.DType != got.DType {
		return diff{}, fmt.Errorf("dtype %s, the original's %s", dtName(got.DType), dtName(want.DType))
	}
	if fmt.Sprint(want.Shape) != fmt.Sprint(got.Shape) {
		return diff{}, fmt.Errorf("shape %v, the original's %v", got.Shape, want.Shape)
	}
	return diff{}, nil
}

// errors2 is the largest absolute and relative difference over the
// finite elements.
func errors2(want, got []float64) (abs, rel float64) {
	for i := range want {
		w, g := want[i], got[i]
		if math.IsNaN(w) || math.IsNaN(g) || math.IsInf(w, 0) || math.IsInf(g, 0) {
			continue
		}
		d := math.Abs(w - g)
		abs = math.Max(abs, d)
		if w != 0 {
			rel = math.Max(rel, d/math.Abs(w))
		}
	}
	return abs, rel
}

// finite reports whether x is neither NaN nor infinite.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func maxAbs(xs []float64) float64 {
	m := 0.0
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			m = math.Max(m, math.Abs(x))
		}
	}
	return m
}

// unitRoundoff is u of unit, or of t when unit is unset.
func unitRoundoff(unit, t tpb.DataType) float64 {
	if unit == tpb.DataType_DT_INVALID {
		unit = t
	}
	switch unit {
	case tpb.DataType_DT_DOUBLE:
		return math.Ldexp(1, -53)
	case tpb.DataType_DT_HALF:
		return math.Ldexp(1, -11)
	case tpb.DataType_DT_BFLOAT16:
		return math.Ldexp(1, -8)
	}
	return math.Ldexp(1, -24)
}
