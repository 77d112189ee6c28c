package tfgolden

import (
	"errors"
	"fmt"
	"slices"

	"github.com/tfscan/tfscan/kernels"
)

// Outcome is how one case came out against TensorFlow.
type Outcome int

const (
	// Identical: every output bit for bit (NaN payloads aside).
	Identical Outcome = iota
	// Within: within the op's tolerance (Rules).
	Within
	// BothError: TensorFlow refuses the input and so does tfscan.
	BothError
	// NoDType: tfscan's kernel refuses dtypes TensorFlow's CPU kernel
	// takes (kernels.UnsupportedError): a gap, listed, not a wrong number.
	NoDType
	// Differs: outside the tolerance, a dtype or shape difference, or an
	// error on an input TensorFlow takes.
	Differs
	// Accepts: TensorFlow refuses the input, tfscan computes something.
	Accepts
	// Subnormal: differs on a case whose float inputs hold subnormals,
	// even with TensorFlow's flushing applied (denormal.go): libm's and
	// Eigen's branches on tiny values (asin(x) = x, sign(x) = x under DAZ)
	// that tfscan does not copy. A known difference of the executor.
	Subnormal
)

func (o Outcome) String() string {
	return [...]string{"bit-identical", "within tolerance", "both error", "dtype not in tfscan", "differs", "tfscan accepts what TensorFlow refuses", "subnormal inputs"}[o]
}

// Result is a case's outcome with what explains it.
type Result struct {
	Outcome Outcome
	Diff    Diff
	Detail  string
}

// Check runs c on tfscan's kernel and holds it to TensorFlow's result under
// the op's rule.
func Check(c *Case) Result {
	got, err := Run(c)
	if c.Error != "" {
		if err != nil {
			return Result{Outcome: BothError, Detail: err.Error()}
		}
		return Result{Outcome: Accepts, Detail: "TensorFlow: " + c.Error}
	}
	if err != nil {
		var ue *kernels.UnsupportedError
		if errors.As(err, &ue) {
			return Result{Outcome: NoDType, Detail: err.Error()}
		}
		return Result{Outcome: Differs, Detail: err.Error()}
	}
	if len(got) != len(c.Outputs) {
		return Result{Outcome: Differs, Detail: fmt.Sprintf("%d outputs, TensorFlow %d", len(got), len(c.Outputs))}
	}
	rule := RuleFor(c)
	tol := rule.Tol
	res := Result{Outcome: Identical}
	for i, want := range c.Outputs {
		if slices.Contains(rule.Skip, i) {
			continue
		}
		d, err := Compare(got[i], want, tol)
		if err != nil {
			return Result{Outcome: Differs, Detail: fmt.Sprintf("output %d: %v", i, err)}
		}
		res.Diff.N += d.N
		res.Diff.MaxULP = max(res.Diff.MaxULP, d.MaxULP)
		res.Diff.MaxAbs = max(res.Diff.MaxAbs, d.MaxAbs)
		if d.Bad > 0 {
			res.Outcome = Differs
			res.Diff.Bad += d.Bad
			if res.Detail == "" {
				res.Detail = fmt.Sprintf("output %d: %d of %d values beyond %s; first %s", i, d.Bad, d.N, tol, d.First)
			}
		} else if !d.Identical && res.Outcome == Identical {
			res.Outcome = Within
		}
	}
	if res.Outcome == Differs && !movesBits(c) && hasSubnormal(c.Inputs) {
		res.Outcome = Subnormal
		// An elementwise op of one input is excused only where its input
		// is subnormal: every other element must still agree.
		if len(c.Inputs) == 1 && len(got) == 1 && got[0] != nil && got[0].NumElements() == c.Inputs[0].NumElements() {
			sub := subnormalAt(c.Inputs[0])
			g := maskAt(got[0], c.Outputs[0], sub)
			if d, err := Compare(g, c.Outputs[0], tol); err == nil && d.Bad > 0 {
				res.Outcome, res.Detail = Differs, "output 0 (subnormal inputs aside): "+d.First
			}
		}
	}
	return res
}
