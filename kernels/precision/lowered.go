package precision

import (
	"fmt"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// Lowered is the profile of a float32 node a graph-compiling stack runs in
// a narrower type under its precision mode (coverage's
// covered_lower_precision): "float16" or "bfloat16" storage and operands,
// or, with inputsOnly, operands rounded to that type and float32 output
// (CANN's force_fp32 / cube_fp16in_fp32out for matrix ops).
func Lowered(to string, inputsOnly, ftz bool) (*Profile, error) {
	var name string
	var round func(float32) float32
	switch to {
	case "float16":
		name, round = FP16, RoundFloat16
	case "bfloat16":
		name, round = BF16, RoundBFloat16
	default:
		return nil, fmt.Errorf("no profile lowers to %q", to)
	}
	if !inputsOnly {
		return Lookup(name, ftz)
	}
	p := &Profile{Name: name + "_operands", Storage: tpb.DataType_DT_FLOAT, Operand: round, FTZ: ftz}
	if ftz {
		p.Name += "+ftz"
	}
	return p, nil
}
