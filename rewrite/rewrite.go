// Package rewrite turns nodes a target cannot run into nodes it can: it
// unfuses the fused ops TensorFlow's remapper and the TF.js converter make,
// decomposes ops into ops the target covers, folds constant subgraphs,
// casts float32 ops to the float16 kernels a target has (when allowed) and
// drops device pins (when asked). Each rule follows TensorFlow's own
// semantics (each file cites the kernel or remapper pattern it inverts)
// and declares how exact it is; Plan applies a rule only where it makes a
// node covered or removes transfers, as the placement simulator predicts
// (the kernel wishlist's what-if), and Prove runs the original and the
// rewritten model through the executor before anything is written.
//
// The package changes protos only: Apply returns a rewritten copy of a
// savedmodel.Model that savedmodel.Write writes back in its own format.
package rewrite

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/kernels"
)

// Kind groups rules; --rules accepts a kind for every rule of it.
type Kind string

const (
	KindUnfuse    Kind = "unfuse"
	KindDecompose Kind = "decompose"
	KindFold      Kind = "fold"
	KindCast      Kind = "cast"
	KindUnpin     Kind = "unpin"
)

// Exactness is what a rule promises about the values its replacement
// computes, compared with the node it replaces, and so what Prove checks.
type Exactness struct {
	// Exact is set for a replacement that is bit-identical in the op's
	// dtype: every output element has the same bits.
	Exact bool
	// A tolerance rule bounds each element of output 0:
	//
	//	|got − want| ≤ u·(ULP·|want| + MaxULP·max|want|) + bound(i)
	//
	// with u the unit roundoff of Unit (of the output's dtype when Unit is
	// DT_INVALID: 2^-24 for float32) and bound the rule's own term worked
	// out from the original node's inputs; NaN and infinities must match.
	ULP, MaxULP float64
	Unit        tpb.DataType
	bound       func(n *graph.Node, in []*kernels.Tensor) (func(i int) float64, error)
	// OutputTol is what the proof allows at the model's outputs after a
	// tolerance rule, relative to each output's largest magnitude: a check,
	// not a guarantee, since later layers can amplify the difference.
	OutputTol float64
	// Claim says precisely what is proven and under which conditions.
	Claim string
}

// Name is "exact" or "tolerance", as the report writes it.
func (e Exactness) Name() string {
	if e.Exact {
		return "exact"
	}
	return "tolerance"
}

// Rule is one rewrite.
type Rule struct {
	// Name is the name --rules takes.
	Name string
	Kind Kind
	// Ops are the ops the rule rewrites.
	Ops []string
	// Exactness is what the replacement promises.
	Exactness Exactness
	// Semantics cites the TensorFlow source whose computation the
	// replacement follows (file:line at v2.15.0).
	Semantics string
	// expand writes the replacement of x.n into x; it returns
	// notApplicable when the node is one the rule does not handle.
	expand func(x *expander) error
}

// rules is every rule, in the order Plan tries them on a node.
var rules = []*Rule{
	ruleUnfuseConv2D, ruleUnfuseDepthwise, ruleUnfuseConv3D, ruleUnfuseMatMul, ruleUnfuseBatchNormEx,
	ruleBatchNorm,
	ruleRelu6, ruleLeakyRelu, ruleElu, ruleSelu, ruleSoftplus, ruleSquaredDifference, ruleRsqrt,
	ruleAddN, rulePack, rulePrelu, ruleEinsum, ruleDiv,
	ruleFold, ruleCast, ruleUnpin,
}

// Rules returns every rule, in the order Plan tries them.
func Rules() []*Rule { return slices.Clone(rules) }

// ByName returns the rule called name, or nil.
func ByName(name string) *Rule {
	for _, r := range rules {
		if r.Name == name {
			return r
		}
	}
	return nil
}

// RuleSet is the rules a rewrite may use.
type RuleSet map[*Rule]bool

// SelectRules resolves a --rules list: rule names and kinds ("unfuse",
// "decompose", ...). An empty list means every rule; the cast rule also
// needs allowLowerPrecision and unpin needs clearDevices, so that neither
// changes a model unasked. An unknown name is an error naming the choices.
func SelectRules(names []string, allowLowerPrecision, clearDevices bool) (RuleSet, error) {
	set := RuleSet{}
	if len(names) == 0 {
		for _, r := range rules {
			set[r] = true
		}
	}
	for _, name := range names {
		name = strings.TrimSpace(name)
		found := false
		for _, r := range rules {
			if r.Name == name || string(r.Kind) == name {
				set[r], found = true, true
			}
		}
		if !found {
			return nil, fmt.Errorf("unknown rewrite rule %q (rules: %s; kinds: unfuse, decompose, fold, cast, unpin)", name, strings.Join(ruleNames(), ", "))
		}
	}
	if !allowLowerPrecision {
		if set[ruleCast] && len(names) > 0 && mentions(names, ruleCast) {
			return nil, fmt.Errorf("rule %q changes float32 ops to float16: it needs --allow-lower-precision", ruleCast.Name)
		}
		delete(set, ruleCast)
	}
	if !clearDevices {
		if set[ruleUnpin] && len(names) > 0 && mentions(names, ruleUnpin) {
			return nil, fmt.Errorf("rule %q drops device pins: it needs --clear-devices", ruleUnpin.Name)
		}
		delete(set, ruleUnpin)
	} else {
		set[ruleUnpin] = true
	}
	return set, nil
}

func mentions(names []string, r *Rule) bool {
	for _, n := range names {
		if n == r.Name || n == string(r.Kind) {
			return true
		}
	}
	return false
}

func ruleNames() []string {
	var out []string
	for _, r := range rules {
		out = append(out, r.Name)
	}
	return out
}

// sorted returns the set's rules in rule order.
func (s RuleSet) sorted() []*Rule {
	var out []*Rule
	for _, r := range rules {
		if s[r] {
			out = append(out, r)
		}
	}
	return out
}

// covered says whether a lookup outcome runs the node on the device: a
// kernel, a DEFAULT kernel, or one the stack runs in lower precision
// (reasons starting "covered").
func covered(r coverage.Reason) bool {
	return strings.HasPrefix(string(r), "covered")
}

// notApplicable is a node a rule does not rewrite, with the reason.
type notApplicable struct{ why string }

func (e *notApplicable) Error() string { return e.why }

func skip(format string, args ...any) error {
	return &notApplicable{why: fmt.Sprintf(format, args...)}
}

// byOp indexes the rules by the op they rewrite.
func byOp(set RuleSet) map[string][]*Rule {
	out := map[string][]*Rule{}
	for _, r := range set.sorted() {
		for _, op := range r.Ops {
			out[op] = append(out[op], r)
		}
	}
	for _, rs := range out {
		sort.SliceStable(rs, func(i, j int) bool { return slices.Index(rules, rs[i]) < slices.Index(rules, rs[j]) })
	}
	return out
}
