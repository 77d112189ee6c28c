package rewrite

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"

	"google.golang.org/protobuf/proto"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/coverage/placement"
	"github.com/tfscan/tfscan/executor"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/graph/shape"
	"github.com/tfscan/tfscan/kernels"
)

// maxChain bounds how deep a replacement's own uncovered nodes are
// rewritten in turn (an unfused Relu6 decomposed, say).
const maxChain = 3

// Options say what Plan may do and how to judge it.
type Options struct {
	// Rules are the rules it may use (SelectRules).
	Rules RuleSet
	// Target and CPU answer kernel lookups for the target device and the
	// CPU soft placement falls back to.
	Target, CPU coverage.Matcher
	// Placement are the simulation's options (signature, dims, fetches,
	// precision, source). Count and WhatIfCovered are set by Plan.
	Placement placement.Options
	// Count, when set, says which nodes of a graph the figures count (the
	// step phase, say); it is asked again of the rewritten graph. Nil
	// counts every node.
	Count func(g *graph.Graph) func(*graph.Node) bool
	// Weights is the model's checkpoint, for the executor that folds
	// constants (nil without one).
	Weights kernels.WeightSource
}

// Application is one node rewritten.
type Application struct {
	Rule *Rule
	// Node is the original node: its path, name, op and dtypes.
	Path, Name, Op string
	DTypes         []string
	// Function is the function whose body holds the node ("" at top level).
	Function string
	// Nodes are the names of the nodes that replace it (the last one has
	// the node's name).
	Nodes []string
	// Chained are the rules applied to nodes of the replacement that the
	// target did not cover either (decompose-relu6 after unfuse-conv2d).
	Chained []*Rule
	// orig is the node in the original graph; exp the replacement.
	orig *graph.Node
	exp  *expansion
}

// Exactness is what the whole replacement promises: the rule's, or where
// a chained rule is a tolerance rule, that rule's bound added on (the
// largest OutputTol).
func (a *Application) Exactness() Exactness {
	e := a.Rule.Exactness
	for _, r := range a.Chained {
		c := r.Exactness
		if c.Exact {
			continue
		}
		if e.Exact {
			e = c
			continue
		}
		e.ULP += c.ULP
		e.MaxULP += c.MaxULP
		e.OutputTol = max(e.OutputTol, c.OutputTol)
		if c.Unit != tpb.DataType_DT_INVALID {
			e.Unit = c.Unit
		}
		if c.bound != nil {
			e.bound = c.bound
		}
		e.Claim += "; " + c.Claim
	}
	return e
}

// ChainName is the rule's name, with the distinct chained rules after "+"
// ("unfuse-depthwise+cast-float16").
func (a *Application) ChainName() string { return chainName(a.Rule, chainRules(a.Chained)) }

func chainName(r *Rule, chained []*Rule) string {
	s := r.Name
	for _, c := range chained {
		s += "+" + c.Name
	}
	return s
}

// chainRules is the distinct rules of a chain, in rule order.
func chainRules(rs []*Rule) []*Rule {
	var out []*Rule
	for _, r := range rules {
		for _, c := range rs {
			if c == r {
				out = append(out, r)
				break
			}
		}
	}
	return out
}

func ruleIndex(r *Rule) int {
	for i, x := range rules {
		if x == r {
			return i
		}
	}
	return len(rules)
}

// Skip is a node a rule could rewrite but Plan left alone, and why.
type Skip struct {
	Rule       string
	Path, Op   string
	Reason     string
	Applicable bool // the rule had a replacement; the decision was Plan's
}

// Figures are what Plan compares before and after: over the counted nodes,
// those without a target kernel, those placed on CPU without one
// (fallbacks: what a rewrite can remove), every node placed on CPU and
// those of them a device field pins there, and the placement's partitions
// and transfers (between partitions; the copies of fed inputs and fetched
// outputs are apart, as in placement.Result).
type Figures struct {
	// Unplaceable nodes have a kernel neither on the target nor on the
	// CPU: TensorFlow refuses to place the graph at all.
	Unplaceable                int
	Nodes, Uncovered, Fallback int
	OnCPU, PinnedOnCPU         int
	Partitions, Transfers      int
	TransferBytes              int64
}

