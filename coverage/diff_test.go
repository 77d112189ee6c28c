package coverage

import (
	"testing"

	"github.com/stretchr/testify/assert"
	kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

func TestDiffPacks(t *testing.T) {
	a := &Pack{Name: "a", DeviceType: "GPU", Kernels: []*kdpb.KernelDef{
		{Op: "Relu", DeviceType: "GPU", Constraint: []*kdpb.KernelDef_AttrConstraint{typeConstraint("T", tpb.DataType_DT_FLOAT, tpb.DataType_DT_HALF)}},
		{Op: "Conv2D", DeviceType: "GPU", Constraint: []*kdpb.KernelDef_AttrConstraint{typeConstraint("T", tpb.DataType_DT_FLOAT)}},
		{Op: "StringJoin", DeviceType: "GPU"},
		{Op: "Identity", DeviceType: "DEFAULT"},               // not the pack's own device: ignored
		{Op: "Experimental", DeviceType: "GPU", Label: "exp"}, // labeled: ignored
	}}
	b := &Pack{Name: "b", DeviceType: "XPU", Kernels: []*kdpb.KernelDef{
		{Op: "Relu", DeviceType: "XPU", Constraint: []*kdpb.KernelDef_AttrConstraint{typeConstraint("T", tpb.DataType_DT_FLOAT, tpb.DataType_DT_BFLOAT16)}},
		{Op: "Conv2D", DeviceType: "XPU", Constraint: []*kdpb.KernelDef_AttrConstraint{typeConstraint("T", tpb.DataType_DT_FLOAT)}},
		{Op: "LayerNorm", DeviceType: "XPU"},
	}}
	d := DiffPacks(a, b)
	assert.Equal(t, []string{"LayerNorm"}, d.Added)
	assert.Equal(t, []string{"StringJoin"}, d.Removed)
	assert.Equal(t, []OpDTypeDelta{{Op: "Relu", Added: []string{"T=bfloat16"}, Removed: []string{"T=float16"}}}, d.Changed)
	assert.Equal(t, 1, d.Same)

	back := DiffPacks(b, a)
	assert.Equal(t, d.Removed, back.Added)
	assert.Equal(t, d.Added, back.Removed)
}

func TestConstraintString(t *testing.T) {
	k := &kdpb.KernelDef{Constraint: []*kdpb.KernelDef_AttrConstraint{
		typeConstraint("T", tpb.DataType_DT_HALF, tpb.DataType_DT_FLOAT),
		typeConstraint("Tidx", tpb.DataType_DT_INT32),
	}}
	assert.Equal(t, "T in {float16, float32}; Tidx in {int32}", ConstraintString(k.Constraint))
}
