package graph

import (
	"fmt"
	"sync"

	opdefpb "github.com/wamuir/graft/tensorflow/core/framework/op_def_go_proto"

	"github.com/tfscan/tfscan/graph/opdefs"
)

// OpRegistry resolves op names to OpDefs: a model's own stripped op list
// first, then tfscan's embedded registry of TensorFlow's ops.
type OpRegistry struct {
	// TFVersion is the TensorFlow version the embedded OpDefs came from.
	TFVersion string
	ops       map[string]*opdefpb.OpDef
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
	return r.ops[op]
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
	n := len(r.ops)
	for name := range r.own {
		if _, dup := r.ops[name]; !dup {
			n++
		}
	}
	for name := range r.extra {
		_, dup := r.ops[name]
		_, own := r.own[name]
		if !dup && !own {
			n++
		}
	}
	return n
}

var (
	embeddedOnce sync.Once
	embeddedOps  map[string]*opdefpb.OpDef
	embeddedErr  error
)

func embedded() map[string]*opdefpb.OpDef {
	embeddedOnce.Do(func() {
		list, err := opdefs.Load()
		if err != nil {
			embeddedErr = err
			return
		}
		embeddedOps = make(map[string]*opdefpb.OpDef, len(list.Op))
		for _, op := range list.Op {
			embeddedOps[op.Name] = op
		}
	})
	if embeddedErr != nil {
		// The embedded file is part of the binary and checked by tests; a
		// failure here is a broken build, not bad input.
		panic(fmt.Sprintf("graph: %v", embeddedErr))
	}
	return embeddedOps
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