// better says whether a has fewer fallbacks than b, or as many and fewer
// transfer bytes.
func better(a, b Figures) bool {
	if a.Fallback != b.Fallback {
		return a.Fallback < b.Fallback
	}
	return a.TransferBytes < b.TransferBytes
}

// worse says whether a is worse than b in any figure a rewrite must not
// make worse.
//
// Fewer unplaceable nodes come first: a graph TensorFlow refuses to place
// has no transfers to speak of, so making it placeable is never worse.
func (a Figures) worse(b Figures) bool {
	if a.Unplaceable != b.Unplaceable {
		return a.Unplaceable > b.Unplaceable
	}
	return a.Uncovered > b.Uncovered || a.Fallback > b.Fallback || a.TransferBytes > b.TransferBytes
}

// Result is a rewrite of one meta graph.
type Result struct {
	Applications []*Application
	Skipped      []Skip
	// Unpinned is the number of device fields the unpin rule dropped.
	Unpinned int
	// Before and After are the figures of the original and the rewritten
	// graph on the target.
	Before, After Figures
	// Graph is the rewritten graph.
	Graph *graph.Graph
	// Def is the rewritten MetaGraphDef (Graph's).
	Def *mgpb.MetaGraphDef
	// Base is the graph the applications rewrote: the original, or the
	// original without its device pins (unpin). It computes the same
	// values as the original, and Prove compares Graph with it.
	Base *graph.Graph
}

// candidate is one node with a covered replacement.
type candidate struct {
	app  *Application
	wish placement.Wish
}

// planner holds one Plan's state.
type planner struct {
	g      *graph.Graph
	opts   Options
	scopes map[*graph.Function]*scope
	shapes *shape.Shapes
	ex     *executor.Executor
	exErr  error
	consts map[*graph.Node]*kernels.Tensor
	// bodyOuts are the outputs of body nodes executed alone (evalBody).
	bodyOuts map[*graph.Node]bodyResult
	// constness of a node: 1 constant, -1 not, 0 unknown yet
	constness map[*graph.Node]int
}

// Plan rewrites the graph g of one meta graph into def (a copy of its
// MetaGraphDef without the graph, which Plan fills): it finds every
// counted node the target does not cover that a rule can replace by
// covered nodes, asks the placement simulator what making each group of
// them covered does to the transfers (the kernel wishlist's what-if),
// applies the groups that remove transfers or leave them as they are, and
// checks the rewritten graph: it must import as TensorFlow imports graphs
// (graph.Build) and its figures must be no worse than the original's, else
// the group that helps least is dropped and the check repeated. With the
// unpin rule the device pins are dropped first and the rules planned on
// the unpinned graph; if that ends worse than the original, without it.
func Plan(ctx context.Context, g *graph.Graph, def *mgpb.MetaGraphDef, opts Options) (*Result, error) {
	if opts.Target == nil || opts.CPU == nil {
		return nil, errors.New("rewrite.Plan: a target and a CPU matcher are needed")
	}
	p := newPlanner(g, opts)
	before, _, err := p.figures(g, countFor(opts, g), nil)
	if err != nil {
		return nil, err
	}
	if opts.Rules[ruleUnpin] {
		ug, pins, err := unpinned(g)
		if err != nil {
			return nil, err
		}
		if pins > 0 {
			up := newPlanner(ug, opts)
			own, _, err := up.figures(ug, countFor(opts, ug), nil)
			if err != nil {
				return nil, err
			}
			res, err := up.planRules(ctx, def, before, own)
			if err != nil {
				return nil, err
			}
			// Planned with the pins too, the better plan wins: fewer
			// fallbacks, then fewer transfer bytes.
			pinnedDef := proto.Clone(def).(*mgpb.MetaGraphDef)
			pinned, err := p.planRules(ctx, pinnedDef, before, before)
			if err != nil {
				return nil, err
			}
			if !res.After.worse(before) && !better(pinned.After, res.After) {
				res.Unpinned = pins
				return res, nil
			}
			why := "the rewrite places no worse with the pins"
			if res.After.worse(before) {
				why = "it would place the graph worse"
			}
			pinned.Skipped = append(pinned.Skipped, Skip{Rule: ruleUnpin.Name, Applicable: true,
				Reason: fmt.Sprintf("the %d device pins are kept: %s (fallback %d→%d, transfer bytes %d→%d without them)",
					pins, why, before.Fallback, res.After.Fallback, before.TransferBytes, res.After.TransferBytes)})
			return pinned, nil
		}
	}
	return p.planRules(ctx, def, before, before)
}

