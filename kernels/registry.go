package kernels

import (
	"fmt"
	"sort"
)

// KernelFunc computes a node's outputs from its inputs.
type KernelFunc func(ctx *Context) ([]*Tensor, error)

// Kernel is one entry of the registry: the only place a kernel is declared.
// The executor finds every kernel it runs here.
type Kernel struct {
	Op string
	Fn KernelFunc
	// Stateful kernels keep state across runs (variables, hash tables, a
	// restored checkpoint) and reach it only through Context.Resources, as
	// TensorFlow's reach it through OpKernelContext::resource_manager().
	// They move values in and out of state rather than compute them, so
	// the executor hands them their inputs, the node's attrs as written and
	// the run's Emulation (not a per-node one) as they are, and passes
	// their outputs and errors on untouched: no precision emulation around
	// them, no BeforeKernel observation, no float64 conversion. Where one
	// computes or imports a value (AssignAdd, a table's lookup result, a
	// restored tensor) it applies Context.Numerics itself. Dtypes are not
	// declared: a kernel refuses the dtypes it does not handle with an
	// *UnsupportedError.
	Stateful bool
}

var registry = map[string]*Kernel{}

// Register makes fn the kernel for op. It is called from init functions of
// the op-family files; registering one op twice is a programming error.
func Register(op string, fn KernelFunc) { register(&Kernel{Op: op, Fn: fn}) }

// RegisterStateful makes fn the stateful kernel for op (see
// Kernel.Stateful).
func RegisterStateful(op string, fn KernelFunc) {
	register(&Kernel{Op: op, Fn: fn, Stateful: true})
}

func register(k *Kernel) {
	if _, dup := registry[k.Op]; dup {
		panic("kernels: duplicate kernel for " + k.Op)
	}
	registry[k.Op] = k
}

// Find returns the registry entry for op, or nil.
func Find(op string) *Kernel { return registry[op] }

// Lookup returns the kernel function for op, or nil.
func Lookup(op string) KernelFunc {
	if k := registry[op]; k != nil {
		return k.Fn
	}
	return nil
}

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
