package rewrite

import (
	"errors"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/graph"
)

// Suggestion is a rule that would make one node covered on a target.
type Suggestion struct {
	Rule    *Rule
	Chained []*Rule
	// Ops are the ops of the replacement, in order.
	Ops       []string
	Exactness Exactness
}

// Suggest lists the rules that would replace n, a node of g that target
// has no kernel for, by nodes target covers — the node-level question
// `tfscan explain` asks for a logged error; whether Plan applies one also
// depends on the placement of the whole graph. Rules are tried in rule
// order, the cast rule included (it needs --allow-lower-precision), unpin
// not (a pin is not a missing kernel). A covered node gets none.
func Suggest(g *graph.Graph, n *graph.Node, target coverage.Matcher) []Suggestion {
	if g == nil || n == nil || target == nil || covered(target.Match(n).Reason) {
		return nil
	}
	set := RuleSet{}
	for _, r := range rules {
		if r != ruleUnpin {
			set[r] = true
		}
	}
	p := newPlanner(g, Options{Rules: set, Target: target})
	rs := append([]*Rule(nil), byOp(set)[n.Op]...)
	rs = append(rs, ruleFold, ruleCast)
	var out []Suggestion
	for _, r := range rs {
		app, err := p.try(r, n)
		if err != nil {
			var na *notApplicable
			if errors.As(err, &na) {
				continue
			}
			continue // an internal error is not a suggestion either
		}
		s := Suggestion{Rule: r, Chained: chainRules(app.Chained), Exactness: app.Exactness()}
		for _, nd := range app.exp.nodes {
			s.Ops = append(s.Ops, nd.GetOp())
		}
		out = append(out, s)
	}
	return out
}