func newPlanner(g *graph.Graph, opts Options) *planner {
	return &planner{g: g, opts: opts, scopes: map[*graph.Function]*scope{},
		consts: map[*graph.Node]*kernels.Tensor{}, bodyOuts: map[*graph.Node]bodyResult{}, constness: map[*graph.Node]int{}}
}

// planRules plans the rules on p's graph, keeping only what leaves the
// figures no worse than before (the original graph's).
// own is the figures of p's graph itself.
func (p *planner) planRules(ctx context.Context, def *mgpb.MetaGraphDef, before, own Figures) (*Result, error) {
	g, opts := p.g, p.opts
	count := countFor(opts, g)
	res := &Result{Before: before, After: own, Graph: g, Base: g, Def: def}
	var cands []*candidate
	byRule := byOp(opts.Rules)
	for _, n := range g.Nodes {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if !count(n) || n.OpDef == nil && n.Op != "Prelu" {
			continue
		}
		m := opts.Target.Match(n)
		if covered(m.Reason) || m.Reason == coverage.ReasonFunctionCall {
			continue
		}
		rs := append([]*Rule(nil), byRule[n.Op]...)
		if opts.Rules[ruleFold] {
			rs = append(rs, ruleFold)
		}
		if opts.Rules[ruleCast] && m.Reason == coverage.ReasonNoKernelForDType {
			rs = append(rs, ruleCast)
		}
		for _, r := range rs {
			app, err := p.try(r, n)
			if err != nil {
				var na *notApplicable
				if errors.As(err, &na) {
					res.Skipped = append(res.Skipped, Skip{Rule: r.Name, Path: n.Path(), Op: n.Op, Reason: na.why})
					continue
				}
				return nil, fmt.Errorf("rule %s on %s: %w", r.Name, n.Path(), err)
			}
			cands = append(cands, &candidate{app: app})
			break
		}
	}
	groups := groupCandidates(cands)
	if len(groups) > 0 {
		// The wishlist's question, asked of each group: what if these
		// nodes had a kernel on the target?
		var ask [][]*graph.Node
		for _, gr := range groups {
			var ns []*graph.Node
			for _, c := range gr {
				ns = append(ns, c.app.orig)
			}
			ask = append(ask, ns)
		}
		// And of all of them at once: groups that only help together
		// (nodes between other rewritten nodes) are judged together.
		var all []*graph.Node
		for _, ns := range ask {
			all = append(all, ns...)
		}
		ask = append(ask, all)
		popts := opts.Placement
		popts.Count = count
		popts.WhatIfCovered = ask
		popts.NoWishlist = true
		r, err := placement.Simulate(g, opts.Target, opts.CPU, popts)
		if err != nil {
			return nil, err
		}
		// Copies of the model's inputs and outputs to and from the
		// device are the price of running on it at all, counted apart
		// from the transfers (placement.Result.IOBytes): not held
		// against a rewrite.
		internal := func(w placement.Wish) int64 { return w.BytesRemoved - w.IOBytesRemoved }
		together := internal(r.WhatIf[len(groups)]) >= 0
		var kept [][]*candidate
		for i, gr := range groups {
			w := r.WhatIf[i]
			for _, c := range gr {
				c.wish = w
			}
			// A folded node becomes a Const, not a node with a kernel:
			// the what-if does not model it, the check below judges it.
			// Nor does it hold a node TensorFlow cannot place anywhere
			// (no CPU kernel either) against the rewrite that places it.
			if internal(w) < 0 && !together && gr[0].app.Rule != ruleFold && !p.unplaceable(gr[0].app.orig) {
				for _, c := range gr {
					res.Skipped = append(res.Skipped, Skip{Rule: c.app.Rule.Name, Path: c.app.Path, Op: c.app.Op, Applicable: true,
						Reason: fmt.Sprintf("making the %d %s node(s) covered would add %d bytes of transfers per step", len(gr), c.app.Op, -internal(w))})
				}
				continue
			}
			kept = append(kept, gr)
		}
		groups = kept
	}
	// Apply, check, and drop the group that helps least until the
	// rewritten graph is no worse than the original.
	for len(groups) > 0 {
		var apps []*Application
		for _, gr := range groups {
			for _, c := range gr {
				apps = append(apps, c.app)
			}
		}
		ng, err := applyAll(g, def, apps, false)
		if err != nil {
			return nil, err
		}
		after, _, err := p.figures(ng, countFor(opts, ng), nil)
		if err != nil {
			return nil, err
		}
		if !after.worse(before) {
			res.Applications, res.After, res.Graph = apps, after, ng
			break
		}
		worst := 0
		for i, gr := range groups {
			if gr[0].wish.BytesRemoved-gr[0].wish.IOBytesRemoved < groups[worst][0].wish.BytesRemoved-groups[worst][0].wish.IOBytesRemoved {
				worst = i
			}
		}
		for _, c := range groups[worst] {
			res.Skipped = append(res.Skipped, Skip{Rule: c.app.Rule.Name, Path: c.app.Path, Op: c.app.Op, Applicable: true,
				Reason: fmt.Sprintf("the rewritten graph placed worse (uncovered %d→%d, fallback %d→%d, transfer bytes %d→%d)",
					before.Uncovered, after.Uncovered, before.Fallback, after.Fallback, before.TransferBytes, after.TransferBytes)})
		}
		groups = append(groups[:worst], groups[worst+1:]...)
	}
	if len(res.Applications) == 0 {
		// Nothing rewritten: the def holds p's graph as it is (shared,
		// not copied; nothing changes it).
		def.GraphDef = g.MetaGraph.Def.GetGraphDef()
		res.Graph = g
	}
	return res, nil
}

