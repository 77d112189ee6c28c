package parity

import (
	"context"
	"fmt"
	"math"
	"sort"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/dtype"
	"github.com/tfscan/tfscan/executor"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/kernels"
	"github.com/tfscan/tfscan/kernels/precision"
)

// Model is what a parity run executes: a graph with its checkpoint, the
// feeds and the tensors to fetch.
type Model struct {
	Graph   *graph.Graph
	Weights kernels.WeightSource // nil when the model has no checkpoint
	Feeds   map[string]*kernels.Tensor
	// Fetches are tensor names ("node:0"); Names, when set, are the
	// names the outputs are reported under (e.g. signature output keys),
	// one per fetch.
	Fetches []string
	Names   []string
}

// Options configure a parity run.
type Options struct {
	Profile *precision.Profile
	// OnCPU reports the nodes soft placement leaves on the host CPU; they
	// run exactly in float32 whatever the profile. nil: none.
	OnCPU func(n *graph.Node) bool
	// Converted reports, for a mixed profile, the nodes auto mixed
	// precision converts to the half type; the others run in float32.
	Converted func(n *graph.Node) bool
	// NodeProfile, when set, gives the profile of the nodes a stack's
	// precision mode lowers (nil for the others, which run under Profile).
	NodeProfile func(n *graph.Node) *precision.Profile
	Tol         Tolerance
	// MaxIterations bounds each loop (executor.Options.MaxIterations).
	MaxIterations int
}

// NodeResult is one node's error under the profile, over all its outputs
// and executions.
type NodeResult struct {
	Node *graph.Node
	Metrics
	// Storage is the format the node's float outputs were stored in.
	Storage tpb.DataType
	// Order is the node's position in the reference run's execution order
	// (a topological order).
	Order int
	// Growth is how much the node amplifies the error it receives: its
	// error relative to its output's scale (MaxAbs/Scale) divided by the
	// largest such relative error among the nodes that feed it. A node
	// that creates error from exact inputs has growth ErrInf.
	Growth float64
}

// OutputResult is one fetched output against the reference.
type OutputResult struct {
	Name string
	Metrics
	Stats Stats
	// Pass is set when every value is within the tolerance.
	Pass bool
}

// Result is a parity run.
type Result struct {
	Profile string
	Tol     Tolerance
	// Outputs are in fetch order.
	Outputs []OutputResult
	// Nodes are the nodes whose outputs differ from the reference at all,
	// ordered for reading: the first divergence, then the other nodes
	// outside the tolerance by decreasing Growth (ties in execution
	// order), then the nodes within the tolerance in execution order.
	Nodes []NodeResult
	// FirstDivergence is the first node in execution order with a value
	// outside the tolerance, or nil.
	FirstDivergence *graph.Node
	// Reference and Emulated are the fetched tensors of the two runs,
	// keyed by output name (Reference holds float64 for float outputs).
	Reference, Emulated map[string]*kernels.Tensor
}

