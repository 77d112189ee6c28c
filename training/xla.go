package training

import (
	"slices"

	"github.com/tfscan/tfscan/graph"
)

// XLADevice is the XLA JIT device a stack compiles functions marked for
// compilation with: the pack holding its kernels and where the stack
// registers it.
type XLADevice struct {
	Pack, Source string
}

// xlaDevices are the XLA devices of the stacks whose own kernels are not
// XLA kernels: TensorFlow registers the XLA GPU JIT device for the GPU of a
// CUDA and of a ROCm build alike. A pack whose own mechanism is
// xla_cluster (xla, enflame-gcu's XLA_DTU) is its own XLA device
// (XLADeviceOf).
var xlaDevices = map[string]XLADevice{
	"cuda": {Pack: "xla", Source: "tensorflow/compiler/tf2xla/xla_op_registry.cc:168-174 (XLA_GPU_JIT for DEVICE_GPU); tensorflow/compiler/jit/kernels/xla_ops.cc:985-989; tensorflow/compiler/tf2xla/xla_gpu_backend.cc:32"},
	"rocm": {Pack: "xla", Source: "tensorflow/compiler/tf2xla/xla_op_registry.cc:168-174 (XLA_GPU_JIT for DEVICE_GPU); tensorflow/compiler/jit/xla_gpu_device.cc:17 (the XLA CUDA or ROCM backend); tensorflow/compiler/tf2xla/xla_gpu_backend.cc:32"},
}

// NoXLASource is where TensorFlow registers the devices that compile a
// function marked for compilation: CPU and GPU (and a NextPluggableDevice
// whose JIT device is XLA_GPU_JIT); a device type without one has no
// XLA kernels, and the function's ops run as its ordinary kernels, one by
// one.
const NoXLASource = "tensorflow/compiler/tf2xla/xla_op_registry.cc:147-175 (CPU and GPU JIT devices), :178-190 (NextPluggableDevice); tensorflow/compiler/jit/compilability_check_util.cc:627-629 (_XlaMustCompile)"

// XLADeviceOf is the XLA device of a pack: the pack itself when its
// mechanism (or its base's) is xla_cluster, the table's entry otherwise.
func XLADeviceOf(pack, mechanism, source string) (XLADevice, bool) {
	if mechanism == "xla_cluster" {
		return XLADevice{Pack: pack, Source: source}, true
	}
	d, ok := xlaDevices[pack]
	return d, ok
}

// Compiled is one function a node marks for XLA compilation, with every
// function its body calls (XLA compiles the whole call tree as one
// cluster).
type Compiled struct {
	Caller *graph.Node
	Fn     *graph.Function
	// Bodies are Fn and the functions it calls, transitively, once each.
	Bodies []*graph.Function
}

// CompiledFunctions lists the functions g's call nodes mark with
// _XlaMustCompile (tf.function(jit_compile=True); compilability_check_util.cc:627),
// in node order, each once.
func CompiledFunctions(g *graph.Graph) []Compiled {
	if len(g.Functions) == 0 {
		return nil // no node calls a function: none to walk
	}
	var out []Compiled
	seen := map[*graph.Function]bool{}
	for _, n := range g.Nodes {
		// Only a call compiles a function: the attr of any other node
		// is not looked up.
		if len(n.Calls()) == 0 {
			continue
		}
		if a, ok := n.Attrs["_XlaMustCompile"]; !ok || !a.GetB() {
			continue
		}
		for _, f := range n.Calls() {
			if seen[f] {
				continue
			}
			seen[f] = true
			out = append(out, Compiled{Caller: n, Fn: f, Bodies: callTree(f)})
		}
	}
	return out
}

func callTree(f *graph.Function) []*graph.Function {
	out := []*graph.Function{f}
	for i := 0; i < len(out); i++ {
		for _, n := range out[i].Nodes {
			for _, c := range n.Calls() {
				if !slices.Contains(out, c) {
					out = append(out, c)
				}
			}
		}
	}
	return out
}
