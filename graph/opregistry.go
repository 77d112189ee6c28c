package graph

import opdefpb "github.com/wamuir/graft/tensorflow/core/framework/op_def_go_proto"

// OpRegistry resolves op names to OpDefs: a model's own stripped op list
// first, then tfscan's embedded registry of TensorFlow's ops.
type OpRegistry struct {
	// TFVersion is the TensorFlow version the embedded OpDefs came from.
	TFVersion string
	ops       map[string]*opdefpb.OpDef
}

// Lookup returns the OpDef for op, or nil when no registry knows it.
func (r *OpRegistry) Lookup(op string) *opdefpb.OpDef {
	if r == nil {
		return nil
	}
	return r.ops[op]
}