// Run executes the model twice — in float64 (the reference) and under
// the profile — and compares every node's outputs and every fetched
// output. Nodes that run more than once (loops, repeated function calls)
// are compared execution by execution.
func Run(ctx context.Context, m Model, opts Options) (*Result, error) {
	if opts.Profile == nil {
		return nil, fmt.Errorf("parity: no precision profile")
	}
	names := m.Names
	if names == nil {
		names = m.Fetches
	}
	if len(names) != len(m.Fetches) {
		return nil, fmt.Errorf("parity: %d names for %d fetches", len(names), len(m.Fetches))
	}

	// Emulated run: remember every node's outputs, execution by execution.
	emuOpts, recorded := recordingOptions(opts, func(t *kernels.Tensor) bool {
		_, ok := Values(t)
		return ok
	})
	emuExec, err := executor.New(m.Graph, m.Weights, emuOpts)
	if err != nil {
		return nil, err
	}
	emulated, err := emuExec.Run(ctx, m.Feeds, m.Fetches)
	if err != nil {
		return nil, err
	}

	// Reference run: compare as it goes, freeing what was compared.
	results := map[*graph.Node]*NodeResult{}
	seen := map[*graph.Node]int{}
	order := 0
	refOpts := executor.Options{
		Compute:       tpb.DataType_DT_DOUBLE,
		MaxIterations: opts.MaxIterations,
		AfterNode: func(n *graph.Node, outs []*kernels.Tensor) {
			k := seen[n]
			seen[n] = k + 1
			r := results[n]
			if r == nil {
				r = &NodeResult{Node: n, Order: order, Storage: nodeProfile(n, opts).Storage}
				order++
				results[n] = r
			}
			recs := recorded[n]
			if k >= len(recs) {
				return
			}
			for i, ref := range outs {
				if i >= len(recs[k].outs) || ref == nil || recs[k].outs[i] == nil {
					continue
				}
				got := recs[k].outs[i]
				if _, ok := Values(ref); !ok {
					continue
				}
				mt, err := Compare(got, ref, r.Storage, opts.Tol)
				if err != nil { // e.g. a data-dependent shape that differs
					n := max(got.NumElements(), ref.NumElements())
					mt = Metrics{Count: n, Mismatches: n, MaxAbs: ErrInf, MaxRel: ErrInf}
				}
				r.Merge(mt)
			}
			recs[k].outs = nil
		},
	}
	refExec, err := executor.New(m.Graph, m.Weights, refOpts)
	if err != nil {
		return nil, err
	}
	reference, err := refExec.Run(ctx, m.Feeds, m.Fetches)
	if err != nil {
		return nil, fmt.Errorf("float64 reference run: %w", err)
	}

	res := &Result{
		Profile:   opts.Profile.Name,
		Tol:       opts.Tol,
		Reference: map[string]*kernels.Tensor{},
		Emulated:  map[string]*kernels.Tensor{},
	}
	for i, f := range m.Fetches {
		name := names[i]
		got, ref := emulated[f], reference[f]
		if err := refuseComplex(name, f, got); err != nil {
			return nil, err
		}
		res.Emulated[name], res.Reference[name] = got, ref
		o, err := CompareOutput(name, got, ref, outputStorage(m.Graph, f, opts), opts.Tol)
		if err != nil {
			return nil, err
		}
		res.Outputs = append(res.Outputs, o)
	}
	res.Nodes, res.FirstDivergence = rankNodes(results)
	return res, nil
}

// refuseComplex refuses a complex fetched output: the float64 reference
// run widens real floats only (executor.Options.Compute), so a complex64
// tensor's reference holds complex64 values, and no precision profile
// rounds complex values; an error measured there would not be the
// profile's. Nodes with complex outputs inside a model are not compared
// (their real consumers are). docs/precision.md "Known limits".
func refuseComplex(name, fetch string, got *kernels.Tensor) error {
	if got == nil || (got.DType != tpb.DataType_DT_COMPLEX64 && got.DType != tpb.DataType_DT_COMPLEX128) {
		return nil
	}
	node, _, err := executor.ParseTensorName(fetch)
	if err != nil {
		node = fetch
	}
	return fmt.Errorf("output %s (node %s) is %s: parity compares real outputs only, the float64 reference run does not widen complex tensors",
		name, node, dtype.Name(got.DType))
}

// CompareOutput compares one output with its reference, with statistics.
func CompareOutput(name string, got, ref *kernels.Tensor, storage tpb.DataType, tol Tolerance) (OutputResult, error) {
	if got == nil || ref == nil {
		return OutputResult{}, fmt.Errorf("output %s: no value to compare", name)
	}
	if gs, ok := got.Data.([][]byte); ok {
		return compareStrings(name, gs, ref)
	}
	mt, err := Compare(got, ref, storage, tol)
	if err != nil {
		return OutputResult{}, fmt.Errorf("output %s: %w", name, err)
	}
	a, _ := Values(got)
	b, _ := Values(ref)
	return OutputResult{Name: name, Metrics: mt, Stats: ErrorStats(AbsErrors(a, b)), Pass: mt.Mismatches == 0}, nil
}

// nodeProfile is the profile node n runs under.
func nodeProfile(n *graph.Node, opts Options) *precision.Profile {
	p := opts.Profile
	if opts.OnCPU != nil && opts.OnCPU(n) {
		return cpuProfile(p)
	}
	if opts.NodeProfile != nil {
		if q := opts.NodeProfile(n); q != nil {
			return q
		}
	}
	if p.Mixed != nil {
		if opts.Converted != nil && opts.Converted(n) {
			return p.Mixed
		}
		return cpuProfile(p)
	}
	return p
}

var (
	exactFP32, _ = precision.Lookup(precision.FP32, false)
	ftzFP32, _   = precision.Lookup(precision.FP32, true)
)

