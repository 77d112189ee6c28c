package reports

// XLA is what becomes of the functions a graph marks for XLA compilation
// (_XlaMustCompile, tf.function(jit_compile=True)) on a target
// (docs/migration.md#xla).
type XLA struct {
	// Device is the pack of the target's XLA JIT device, empty when its
	// stack has none; Source says where the stack registers it, or where
	// TensorFlow limits XLA compilation to the devices that have one.
	Device    string        `json:"device,omitempty"`
	Source    string        `json:"source"`
	Functions []XLAFunction `json:"functions"`
}

// XLAFunction is one function marked for compilation.
type XLAFunction struct {
	Function string `json:"function"`
	// Caller is the path of the node that marks it.
	Caller string `json:"caller"`
	// Nodes counts the nodes XLA compiles (the function and every function
	// it calls) in the counted phases.
	Nodes int `json:"nodes"`
	// Compiled is true when the target has an XLA device and a kernel of
	// it for every node; false when a node has none (Missing) or when
	// there is no XLA device and the nodes run op by op.
	Compiled bool `json:"compiled"`
	// Missing groups the nodes the XLA device has no kernel for.
	Missing []TrainingOp `json:"missing,omitempty"`
}
