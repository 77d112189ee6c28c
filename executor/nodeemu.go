package executor

import "github.com/tfscan/tfscan/kernels"

// Per-node precision emulation (Options.NodeEmu), for precision parity:
// a target that stores some nodes' tensors in float16/bfloat16 while the
// nodes soft placement leaves on the CPU (and, under auto mixed precision,
// the ops TensorFlow keeps in float32) run exactly in float32.
//
// A node whose emulation has RoundStorage sees its float32 inputs rounded
// to the storage format (the Cast to half that auto mixed precision inserts
// in front of a converted node, auto_mixed_precision.cc, or the device copy
// of a narrower-storage device) and has its float32 outputs rounded too.
// Constants, weights and feeds are not rounded on entry in this mode: the
// nodes that consume them round them.

// roundInputs returns inputs with every float32 tensor rounded by
// emu.RoundStorage. Tensors already representable are passed through
// without a copy; the others are cloned, never modified.
func roundInputs(inputs []*kernels.Tensor, emu *kernels.Emulation) []*kernels.Tensor {
	if emu == nil || emu.RoundStorage == nil {
		return inputs
	}
	r := emu.RoundStorage
	var out []*kernels.Tensor
	for i, t := range inputs {
		d, ok := t.Data.([]float32)
		if !ok || representable(d, r) {
			continue
		}
		if out == nil {
			out = append([]*kernels.Tensor(nil), inputs...)
		}
		c := t.Clone()
		roundWith(c, emu)
		out[i] = c
	}
	if out == nil {
		return inputs
	}
	return out
}

// representable reports whether r leaves every value of d unchanged (NaNs
// count as unchanged).
func representable(d []float32, r func(float32) float32) bool {
	for _, v := range d {
		if w := r(v); w != v && v == v {
			return false
		}
	}
	return true
}

// roundWith rounds t's float32 data in place with emu.RoundStorage.
func roundWith(t *kernels.Tensor, emu *kernels.Emulation) {
	if emu == nil || emu.RoundStorage == nil || t == nil {
		return
	}
	if d, ok := t.Data.([]float32); ok {
		r := emu.RoundStorage
		for i, v := range d {
			d[i] = r(v)
		}
	}
}
