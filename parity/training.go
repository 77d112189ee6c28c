package parity

import (
	"context"
	"fmt"
	"math"
	"sort"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/executor"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/kernels"
)

// Mixed-precision training steps. A Keras step under mixed_float16 with
// LossScaleOptimizer (tf_keras 2.15, tf_keras/src/mixed_precision/
// loss_scale_optimizer.py, LossScaleOptimizerV3) multiplies the loss by the
// current loss scale (get_scaled_loss, :1233), divides the gradients by it
// (get_unscaled_gradients, :1245), and checks them all for finiteness
// (_is_all_finite, :50: reduce_all(is_finite(g)) per gradient). When one is
// not finite the step is skipped (apply_gradients, :1343) and the scale
// halved, never below 1
// (_DynamicLossScaleState.update, :301-311); after growth_steps finite steps
// in a row (default 2000, :321) it doubles (:285-299). The scale starts at
// 2**15 (_DEFAULT_INITIAL_SCALE, :320).
//
// RunStep runs such a step at a given loss scale twice, under the profile
// and in float64, and measures each gradient (the tensors _is_all_finite
// checks) where the emulation overflows or flushes to zero a value the
// reference holds; RunTraining replays what the dynamic loss scale does.

// LossScaleVariable is the shared_name of LossScaleOptimizer's dynamic loss
// scale (_DynamicLossScaleState: add_weight name="current_loss_scale", :148).
const LossScaleVariable = "current_loss_scale"

// UnderflowMass is the share of a gradient's L1 mass that, flushed to zero
// under the profile, makes the gradient an underflow finding.
const UnderflowMass = 0.01

// MaxLossScaleSteps bounds the replay of the dynamic loss scale: from 2**15
// halving reaches 1 in 15 steps.
const MaxLossScaleSteps = 64

// Gradient is one gradient a LossScaleOptimizer step checks.
type Gradient struct {
	// Check is the IsFinite node of _is_all_finite; Tensor its input,
	// the unscaled gradient.
	Check  *graph.Node
	Tensor graph.Input
	// Source is the node that computes the gradient (the backward op
	// behind the unscaling Mul and the Cast from float16), whose name
	// tells the variable (e.g. gradient_tape/model/conv2d/Conv2D/
	// Conv2DBackpropFilter).
	Source *graph.Node
}

// Gradients returns the gradients of a LossScaleOptimizer step: the inputs
// of the IsFinite nodes whose value feeds an All (reduce_all), in graph
// order. A graph without them (no loss scaling) has none.
func Gradients(g *graph.Graph) []Gradient {
	var out []Gradient
	for _, n := range g.Nodes {
		if n.Op != "IsFinite" || len(n.Inputs) != 1 || n.Inputs[0].Node == nil {
			continue
		}
		all := false
		for _, c := range g.Consumers(n) {
			all = all || c.Op == "All"
		}
		if !all {
			continue
		}
		out = append(out, Gradient{Check: n, Tensor: n.Inputs[0], Source: gradientSource(n.Inputs[0])})
	}
	return out
}

// gradientSource walks from the unscaled gradient past the unscaling
// (Mul by the reciprocal scale: the gradient is its first operand),
// Casts and Identities (IdentityN output i is its input i) to the node
// that computes it.
func gradientSource(in graph.Input) *graph.Node {
	n := in.Node
	for range 16 {
		next := 0
		switch n.Op {
		case "Mul", "Cast", "Identity", "RealDiv":
		case "IdentityN":
			next = int(in.Output)
		default:
			return n
		}
		if next >= len(n.Inputs) || n.Inputs[next].Node == nil {
			return n
		}
		in = n.Inputs[next]
		n = in.Node
	}
	return n
}

// GradientNumbers is one gradient of a step against the reference.
type GradientNumbers struct {
	Gradient
	Count int
	// Overflow counts values that are ±Inf or NaN under the profile where
	// the reference is finite (within float32's range); Underflow values
	// that are zero under the profile where the reference is not.
	Overflow, Underflow int
	// LostMass is the share of the reference's L1 mass in the flushed
	// values; RelError is Σ|a−b| / Σ|b| over the values finite on both
	// sides (0 when the reference is all zero).
	LostMass, RelError float64
	// Origin is the first node in execution order, among the nodes the
	// gradient is computed from (and the gradient's own), whose values
	// overflow (for a gradient that overflows) or flush to zero (for one
	// that underflows) where the reference's do not; nil when there is no
	// finding. OriginCount is how many of its values do.
	Origin      *graph.Node
	OriginCount int
}

// Finding is "overflow", "underflow" (flushed values hold at least
// UnderflowMass of the gradient) or "".
func (g *GradientNumbers) Finding() string {
	switch {
	case g.Overflow > 0:
		return "overflow"
	case g.Underflow > 0 && g.LostMass >= UnderflowMass:
		return "underflow"
	}
	return ""
}