// countFor is the count function of opts for g.
func countFor(opts Options, g *graph.Graph) func(*graph.Node) bool {
	if opts.Count == nil {
		return func(*graph.Node) bool { return true }
	}
	return opts.Count(g)
}

// figures simulates g on the target and counts what Plan compares.
func (p *planner) figures(g *graph.Graph, count func(*graph.Node) bool, clear func(*placement.Options)) (Figures, *placement.Result, error) {
	popts := p.opts.Placement
	popts.Count = count
	popts.NoWishlist = true
	popts.WhatIfCovered = nil
	if clear != nil {
		clear(&popts)
	}
	r, err := placement.Simulate(g, p.opts.Target, p.opts.CPU, popts)
	if err != nil {
		return Figures{}, nil, err
	}
	f := Figures{Partitions: r.Partitions, Transfers: r.Transfers, TransferBytes: r.TransferBytes}
	onCPU := map[int]bool{}
	pinned := map[int]bool{}
	for _, nr := range r.Nodes {
		if nr.Device == r.CPU {
			onCPU[nr.ID] = true
			if nr.RequestedDevice != "" {
				pinned[nr.ID] = true
			}
		}
	}
	for _, n := range g.Nodes {
		if !count(n) {
			continue
		}
		f.Nodes++
		if onCPU[n.ID] {
			f.OnCPU++
			if pinned[n.ID] {
				f.PinnedOnCPU++
			}
		}
		m := p.opts.Target.Match(n)
		if covered(m.Reason) || m.Reason == coverage.ReasonFunctionCall {
			continue
		}
		f.Uncovered++
		if onCPU[n.ID] {
			f.Fallback++
		}
		if !covered(p.opts.CPU.Match(n).Reason) {
			f.Unplaceable++
		}
	}
	return f, r, nil
}

