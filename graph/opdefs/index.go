package opdefs

import (
	"errors"
	"fmt"
	"sync"

	opdefpb "github.com/wamuir/graft/tensorflow/core/framework/op_def_go_proto"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// Index is the embedded OpList by op name, each OpDef decoded the first
// time it is looked up. A model uses a few dozen of the ops, and decoding
// all of them (Load) costs a command about 6 ms and 4 MB before it reads
// its model. Safe for concurrent use: an op is decoded once, so every
// caller gets the same *OpDef, which callers must not modify.
type Index struct {
	// raw is each op's encoded OpDef; a name given twice keeps its last,
	// as Load's list read into a map does.
	raw  map[string][]byte
	defs sync.Map // op name → *opdefpb.OpDef
}

// Embedded is the Index of the embedded OpList, made once.
var Embedded = sync.OnceValues(func() (*Index, error) {
	x, err := NewIndex(opsPb)
	if err != nil {
		return nil, fmt.Errorf("embedded opdefs: %w", err)
	}
	return x, nil
})

// NewIndex indexes the encoded OpList b by op name, decoding no OpDef: it
// reads the wire format only as far as each OpDef's name.
func NewIndex(b []byte) (*Index, error) {
	x := &Index{raw: map[string][]byte{}}
	err := eachBytes(b, 1, func(op []byte) error {
		name, err := opName(op)
		if err == nil {
			x.raw[name] = op
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return x, nil
}

// opName is the name (field 1) of the encoded OpDef b; the last one
// given, as proto.Unmarshal keeps.
func opName(b []byte) (string, error) {
	var name []byte
	found := false
	err := eachBytes(b, 1, func(v []byte) error {
		name, found = v, true
		return nil
	})
	if err == nil && !found {
		err = errors.New("an OpDef without a name")
	}
	return string(name), err
}

// eachBytes calls fn with each length-delimited field num of the message
// b, in order, and skips every other field (OpList and OpDef may gain
// fields).
func eachBytes(b []byte, num protowire.Number, fn func([]byte) error) error {
	for len(b) > 0 {
		n, typ, m := protowire.ConsumeTag(b)
		if m < 0 {
			return protowire.ParseError(m)
		}
		b = b[m:]
		if n != num || typ != protowire.BytesType {
			if m = protowire.ConsumeFieldValue(n, typ, b); m < 0 {
				return protowire.ParseError(m)
			}
			b = b[m:]
			continue
		}
		v, m := protowire.ConsumeBytes(b)
		if m < 0 {
			return protowire.ParseError(m)
		}
		if err := fn(v); err != nil {
			return err
		}
		b = b[m:]
	}
	return nil
}

// Len is the number of ops indexed; a nil Index has none.
func (x *Index) Len() int {
	if x == nil {
		return 0
	}
	return len(x.raw)
}

// Has reports whether op is indexed, without decoding it.
func (x *Index) Has(op string) bool {
	if x == nil {
		return false
	}
	_, ok := x.raw[op]
	return ok
}

// Lookup is op's OpDef, nil when op is not indexed.
func (x *Index) Lookup(op string) (*opdefpb.OpDef, error) {
	if x == nil {
		return nil, nil
	}
	if d, ok := x.defs.Load(op); ok {
		return d.(*opdefpb.OpDef), nil
	}
	raw, ok := x.raw[op]
	if !ok {
		return nil, nil
	}
	d := &opdefpb.OpDef{}
	if err := proto.Unmarshal(raw, d); err != nil {
		return nil, fmt.Errorf("OpDef %s: %w", op, err)
	}
	got, _ := x.defs.LoadOrStore(op, d)
	return got.(*opdefpb.OpDef), nil
}