// StepRun is one run of a training step at one loss scale.
type StepRun struct {
	Scale float64
	// Finite is set when every gradient is finite under the profile:
	// LossScaleOptimizer applies the step (otherwise it skips it and
	// halves the scale).
	Finite    bool
	Gradients []GradientNumbers
}

// Training is what a mixed_float16 step's numbers do under the profile.
type Training struct {
	// Initial is the loss scale in the model's checkpoint.
	Initial float64
	// Unscaled is the step without loss scaling (scale 1).
	Unscaled *StepRun
	// Dynamic are the steps the dynamic loss scale takes from Initial:
	// each non-finite one is skipped and halves the scale, until a step
	// is finite or the scale is 1 and still not finite.
	Dynamic []*StepRun
	// Settled is the scale of the first finite step of Dynamic; 0 when
	// none is (every step is skipped).
	Settled float64
	// Grown is the step at twice Settled, where the scale goes after
	// growth_steps finite steps; nil when it did not settle.
	Grown *StepRun
}

// RunTraining replays a LossScaleOptimizer step's loss scale: the step at
// scale 1, then from the checkpoint's scale halving while a gradient is
// not finite, then at twice the scale it settles at. It fails when the
// graph has no gradients of a LossScaleOptimizer.
func RunTraining(ctx context.Context, m Model, opts Options) (*Training, error) {
	if len(Gradients(m.Graph)) == 0 {
		return nil, fmt.Errorf("parity: the graph has no LossScaleOptimizer gradient check (IsFinite into All)")
	}
	tr := &Training{}
	first, err := RunStep(ctx, m, opts, 0)
	if err != nil {
		return nil, err
	}
	tr.Initial = first.Scale
	if tr.Unscaled, err = RunStep(ctx, m, opts, 1); err != nil {
		return nil, err
	}
	run := first
	for {
		tr.Dynamic = append(tr.Dynamic, run)
		if run.Finite {
			tr.Settled = run.Scale
			break
		}
		if run.Scale <= 1 || len(tr.Dynamic) >= MaxLossScaleSteps {
			break
		}
		if run, err = RunStep(ctx, m, opts, math.Max(run.Scale/2, 1)); err != nil {
			return nil, err
		}
	}
	if tr.Settled > 0 {
		if tr.Grown, err = RunStep(ctx, m, opts, 2*tr.Settled); err != nil {
			return nil, err
		}
	}
	return tr, nil
}

// RunStep runs the step once under the profile and once in float64 with
// the loss scale set to scale (0: the checkpoint's) and measures its
// gradients.
func RunStep(ctx context.Context, m Model, opts Options, scale float64) (*StepRun, error) {
	grads := Gradients(m.Graph)
	emuOpts, recorded := recordingOptions(opts, floatData)
	emu, err := executor.New(m.Graph, m.Weights, emuOpts)
	if err != nil {
		return nil, err
	}
	if scale == 0 {
		v := emu.Variables()[LossScaleVariable]
		vs, ok := Values(v)
		if !ok || len(vs) != 1 {
			return nil, fmt.Errorf("parity: the step has no scalar %s variable", LossScaleVariable)
		}
		scale = vs[0]
	}
	st := &StepRun{Scale: scale, Finite: true}
	if err := setScale(emu, scale); err != nil {
		return nil, err
	}
	if _, err := emu.Run(ctx, m.Feeds, m.Fetches); err != nil {
		return nil, err
	}

	// Per node and execution: how many values overflow or flush.
	type counts struct{ over, under, total int }
	nodeCounts := map[*graph.Node]*counts{}
	order := map[*graph.Node]int{}
	seen := map[*graph.Node]int{}
	gradOut := map[*graph.Node][]int32{} // gradient producers → output indexes
	for _, g := range grads {
		gradOut[g.Tensor.Node] = append(gradOut[g.Tensor.Node], g.Tensor.Output)
	}
	type pair struct{ got, ref []float64 }
	gradVals := map[graph.Input]pair{}
	refOpts := executor.Options{
		Compute:       tpb.DataType_DT_DOUBLE,
		MaxIterations: opts.MaxIterations,
		AfterNode: func(n *graph.Node, outs []*kernels.Tensor) {
			k := seen[n]
			seen[n] = k + 1
			if _, ok := order[n]; !ok {
				order[n] = len(order)
			}
			recs := recorded[n]
			if k >= len(recs) {
				return
			}
			c := nodeCounts[n]
			if c == nil {
				c = &counts{}
				nodeCounts[n] = c
			}
			for i, ref := range outs {
				if i >= len(recs[k].outs) || recs[k].outs[i] == nil || ref == nil {
					continue
				}
				a, ok1 := Values(recs[k].outs[i])
				b, ok2 := Values(ref)
				if !ok1 || !ok2 || len(a) != len(b) {
					continue
				}
				o, u := flowCounts(a, b)
				c.over += o
				c.under += u
				c.total += len(a)
				if k == 0 {
					for _, gi := range gradOut[n] {
						if int(gi) == i {
							gradVals[graph.Input{Node: n, Output: gi}] = pair{a, b}
						}
					}
				}
			}
			recs[k].outs = nil
		},
	}
	ref, err := executor.New(m.Graph, m.Weights, refOpts)
	if err != nil {
		return nil, err
	}
	if err := setScale(ref, scale); err != nil {
		return nil, err
	}
	if _, err := ref.Run(ctx, m.Feeds, m.Fetches); err != nil {
		return nil, fmt.Errorf("float64 reference run: %w", err)
	}
	for _, g := range grads {
		p, ok := gradVals[graph.Input{Node: g.Tensor.Node, Output: g.Tensor.Output}]
		if !ok {
			continue // a copy of the step the signature does not call
		}
		gn := gradientNumbers(g, p.got, p.ref)
		if f := gn.Finding(); f != "" {
			gn.Origin, gn.OriginCount = origin(g.Tensor.Node, func(n *graph.Node) int {
				c := nodeCounts[n]
				switch {
				case c == nil:
					return 0
				case f == "overflow":
					return c.over
				case float64(c.under) >= UnderflowMass*float64(c.total):
					return c.under
				}
				return 0
			}, order)
		}
		for _, v := range p.got {
			if math.IsInf(v, 0) || math.IsNaN(v) {
				st.Finite = false
			}
		}
		st.Gradients = append(st.Gradients, gn)
	}
	if len(st.Gradients) == 0 {
		return nil, fmt.Errorf("parity: no gradient check of the step ran")
	}
	return st, nil
}

