package tfgolden

// Rule is how an op's results are held to TensorFlow's, with the reason a
// tolerance is not zero (citing TensorFlow's or Eigen's source).
type Rule struct {
	Tol    Tol
	Reason string
}

// rules are per op (and, where one dtype differs, per "Op dtype"); an op
// not listed must be bit-identical.
var rules = map[string]Rule{}

// RuleFor returns the rule of a case's op and dtype.
func RuleFor(c *Case) Rule {
	if r, ok := rules[c.Op+" "+c.DType()]; ok {
		return r
	}
	return rules[c.Op]
}

// Rules returns every rule by key, for the conformance report.
func Rules() map[string]Rule { return rules }
