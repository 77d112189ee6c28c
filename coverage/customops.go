package coverage

import "strings"

// customOpPrefixes map the name prefixes that well-known custom-op libraries
// give their ops (their REGISTER_OP names) to the package that registers
// them. Only libraries whose naming is unambiguous are listed; an op that
// matches none gets no hint rather than a guess.
var customOpPrefixes = []struct{ prefix, library string }{
	{"Addons>", "tensorflow-addons"},
	{"TFText>", "tensorflow-text"},
	{"TFRA>", "tensorflow-recommenders-addons"},
	{"IO>", "tensorflow-io"},
	{"SimpleML", "tensorflow-decision-forests"},
	{"Sentencepiece", "tensorflow-text (sentencepiece ops)"},
	{"Horovod", "horovod"},
	{"TRTEngineOp", "TF-TRT (a TensorFlow build with TensorRT)"},
}

// CustomOpHint names the library a custom op probably comes from, or "".
func CustomOpHint(op string) string {
	for _, p := range customOpPrefixes {
		if strings.HasPrefix(op, p.prefix) {
			return "probably needs " + p.library
		}
	}
	return ""
}
