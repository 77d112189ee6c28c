// Package opdefs embeds TensorFlow's OpDefs: the published OpList of the
// release named by TFVersion plus the underscore-prefixed internal ops
// TensorFlow registers only in C++ (_FusedConv2D, _Arg, _Send, ...).
//
// ops.pb and zz_generated.go are generated; do not edit them. To
// regenerate from a TensorFlow source tree (by default the Go module cache
// copy of github.com/tensorflow/tensorflow@v2.15.0+incompatible):
//
//	go mod download github.com/tensorflow/tensorflow@v2.15.0+incompatible
//	go generate ./graph/...
//	make opdefs-check   # fails when the committed files are stale
//
// The OpDefs are derived from TensorFlow (Apache-2.0, The TensorFlow
// Authors); see NOTICE.
package opdefs

//go:generate go run ../internal/opdefgen/opdefgen -o .

import (
	_ "embed"
	"fmt"

	opdefpb "github.com/wamuir/graft/tensorflow/core/framework/op_def_go_proto"
	"google.golang.org/protobuf/proto"
)

// opsPb is the OpList's encoding, read in place: nothing decodes into it.
//
//go:embed ops.pb
var opsPb []byte

// Load decodes the whole embedded OpList. Each call returns a fresh copy;
// Embedded decodes only the ops asked for.
func Load() (*opdefpb.OpList, error) {
	list := &opdefpb.OpList{}
	if err := proto.Unmarshal(opsPb, list); err != nil {
		return nil, fmt.Errorf("embedded opdefs: %w", err)
	}
	return list, nil
}
