package training

import (
	"slices"
	"strings"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/internal/lastfew"
)

// collectiveOps are the ops that exchange tensors between replicas
// (tensorflow/core/ops/collective_ops.cc, nccl_ops.cc).
var collectiveOps = []string{
	"CollectiveReduce", "CollectiveReduceV2", "CollectiveReduceV3", "CollectiveReduceScatterV2",
	"CollectiveGather", "CollectiveGatherV2", "CollectiveBcastSend", "CollectiveBcastRecv",
	"CollectiveBcastSendV2", "CollectiveBcastRecvV2", "CollectiveAllToAllV2", "CollectiveAllToAllV3",
	"CollectiveAssignGroupV2", "CollectiveInitializeCommunicator",
	"NcclAllReduce", "NcclReduce", "NcclBroadcast",
	"_NcclReduceSend", "_NcclReduceRecv", "_NcclBroadcastSend", "_NcclBroadcastRecv",
}

// backwardOps are gradient ops whose names do not end in Grad
// (tensorflow/core/ops/array_ops.cc BroadcastGradientArgs,
// functional_ops.cc SymbolicGradient).
var backwardOps = []string{"BroadcastGradientArgs", "SymbolicGradient"}

// optimizerScopes are the name scopes optimizers build their update in:
// the Keras optimizer classes (optimizer_v2.py:637 and :710 open
// name_scope(self._name) in apply_gradients; the default name is the class
// name) and tf.compat.v1.train's optimizers (optimizer.py names its scope
// after the optimizer, e.g. GradientDescent, Momentum).
var optimizerScopes = []string{
	"SGD", "Adam", "AdamW", "Adadelta", "Adagrad", "Adamax", "Adafactor", "Ftrl", "Nadam", "RMSprop", "Lion",
	"GradientDescent", "Momentum", "RMSProp", "ProximalAdagrad", "AdagradDA", "ProximalGradientDescent",
}

// lossScaleScopes are the scopes of Keras' LossScaleOptimizer (its class
// name) and of its dynamic scale's state (keras mixed_precision
// loss_scale_optimizer.py: current_loss_scale, good_steps).
var lossScaleScopes = []string{"LossScaleOptimizer", "current_loss_scale", "good_steps"}

// carriers compute nothing of their own: they take the part of their
// consumers when every consumer has the same part (a slot variable's
// _Arg, the Const a gradient reads).
var carriers = []string{"_Arg", "Const", "HostConst", "Placeholder", "PlaceholderWithDefault", "VarHandleOp",
	"ReadVariableOp", "Identity", "NoOp"}

// Parts returns each node's part, indexed by Node.ID.
//
// A node's own op and name decide first (partOf); a carrier no rule placed
// takes the part its consumers share. Consumers are decided first: nodes
// are visited in reverse topological order, the top level and each
// function body on their own.
func Parts(g *graph.Graph) []Part {
	parts := make([]Part, len(g.Nodes))
	decided := make([]bool, len(g.Nodes))
	// What a node's op tells is worked out once per op: a graph has few
	// ops and many nodes of each. The last few ops are tried before the
	// map (most nodes' ops are one of a handful).
	byOp := map[string]opDecision{}
	var recent lastfew.Cache[string, opDecision]
	var scopes scopeMemo
	for _, n := range g.Nodes {
		d, found := recent.Get(n.Op)
		if !found {
			var ok bool
			if d, ok = byOp[n.Op]; !ok {
				d.part, d.decided = opPart(n.Op)
				byOp[n.Op] = d
			}
			recent.Put(n.Op, d)
		}
		if d.decided {
			parts[n.ID], decided[n.ID] = d.part, true
		} else {
			parts[n.ID], decided[n.ID] = scopes.funcOrScopePart(n)
		}
	}
	if !IsTraining(parts) {
		// No step to split: the carriers' inheritance below changes no
		// node into backward or optimizer, and a serving graph skips it.
		return parts
	}
	inherit := func(order []*graph.Node) {
		for i := len(order) - 1; i >= 0; i-- {
			n := order[i]
			if decided[n.ID] || !slices.Contains(carriers, n.Op) {
				continue
			}
			cs := g.Consumers(n)
			if len(cs) == 0 {
				continue
			}
			p := parts[cs[0].ID]
			if !slices.ContainsFunc(cs, func(c *graph.Node) bool { return parts[c.ID] != p }) {
				parts[n.ID] = p
			}
		}
	}
	inherit(g.Topo())
	for _, f := range g.Functions {
		inherit(f.Topo())
	}
	return parts
}

// opDecision is what an op alone tells of its nodes' part (opPart).
type opDecision struct {
	part    Part
	decided bool
}

// partOf is the part n's op and name tell, and whether they tell one.
func partOf(n *graph.Node) (Part, bool) {
	if p, ok := opPart(n.Op); ok {
		return p, true
	}
	var m scopeMemo
	return m.funcOrScopePart(n)
}

// opPart is the part op tells whatever the node's name, and whether it
// tells one.
func opPart(op string) (Part, bool) {
	switch {
	case slices.Contains(collectiveOps, op):
		return Collective, true
	case isInputOp(op):
		return Input, true
	case slices.Contains(backwardOps, op), isGradOp(op):
		return Backward, true
	case isApplyOp(op):
		return Optimizer, true
	case op == "IsFinite":
		// LossScaleOptimizer's finite check of the gradients
		// (tf_keras mixed_precision/loss_scale_optimizer.py
		// _is_all_finite); a TF2 step builds it outside any scope.
		return LossScale, true
	}
	return Forward, false
}

// scopeMemo remembers the part of the last scope scopePart read: a
// graph's nodes come in runs of one scope, and Parts asks of every node.
type scopeMemo struct {
	dir     string
	part    Part
	decided bool
	set     bool
}