// unplaceable says whether n has a kernel neither on the target nor on
// the CPU.
func (p *planner) unplaceable(n *graph.Node) bool {
	return !covered(p.opts.Target.Match(n).Reason) && !covered(p.opts.CPU.Match(n).Reason)
}

// groupCandidates groups candidates by rule, op and dtypes, in a stable
// order: the unit the what-if is asked about and that is dropped together.
func groupCandidates(cs []*candidate) [][]*candidate {
	idx := map[string]int{}
	var out [][]*candidate
	for _, c := range cs {
		k := c.app.Rule.Name + "\x00" + c.app.Op + "\x00" + strings.Join(c.app.DTypes, ",")
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], c)
	}
	return out
}

// scopeOf returns the name scope of n's graph or function body.
func (p *planner) scopeOf(n *graph.Node) *scope {
	if s, ok := p.scopes[n.Func]; ok {
		return s
	}
	s := &scope{fn: n.Func, used: map[string]bool{}}
	var nodes []*graph.Node
	if n.Func == nil {
		nodes = p.g.Nodes[:p.g.TopLevel]
	} else {
		nodes = n.Func.Nodes
		for _, a := range n.Func.Def.GetSignature().GetInputArg() {
			s.used[a.GetName()] = true
		}
	}
	for _, m := range nodes {
		s.used[m.Name] = true
	}
	p.scopes[n.Func] = s
	return s
}

// try expands n with r and the chained rules its uncovered nodes need;
// notApplicable when r does not apply or the result is still not covered.
func (p *planner) try(r *Rule, n *graph.Node) (*Application, error) {
	if why := p.outputsBlocked(n, r); why != "" {
		return nil, skip("%s", why)
	}
	sc := p.scopeOf(n)
	mark := len(sc.used)
	_ = mark
	x := p.newExpander(n, sc)
	if err := r.expand(x); err != nil {
		return nil, err
	}
	if !x.final {
		return nil, fmt.Errorf("internal error: rule %s made no node named %s", r.Name, n.Name)
	}
	app := &Application{Rule: r, Path: n.Path(), Name: n.Name, Op: n.Op, DTypes: n.DTypes(), orig: n}
	if n.Func != nil {
		app.Function = n.Func.Name
	}
	nodes, chained, err := p.chain(x.nodes, sc, 0)
	if err != nil {
		return nil, err
	}
	for _, nd := range nodes {
		if err := validateNodeDef(p.g.Ops, nd); err != nil {
			return nil, fmt.Errorf("internal error: rule %s wrote a node TensorFlow would refuse: %v", r.Name, err)
		}
		app.Nodes = append(app.Nodes, nd.GetName())
	}
	app.Chained = chained
	app.exp = &expansion{nodes: nodes, outArg: outArgOf(p.g.Ops, nodes[len(nodes)-1].GetOp())}
	return app, nil
}

// chain rewrites the nodes of a replacement that the target does not
// cover with the decompose and unfuse rules, depth-first.
func (p *planner) chain(nodes []*nodepb.NodeDef, sc *scope, depth int) ([]*nodepb.NodeDef, []*Rule, error) {
	var out []*nodepb.NodeDef
	var chained []*Rule
	byRule := byOp(p.opts.Rules)
	for _, nd := range nodes {
		sn := p.g.Ops.Standalone(nd, sc.fn)
		if nd.GetOp() == "Const" || covered(p.opts.Target.Match(sn).Reason) {
			out = append(out, nd)
			continue
		}
		if depth >= maxChain {
			return nil, nil, skip("its replacement still needs %s, which the target has no kernel for", nd.GetOp())
		}
		var done bool
		var whyNot []string
		try := byRule[nd.GetOp()]
		if p.opts.Rules[ruleCast] {
			try = append(try[:len(try):len(try)], ruleCast)
		}
		for _, r := range try {
			if r.Kind != KindDecompose && r.Kind != KindUnfuse && r != ruleCast {
				continue
			}
			sn.Name = nd.GetName()
			x := p.newExpander(sn, sc)
			x.consts = func(int) *kernels.Tensor { return nil }
			x.shapes = func(int) []int64 { return nil }
			x.value = func() (*kernels.Tensor, error) { return nil, errors.New("not a graph node") }
			if err := r.expand(x); err != nil {
				var na *notApplicable
				if errors.As(err, &na) {
					whyNot = append(whyNot, r.Name+": "+na.why)
					continue
				}
				return nil, nil, err
			}
			sub, subChained, err := p.chain(x.nodes, sc, depth+1)
			if err != nil {
				return nil, nil, err
			}
			out = append(out, sub...)
			chained = append(append(chained, r), subChained...)
			done = true
			break
		}
		if !done {
			why := fmt.Sprintf("its replacement needs %s (%s), which the target has no kernel for", nd.GetOp(), dtName(primaryType(sn)))
			if len(whyNot) > 0 {
				why += " (" + strings.Join(whyNot, "; ") + ")"
			}
			return nil, nil, skip("%s", why)
		}
	}
	return out, chained, nil
}

