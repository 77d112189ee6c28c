// Package kernels is tfscan's op library: tensors and dtypes (float16 and
// bfloat16 included), one file of reference kernels per op family with
// TensorFlow's op semantics, the registry that declares them, and what a
// kernel reaches through its Context: the resource manager that holds
// state across runs and the run's float numerics. How graphs run (dataflow,
// frames, control flow, function calls) is package executor's concern;
// this package does not know it.
package kernels

import (
	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
)

// Context is what a kernel sees of one node execution, as TensorFlow's
// OpKernelContext.
type Context struct {
	Op   string
	Path string // the node's graph path, for error messages
	// Attrs are the node's attrs completed with OpDef defaults.
	Attrs  map[string]*attrpb.AttrValue
	Inputs []*Tensor
	// Emu is the precision emulation in force; nil runs exactly in the
	// tensors' own dtypes.
	Emu *Emulation

	// Resources holds the state that outlives a run (see Kernel.Stateful);
	// stateful kernels cannot run without it.
	Resources *ResourceMgr
	// Numerics is how the run holds float tensors; nil holds them as they
	// are.
	Numerics *Numerics
	// Node and Func are the node's name and its function's ("" at top
	// level), NodeID its ID in the graph: what the resources a stateful
	// kernel creates are named after.
	Node, Func string
	NodeID     int
	// Refs are the TF1 reference variables behind the inputs of a stateful
	// kernel (nil where an input is a plain tensor); Inputs then holds the
	// variable's value, nil while it is uninitialized. A stateful kernel
	// that outputs references (VariableV2, Assign) sets RefOutputs, with a
	// nil tensor in its results at the same index.
	Refs, RefOutputs []*RefVar
	// Owned has bit i set when nothing but this kernel reads Inputs[i]'s
	// data after it (the executor's one consumer of a freshly computed
	// tensor): the kernel may write its output over it, as TensorFlow's
	// kernels forward an input buffer (forward_input_or_allocate_output),
	// instead of allocating and the garbage collector freeing another
	// tensor.
	Owned uint64
	// Buffers, when set, supplies recycled output buffers (see Buffers).
	Buffers Buffers
	// Stable has bit i set when Inputs[i]'s data stays as it is for as
	// long as Packs lives (a constant's or a variable's value, which an
	// assignment replaces rather than overwrites): what a kernel derives
	// from it, such as the GEMM's packed panels of a filter, may be kept
	// in Packs and used again by later calls and runs.
	Stable uint64
	Packs  *PackCache
}

// IsStable reports whether Inputs[i]'s data is stable (Stable).
func (c *Context) IsStable(i int) bool { return i < 64 && c.Stable&(1<<uint(i)) != 0 }

// Owns reports whether the kernel may overwrite Inputs[i]'s data (Owned).
func (c *Context) Owns(i int) bool { return i < 64 && c.Owned&(1<<uint(i)) != 0 }

// Emulation tells precision-sensitive kernels (MatMul, BatchMatMul, Einsum,
// the convolutions, reductions) how the target rounds. The executor rounds
// every float output to the profile's storage type itself; kernels only apply
// the hooks that happen inside them.
type Emulation struct {
	// RoundOperand rounds a matmul/conv operand before multiplication (tf32,
	// fp16, bf16 storage); nil leaves operands as they are.
	RoundOperand func(float32) float32
	// RoundAccum rounds every partial sum of an accumulation (fp16_acc16);
	// nil accumulates in float32.
	RoundAccum func(float32) float32
	// RoundStorage rounds every float32 tensor the executor passes between
	// nodes (constants, weights, feeds and every kernel output) to the
	// device's storage format (e.g. RoundFloat16, RoundBFloat16); nil
	// keeps float32 storage. Kernels do not apply it, except stateful ones
	// through Context.Numerics.
	RoundStorage func(float32) float32
}