// funcOrScopePart is the part n's function and name tell, for a node whose
// op tells none.
func (m *scopeMemo) funcOrScopePart(n *graph.Node) (Part, bool) {
	if f := n.Func; f != nil {
		// Functions the tape differentiates through are split in a
		// forward and a backward function
		// (polymorphic_function/concrete_function.py:63-64).
		name := strings.TrimPrefix(f.Name, "__inference_")
		if strings.HasPrefix(name, "__backward_") {
			return Backward, true
		}
	}
	slash := strings.LastIndexByte(n.Name, '/')
	if slash < 0 {
		return Forward, false
	}
	if dir := n.Name[:slash]; !m.set || dir != m.dir {
		m.dir, m.set = dir, true
		m.part, m.decided = scopePart(dir)
	}
	return m.part, m.decided
}

// scopePart reads the scopes of a node name's directory (the name up to
// its last "/"). A gradient scope anywhere makes the node backward:
// gradients_util.py:509 and :564 open name_scope "gradients" (uniquified
// gradients_1, …) and :726 op.name + "_grad" per op; backprop.py:144
// "gradient_tape/"; optimizer_v2.py:583 opens "<optimizer>/gradients"
// inside the optimizer's name. Otherwise the outermost scope naming a part
// decides: a LossScaleOptimizer's scope holds the optimizer it wraps in its
// own scope, and what is left there is the scaling of loss and gradients
// and the scale's update.
func scopePart(dir string) (Part, bool) {
	// The scopes are walked in place rather than split, once: a scan asks
	// this of every node of every graph. A loss scale's scope decides
	// unless an optimizer's follows it.
	part, decided := Forward, false
	for rest := dir; ; {
		s, after, more := strings.Cut(rest, "/")
		switch scopeKindOf(s) {
		case gradientScope:
			return Backward, true
		case lossScaleScope:
			if !decided {
				part, decided = LossScale, true
			}
		case optimizerScope:
			if !decided || part == LossScale {
				part, decided = Optimizer, true
			}
		}
		if !more {
			return part, decided
		}
		rest = after
	}
}

// scopeKind is what one scope of a name tells of its nodes' part.
type scopeKind uint8

const (
	plainScope scopeKind = iota
	gradientScope
	lossScaleScope
	optimizerScope
)

// gradientScopes are the scopes TensorFlow builds gradients in, besides
// an op's own NAME_grad: tf.gradients' and a GradientTape's.
var gradientScopes = []string{"gradients", "gradient_tape"}

// scopeKinds are the scopes gradientScopes, lossScaleScopes and
// optimizerScopes list, by the name their index is trimmed to.
var scopeKinds = func() map[string]scopeKind {
	m := map[string]scopeKind{}
	for _, s := range gradientScopes {
		m[s] = gradientScope
	}
	for _, s := range lossScaleScopes {
		m[s] = lossScaleScope
	}
	for _, s := range optimizerScopes {
		m[s] = optimizerScope
	}
	return m
}()

// scopeStarts are the first bytes of the scopes scopeKindOf tells apart
// by name: most scopes of a model start with none of them, and are told
// plain without trimming their index and hashing them.
var scopeStarts = func() (starts [256]bool) {
	for s := range scopeKinds {
		starts[s[0]] = true
	}
	return starts
}()

// scopeKindOf is what scope s tells: the scopes TensorFlow builds
// gradients in, those of a loss scale and of an optimizer, or none.
func scopeKindOf(s string) scopeKind {
	if s == "" || !scopeStarts[s[0]] && !strings.HasSuffix(s, "_grad") {
		return plainScope
	}
	if strings.HasSuffix(s, "_grad") {
		return gradientScope
	}
	return scopeKinds[trimIndex(s)]
}

// trimIndex drops the "_<n>" TensorFlow appends to make a scope unique
// (ops.py unique_name): gradients_1 is gradients.
func trimIndex(s string) string {
	i := strings.LastIndexByte(s, '_')
	if i <= 0 || i == len(s)-1 {
		return s
	}
	for _, c := range s[i+1:] {
		if c < '0' || c > '9' {
			return s
		}
	}
	return s[:i]
}

// isGradOp tells the gradient kernels TensorFlow names after their forward
// op: ReluGrad, FusedBatchNormGradV3, MaxPoolGrad, Conv2DBackpropFilter.
func isGradOp(op string) bool {
	if strings.Contains(op, "Backprop") {
		return true
	}
	op = strings.TrimRight(op, "0123456789")
	op = strings.TrimSuffix(op, "V")
	return strings.HasSuffix(op, "Grad")
}

// isApplyOp tells the optimizer kernels (tensorflow/core/ops/training_ops.cc):
// Apply*, ResourceApply*, SparseApply*, ResourceSparseApply*.
func isApplyOp(op string) bool {
	for _, p := range []string{"ResourceSparseApply", "ResourceApply", "SparseApply", "Apply"} {
		if rest, ok := strings.CutPrefix(op, p); ok && rest != "" && rest[0] >= 'A' && rest[0] <= 'Z' {
			return true
		}
	}
	return false
}

// isInputOp tells the tf.data ops (tensorflow/core/ops/dataset_ops.cc,
// experimental_dataset_ops.cc): datasets, iterators and what reads them.
func isInputOp(op string) bool {
	op = strings.TrimRight(op, "0123456789")
	op = strings.TrimSuffix(op, "V")
	switch {
	case strings.HasSuffix(op, "Dataset"), strings.Contains(op, "Iterator"):
		return true
	}
	return slices.Contains([]string{"OptionalGetValue", "OptionalHasValue", "DeleteIterator", "MakeIterator"}, op)
}