// cpuProfile is how the host CPU computes: float32 storage and math. Under
// --ftz the CPU flushes subnormals too, as TensorFlow's CPU threads do
// (port::ScopedFlushDenormal in tsl/platform/threadpool.cc:65).
func cpuProfile(p *precision.Profile) *precision.Profile {
	if p.FTZ {
		return ftzFP32
	}
	return exactFP32
}

// outputStorage is the storage format of a fetched tensor: that of the
// node producing it.
func outputStorage(g *graph.Graph, fetch string, opts Options) tpb.DataType {
	name, _, err := executor.ParseTensorName(fetch)
	if err == nil {
		for _, n := range g.Nodes[:g.TopLevel] {
			if n.Name == name {
				return nodeProfile(n, opts).Storage
			}
		}
	}
	return opts.Profile.Storage
}

// rankNodes orders the nodes with any error for reading (see
// Result.Nodes) and finds the first divergence.
func rankNodes(results map[*graph.Node]*NodeResult) ([]NodeResult, *graph.Node) {
	rel := func(r *NodeResult) float64 {
		if r.MaxAbs == 0 {
			return 0
		}
		if r.Scale == 0 || r.MaxAbs >= ErrInf {
			return ErrInf
		}
		return math.Min(r.MaxAbs/r.Scale, ErrInf)
	}
	var first *NodeResult
	var out []NodeResult
	for _, r := range results {
		in := 0.0
		for _, e := range r.Node.Inputs {
			if p := results[e.Node]; e.Node != nil && p != nil {
				in = math.Max(in, rel(p))
			}
		}
		own := rel(r)
		switch {
		case own == 0:
			r.Growth = 0
		case in == 0:
			r.Growth = ErrInf
		default:
			r.Growth = math.Min(own/in, ErrInf)
		}
		if r.Diverged() && (first == nil || r.Order < first.Order) {
			first = r
		}
		if r.MaxAbs > 0 || r.Mismatches > 0 || r.NaNInf || r.Overflow > 0 || r.Underflow > 0 {
			out = append(out, *r)
		}
	}
	group := func(r NodeResult) int {
		switch {
		case first != nil && r.Node == first.Node:
			return 0
		case r.Diverged():
			return 1
		}
		return 2
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if ga, gb := group(a), group(b); ga != gb {
			return ga < gb
		}
		if group(a) == 1 && a.Growth != b.Growth {
			return a.Growth > b.Growth
		}
		return a.Order < b.Order
	})
	if first == nil {
		return out, nil
	}
	return out, first.Node
}

// compareStrings compares string outputs for equality: each differing
// element is a mismatch (and an error of 1).
func compareStrings(name string, got [][]byte, ref *kernels.Tensor) (OutputResult, error) {
	rs, ok := ref.Data.([][]byte)
	if !ok || len(rs) != len(got) {
		return OutputResult{}, fmt.Errorf("output %s: a string tensor of %d values against a %s reference", name, len(got), dtype.Name(ref.DType))
	}
	errs := make([]float64, len(got))
	m := Metrics{Count: len(got)}
	for i := range got {
		if string(got[i]) != string(rs[i]) {
			errs[i] = 1
			m.Mismatches++
			m.MaxAbs = 1
		}
	}
	return OutputResult{Name: name, Metrics: m, Stats: ErrorStats(errs), Pass: m.Mismatches == 0}, nil
}

// execution is the outputs one execution of a node gave in the emulated
// run (nil where not kept, and once compared).
type execution struct{ outs []*kernels.Tensor }

// recordingOptions are the executor options of an emulated run under opts'
// profile that keeps a copy of every output keep accepts, per node and
// execution by execution, in the map it returns.
func recordingOptions(opts Options, keep func(*kernels.Tensor) bool) (executor.Options, map[*graph.Node][]execution) {
	recorded := map[*graph.Node][]execution{}
	return executor.Options{
		NodeEmu:       func(n *graph.Node) *kernels.Emulation { return nodeProfile(n, opts).Emulation() },
		MaxIterations: opts.MaxIterations,
		AfterNode: func(n *graph.Node, outs []*kernels.Tensor) {
			r := execution{outs: make([]*kernels.Tensor, len(outs))}
			for i, o := range outs {
				if o != nil && keep(o) {
					r.outs[i] = o.Clone()
				}
			}
			recorded[n] = append(recorded[n], r)
		},
	}, recorded
}
