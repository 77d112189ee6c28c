package tfgolden

// noGolden are the ops tfscan's executor registers that TensorFlow's CPU
// cannot run, so that no golden can hold them, each with why. The kernel
// test fails when one of them appears in the goldens or leaves the
// registry; docs/conformance.md lists them.
var noGolden = map[string]string{
	"TopK": "TensorFlow 2.15 registers TopK's CPU kernel with a constraint on index_type (topk_op.cc), an attr " +
		"TopK's OpDef lacks, so no TopK node finds a CPU kernel; TopKV2, the op TensorFlow writes, has goldens",
	"Prelu": "not a TensorFlow op (TensorFlow 2.15 has no OpDef for it): the TF.js converter's fusion of a Keras " +
		"PReLU, which TensorFlow computes with Relu, Neg and Mul",
	"HashTable": "its handle is a reference-typed string tensor naming the table by a process-wide counter, read only " +
		"by the v1 table ops (InitializeTable, LookupTableFind) that tfscan's executor does not register, so no " +
		"sequence can show its effect; HashTableV2, the op TensorFlow 2 writes, has goldens",
}

// NoGolden returns the registered ops TensorFlow cannot run, by op, with
// why.
func NoGolden() map[string]string { return noGolden }