// setScale sets the step's loss scale variable.
func setScale(ex *executor.Executor, scale float64) error {
	if err := ex.SetVariable(LossScaleVariable, kernels.ScalarFloat(float32(scale))); err != nil {
		return fmt.Errorf("parity: setting the loss scale: %w", err)
	}
	return nil
}

func floatData(t *kernels.Tensor) bool {
	switch t.DType {
	case tpb.DataType_DT_FLOAT, tpb.DataType_DT_HALF, tpb.DataType_DT_BFLOAT16, tpb.DataType_DT_DOUBLE:
		return true
	}
	return false
}

// refFinite is whether a reference value is finite within float32's range,
// what the float32 computation holds.
func refFinite(b float64) bool { return !math.IsNaN(b) && math.Abs(b) <= math.MaxFloat32 }

// flowCounts counts the values that overflow (not finite in a, finite in
// b) and those that flush (zero in a, non-zero and finite in b).
func flowCounts(a, b []float64) (over, under int) {
	for i := range a {
		if !refFinite(b[i]) {
			continue
		}
		switch {
		case math.IsInf(a[i], 0) || math.IsNaN(a[i]):
			over++
		case a[i] == 0 && b[i] != 0:
			under++
		}
	}
	return over, under
}

func gradientNumbers(g Gradient, a, b []float64) GradientNumbers {
	gn := GradientNumbers{Gradient: g, Count: len(a)}
	gn.Overflow, gn.Underflow = flowCounts(a, b)
	var mass, lost, diff float64
	for i := range a {
		if !refFinite(b[i]) {
			continue
		}
		mass += math.Abs(b[i])
		if a[i] == 0 && b[i] != 0 {
			lost += math.Abs(b[i])
		}
		if !math.IsInf(a[i], 0) && !math.IsNaN(a[i]) {
			diff += math.Abs(a[i] - b[i])
		}
	}
	if mass > 0 {
		gn.LostMass, gn.RelError = lost/mass, diff/mass
	}
	return gn
}

// origin finds, among n and the nodes it is computed from (data inputs,
// within its function), the first in execution order with a positive
// count: the values that overflow, or for an underflow the flushed values
// when they are at least UnderflowMass of the node's (a few values on
// the other side of a ReLU's zero are not where a gradient underflows).
func origin(n *graph.Node, count func(*graph.Node) int, order map[*graph.Node]int) (*graph.Node, int) {
	seen := map[*graph.Node]bool{n: true}
	queue := []*graph.Node{n}
	var hits []*graph.Node
	hitCount := map[*graph.Node]int{}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		if c := count(x); c > 0 {
			hits = append(hits, x)
			hitCount[x] = c
		}
		for _, in := range x.Inputs {
			if in.Node != nil && !seen[in.Node] {
				seen[in.Node] = true
				queue = append(queue, in.Node)
			}
		}
	}
	if len(hits) == 0 {
		return nil, 0
	}
	sort.Slice(hits, func(i, j int) bool { return order[hits[i]] < order[hits[j]] })
	return hits[0], hitCount[hits[0]]
}
