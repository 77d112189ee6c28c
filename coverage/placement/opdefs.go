package placement

import (
	opdefpb "github.com/wamuir/graft/tensorflow/core/framework/op_def_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// builtinOpDefs are the OpDefs of the ops the simulator creates itself or
// asks about, for when the graph's registry lacks them: the
// underscore-prefixed ops that ops.pbtxt leaves out are registered in C++
// (tensorflow/core/ops/function_ops.cc for _Arg/_Retval,
// control_flow_ops.cc for _SwitchN, nn_ops.cc for _FusedConv2D and
// _FusedBatchNormEx, math_ops.cc for _FusedMatMul); the control-flow ops
// are repeated from control_flow_ops.cc so that hand-built test graphs work.
var builtinOpDefs = func() map[string]*opdefpb.OpDef {
	arg := func(name, typeAttr string) *opdefpb.OpDef_ArgDef {
		return &opdefpb.OpDef_ArgDef{Name: name, TypeAttr: typeAttr}
	}
	fixed := func(name string, t tpb.DataType) *opdefpb.OpDef_ArgDef {
		return &opdefpb.OpDef_ArgDef{Name: name, Type: t}
	}
	typeAttr := func(name string) *opdefpb.OpDef_AttrDef { return &opdefpb.OpDef_AttrDef{Name: name, Type: "type"} }
	defs := []*opdefpb.OpDef{
		{Name: "_Arg", OutputArg: []*opdefpb.OpDef_ArgDef{arg("output", "T")}, Attr: []*opdefpb.OpDef_AttrDef{typeAttr("T")}},
		{Name: "_Retval", InputArg: []*opdefpb.OpDef_ArgDef{arg("input", "T")}, Attr: []*opdefpb.OpDef_AttrDef{typeAttr("T")}},
		{Name: "Switch", InputArg: []*opdefpb.OpDef_ArgDef{arg("data", "T"), fixed("pred", tpb.DataType_DT_BOOL)},
			OutputArg: []*opdefpb.OpDef_ArgDef{arg("output_false", "T"), arg("output_true", "T")}, Attr: []*opdefpb.OpDef_AttrDef{typeAttr("T")}},
		{Name: "_SwitchN", InputArg: []*opdefpb.OpDef_ArgDef{arg("data", "T"), fixed("output_index", tpb.DataType_DT_INT32)},
			OutputArg: []*opdefpb.OpDef_ArgDef{{Name: "outputs", TypeAttr: "T", NumberAttr: "num_outs"}},
			Attr:      []*opdefpb.OpDef_AttrDef{{Name: "num_outs", Type: "int"}, typeAttr("T")}},
		{Name: "Merge", InputArg: []*opdefpb.OpDef_ArgDef{{Name: "inputs", TypeAttr: "T", NumberAttr: "N"}},
			OutputArg: []*opdefpb.OpDef_ArgDef{arg("output", "T"), fixed("value_index", tpb.DataType_DT_INT32)},
			Attr:      []*opdefpb.OpDef_AttrDef{typeAttr("T"), {Name: "N", Type: "int"}}},
		{Name: "Enter", InputArg: []*opdefpb.OpDef_ArgDef{arg("data", "T")}, OutputArg: []*opdefpb.OpDef_ArgDef{arg("output", "T")},
			Attr: []*opdefpb.OpDef_AttrDef{typeAttr("T"), {Name: "frame_name", Type: "string"}, {Name: "is_constant", Type: "bool"}, {Name: "parallel_iterations", Type: "int"}}},
		{Name: "Exit", InputArg: []*opdefpb.OpDef_ArgDef{arg("data", "T")}, OutputArg: []*opdefpb.OpDef_ArgDef{arg("output", "T")}, Attr: []*opdefpb.OpDef_AttrDef{typeAttr("T")}},
		{Name: "NextIteration", InputArg: []*opdefpb.OpDef_ArgDef{arg("data", "T")}, OutputArg: []*opdefpb.OpDef_ArgDef{arg("output", "T")}, Attr: []*opdefpb.OpDef_AttrDef{typeAttr("T")}},
		{Name: "LoopCond", InputArg: []*opdefpb.OpDef_ArgDef{fixed("input", tpb.DataType_DT_BOOL)}, OutputArg: []*opdefpb.OpDef_ArgDef{fixed("output", tpb.DataType_DT_BOOL)}},
		{Name: "_FusedConv2D", Attr: []*opdefpb.OpDef_AttrDef{typeAttr("T")}},
		{Name: "_FusedMatMul", Attr: []*opdefpb.OpDef_AttrDef{typeAttr("T")}},
		{Name: "_FusedBatchNormEx", Attr: []*opdefpb.OpDef_AttrDef{typeAttr("T"), typeAttr("U")}},
	}
	m := make(map[string]*opdefpb.OpDef, len(defs))
	for _, d := range defs {
		m[d.Name] = d
	}
	return m
}()