func primaryType(n *graph.Node) tpb.DataType { return placement.PrimaryDType(n) }

// newExpander prepares an expander for n in scope sc.
func (p *planner) newExpander(n *graph.Node, sc *scope) *expander {
	return &expander{n: n, scope: sc, ops: p.g.Ops, target: p.opts.Target,
		consts: func(i int) *kernels.Tensor { return p.constInput(n, i) },
		shapes: func(i int) []int64 { return p.inputShape(n, i) },
		value:  func() (*kernels.Tensor, error) { return p.eval(n, 0) }}
}

// outputsBlocked says why n's outputs other than 0 keep it from being
// replaced (the replacement gives output 0 only): some consumer, signature
// output or function result reads another output.
func (p *planner) outputsBlocked(n *graph.Node, r *Rule) string {
	if r == ruleUnpin {
		return ""
	}
	for _, c := range p.g.Consumers(n) {
		for _, in := range c.Inputs {
			if in.Node == n && in.Output != 0 {
				return fmt.Sprintf("%s reads output %d, and the replacement gives output 0 only", c.Path(), in.Output)
			}
		}
	}
	if n.Func == nil {
		for _, s := range p.g.Signatures {
			for _, o := range s.Outputs {
				if name, idx, _ := graph.ParseTensorName(o.Name); name == n.Name && idx != 0 {
					return fmt.Sprintf("signature %s output %s reads output %d", s.Key, o.Key, idx)
				}
			}
		}
		return ""
	}
	for _, v := range n.Func.Def.GetRet() {
		parts := strings.Split(v, ":")
		if parts[0] == n.Name && len(parts) == 3 {
			arg, _ := outputArg(p.g.Ops, n.Op, 0)
			if parts[1] != arg || parts[2] != "0" {
				return fmt.Sprintf("function %s returns %s", n.Func.Name, v)
			}
		}
	}
	return ""
}

// staticShapes are the original graph's static shapes, inferred when first
// needed.
func (p *planner) staticShapes() *shape.Shapes {
	if p.shapes == nil {
		p.shapes = shape.Infer(p.g, shape.Options{})
	}
	return p.shapes
}

// inputShape is the static shape of n's data input i, when every
// dimension is known and none was assumed.
func (p *planner) inputShape(n *graph.Node, i int) []int64 {
	if i >= len(n.Inputs) || n.Inputs[i].Node == nil {
		return nil
	}
	src := n.Inputs[i]
	t, ok := p.staticShapes().Output(src.Node, int(src.Output))
	if !ok || t.Assumed || t.Shape.UnknownRank {
		return nil
	}
	out := make([]int64, len(t.Shape.Dims))
	for j, d := range t.Shape.Dims {
		if d < 0 {
			return nil
		}
		out[j] = d
	}
	return out
}

// sortApps orders applications by path, for stable reports.
func sortApps(apps []*Application) {
	sort.SliceStable(apps, func(i, j int) bool { return apps[i].Path < apps[j].Path })
}
