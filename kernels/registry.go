package kernels

import (
	"fmt"
	"sort"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
)

// Context is what a kernel sees of one node execution.
type Context struct {
	Op   string
	Path string // the node's graph path, for error messages
	// Attrs are the node's attrs completed with OpDef defaults.
	Attrs  map[string]*attrpb.AttrValue
	Inputs []*Tensor
	// Emu is the precision emulation in force; nil runs exactly in the
	// tensors' own dtypes.
	Emu *Emulation
}

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
	// keeps float32 storage. Kernels do not apply it.
	RoundStorage func(float32) float32
}

// KernelFunc computes a node's outputs from its inputs.
type KernelFunc func(ctx *Context) ([]*Tensor, error)

var registry = map[string]KernelFunc{}

// Register makes fn the kernel for op. It is called from init functions of
// the op-family files; registering one op twice is a programming error.
func Register(op string, fn KernelFunc) {
	if _, dup := registry[op]; dup {
		panic("kernels: duplicate kernel for " + op)
	}
	registry[op] = fn
}

// Lookup returns the kernel for op, or nil.
func Lookup(op string) KernelFunc { return registry[op] }

// UnsupportedError says that no reference kernel handles this node: the op
// has no kernel, or not for these dtypes or attr values. The run stops with
// it rather than produce a wrong number.
type UnsupportedError struct {
	Op   string
	Path string
	What string // e.g. "dtype DT_HALF" or "data_format NCHW"
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("%s: no reference kernel for %s (%s)", e.Path, e.Op, e.What)
}

// Unsupported returns an *UnsupportedError for the node.
func (c *Context) Unsupported(format string, args ...any) error {
	return &UnsupportedError{Op: c.Op, Path: c.Path, What: fmt.Sprintf(format, args...)}
}

// RegisteredOps returns the names of all ops with a registered kernel,
// sorted; coverage reports and tests count and list them.
func RegisteredOps() []string {
	ops := make([]string, 0, len(registry))
	for op := range registry {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	return ops
}
