package tfgolden

import (
	"slices"
	"strings"
)

// Difference is a named difference from TensorFlow's stock CPU kernel that
// tfscan keeps on purpose: tfscan's executor models the accelerator a model
// moves to, and where the stock CPU kernel refuses what TensorFlow's
// GPU kernel and its default x86 build (oneDNN's kernel) compute, tfscan
// computes it. Not a defect: the kernel test holds the cases it covers to
// it, and fails when no case shows it any more; docs/conformance.md lists
// them.
type Difference struct {
	Name string
	Op   string
	Why  string
	// covers reports whether the difference explains a case's outcome.
	covers func(c *Case, r Result) bool
}

var differences = []*Difference{{
	Name: "Conv2DBackpropFilter dilations",
	Op:   "Conv2DBackpropFilter",
	Why: "TensorFlow's stock CPU kernel refuses dilations above 1 (conv_grad_filter_ops.cc, " +
		"Conv2DCustomBackpropFilterOp: \"Current CPU implementations do not yet support dilation rates larger " +
		"than 1\"); its GPU kernel (Conv2DBackpropFilterOp<GPUDevice>, which hands the dilations to cuDNN) and " +
		"oneDNN's CPU kernel, which TensorFlow's default x86 build puts in its place, compute the dilated " +
		"gradient, and so does tfscan: the onednn goldens hold it to oneDNN's results",
	covers: func(c *Case, r Result) bool {
		if r.Outcome != Accepts || !strings.Contains(c.Error, "dilation rates larger than 1") {
			return false
		}
		d := c.Attrs["dilations"].GetList().GetI()
		return slices.ContainsFunc(d, func(v int64) bool { return v > 1 })
	},
}}

// DifferenceOf returns the named difference that explains a case's
// outcome, or nil.
func DifferenceOf(c *Case, r Result) *Difference {
	for _, d := range differences {
		if d.Op == c.Op && d.covers(c, r) {
			return d
		}
	}
	return nil
}

// Differences returns every named difference.
func Differences() []*Difference { return differences }
