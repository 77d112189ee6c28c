package graph

import (
	"fmt"

	opdefpb "github.com/wamuir/graft/tensorflow/core/framework/op_def_go_proto"

	"github.com/tfscan/tfscan/graph/opdefs"
)

// OpRegistry resolves op names to OpDefs: a model's own stripped op list
// first, then tfscan's embedded registry of TensorFlow's ops.
type OpRegistry struct {
	// TFVersion is the TensorFlow version the embedded OpDefs came from.
	TFVersion string
	// ops is the embedded registry, whose OpDefs are decoded as they are
	// looked up.
	ops *opdefs.Index
	// own holds the model's stripped_op_list; it wins over ops.
	own map[string]*opdefpb.OpDef
	// extra are OpDefs from elsewhere (a live dump's vendor ops): after
	// own, before the embedded ops.
	extra map[string]*opdefpb.OpDef
}

// Lookup returns the OpDef for op, or nil when no registry knows it.
func (r *OpRegistry) Lookup(op string) *opdefpb.OpDef {
	if r == nil {
		return nil
	}
	if d, ok := r.own[op]; ok {
		return d
	}
	if d, ok := r.extra[op]; ok {
		return d
	}
	return lookupEmbedded(r.ops, op)
}

// FromModel reports whether op's OpDef came from the model's own
// stripped_op_list rather than the embedded registry.
func (r *OpRegistry) FromModel(op string) bool {
	if r == nil {
		return false
	}
	_, ok := r.own[op]
	return ok
}

// Len is the number of distinct op names the registry knows.
func (r *OpRegistry) Len() int {
	if r == nil {
		return 0
	}
	n := r.ops.Len()
	for name := range r.own {
		if !r.ops.Has(name) {
			n++
		}
	}
	for name := range r.extra {
		dup := r.ops.Has(name)
		_, own := r.own[name]
		if !dup && !own {
			n++
		}
	}
	return n
}

// embedded is the embedded registry's index.
func embedded() *opdefs.Index {
	x, err := opdefs.Embedded()
	if err != nil {
		// The embedded file is part of the binary and checked by tests; a
		// failure here is a broken build, not bad input.
		panic(fmt.Sprintf("graph: %v", err))
	}
	return x
}

// lookupEmbedded is op's OpDef in the embedded index x, nil when x has none.
func lookupEmbedded(x *opdefs.Index, op string) *opdefpb.OpDef {
	d, err := x.Lookup(op)
	if err != nil {
		panic(fmt.Sprintf("graph: embedded opdefs: %v", err)) // a broken build, as in embedded
	}
	return d
}

// Default is the embedded registry alone: TensorFlow's published ops plus
// its internal underscore ops (see package opdefs). The OpDefs are shared;
// callers must not modify them.
func Default() *OpRegistry {
	return &OpRegistry{TFVersion: opdefs.TFVersion, ops: embedded()}
}

// NewOpRegistry layers a model's meta_info_def.stripped_op_list (may be nil)
// over the embedded registry: a model built with a different TensorFlow, or
// with custom ops, describes its own ops best.
func NewOpRegistry(stripped *opdefpb.OpList) *OpRegistry {
	r := Default()
	if len(stripped.GetOp()) > 0 {
		r.own = make(map[string]*opdefpb.OpDef, len(stripped.GetOp()))
		for _, op := range stripped.GetOp() {
			if op.GetName() == "" {
				continue
			}
			if _, dup := r.own[op.GetName()]; !dup {
				r.own[op.GetName()] = op
			}
		}
	}
	return r
}

// WithExtra adds OpDefs that neither the model nor the embedded registry
// has (a live dump's vendor ops); ops r already knows are left alone.
func (r *OpRegistry) WithExtra(defs []*opdefpb.OpDef) *OpRegistry {
	for _, d := range defs {
		if d.GetName() == "" || r.Lookup(d.GetName()) != nil {
			continue
		}
		if r.extra == nil {
			r.extra = map[string]*opdefpb.OpDef{}
		}
		r.extra[d.GetName()] = d
	}
	return r
}
