package training

import (
	"encoding/binary"
	"slices"
	"strings"

	"github.com/tfscan/tfscan/graph"
)

// Library is the collective communication library a vendor stack runs
// TensorFlow's all-reduce with, and how TensorFlow reaches it.
type Library struct {
	Name string
	// Via says which ops or which path of TensorFlow use the library.
	Via string
	// Source is where the stack says so: file:line in its repository, or
	// the document's address.
	Source string
}

// libraries are the collective libraries known per built-in pack, each read
// from the stack's own source or documentation. A pack not listed has none
// known: musa, directml, enflame-gcu and the packs derived from CUDA or ROCm
// (iluvatar-corex, hygon-dcu), whose vendors publish no TensorFlow
// collective path.
var libraries = map[string]Library{
	"cuda": {Name: "NCCL",
		Via:    "NcclAllReduce kernels, and CollectiveReduceV2 on GPU as NcclReduce when communication_hint is nccl or ConfigProto.experimental.collective_nccl is set",
		Source: "tensorflow/core/kernels/nccl_ops.cc:16-21 (GOOGLE_CUDA: third_party/nccl/nccl.h); tensorflow/core/common_runtime/collective_param_resolver_local.cc:696-701"},
	"rocm": {Name: "RCCL",
		Via:    "NcclAllReduce kernels, and CollectiveReduceV2 on GPU as NcclReduce when communication_hint is nccl or ConfigProto.experimental.collective_nccl is set",
		Source: "tensorflow/core/kernels/nccl_ops.cc:22-28 (TENSORFLOW_USE_ROCM: rocm/include/rccl/rccl.h); tensorflow/core/common_runtime/collective_param_resolver_local.cc:696-701"},
	"ascend": {Name: "HCCL",
		Via:    "tf_adapter's Hcom* ops (HcomAllReduce, HcomAllGather, HcomBroadcast, ...), which the NPU graph engine runs; TensorFlow's Collective* ops are not among them",
		Source: "Ascend/tensorflow@69b35f7bcca0a0bb585f836581f9ae4cb84fe9de tf_adapter/kernels/hccl/hccl_ops.cc:28 (REGISTER_KERNEL_BUILDER HcomAllReduce)"},
	"intel-xpu": {Name: "oneCCL",
		Via:    "Intel Optimization for Horovod (hvd.allreduce on XPU), not TensorFlow's collective ops",
		Source: "https://github.com/intel/intel-optimization-for-horovod/blob/main/docs/intel_gpus.rst"},
}

// LibraryOf is the collective library known for a built-in pack.
func LibraryOf(pack string) (Library, bool) {
	l, ok := libraries[pack]
	return l, ok
}

// Where TensorFlow 2.15 says what MirroredStrategy and its collectives do.
const (
	// RingSource: MirroredStrategy over devices that are not all CPUs and
	// not CPUs mixed with GPUs builds CollectiveAllReduce; its
	// CollectiveReduceV2 (a DEFAULT kernel, so every device has it) runs
	// RingReduce unless NCCL is asked for on a GPU.
	RingSource = "tensorflow/python/distribute/mirrored_strategy.py:383-405; tensorflow/core/kernels/collective_ops.cc:834-835 (DEFAULT kernel); tensorflow/core/common_runtime/collective_param_resolver_local.cc:696-701 (NCCL only on GPU); tensorflow/core/common_runtime/ring_reducer.cc:352"
	// ReductionToOneDeviceSource: a TF1 graph (Session) over non-GPU
	// devices, CPUs mixed with GPUs, int32 values and
	// select_cross_device_ops over non-GPU devices reduce on one device:
	// every value is copied to the first device, reduced there and copied
	// back.
	ReductionToOneDeviceSource = "tensorflow/python/distribute/mirrored_strategy.py:377-386 and :740-751; tensorflow/python/distribute/cross_device_ops.py:1389-1392 (select_cross_device_ops), :611-624 (ReductionToOneDevice)"
)

// reduceOps are the collective ops that all-reduce their first input.
var reduceOps = []string{"CollectiveReduce", "CollectiveReduceV2", "CollectiveReduceV3", "NcclAllReduce"}

// Collectives is what a graph's collective ops exchange per step.
type Collectives struct {
	// Ops counts the collective nodes by op and communication hint.
	Ops []CollectiveOp
	// Replicas is the group size of the all-reduce (the group_size
	// constant of CollectiveReduceV2, the num_devices attr of
	// NcclAllReduce, else the devices the reduce nodes are pinned to); 0
	// when it cannot be told.
	Replicas int
	// ReduceNodes are the all-reduce nodes (one per replica per packed
	// group of gradients); ReduceBytes the bytes their first inputs hold,
	// summed over every replica; Known is false when a shape is unknown.
	ReduceNodes []*graph.Node
	ReduceBytes int64
	Known       bool
	// Tensors is the number of gradients one replica all-reduces: the
	// inputs of the ConcatV2 a reduce node's input packs them with
	// (cross_device_utils.py packing), else one per reduce node. They are
	// what a per-value reduction copies one by one.
	Tensors int
}

// CollectiveOp is one op and hint of a graph's collective nodes.
type CollectiveOp struct {
	Op, Hint string
	Count    int
}

// FindCollectives reads the collective ops of g; bytes gives the bytes of
// a node's output (false when its shape is unknown). Nil when g has none.
func FindCollectives(g *graph.Graph, bytes func(n *graph.Node, out int) (int64, bool)) *Collectives {
	c := &Collectives{Known: true}
	count := map[CollectiveOp]int{}
	devices := map[string]bool{}
	tensors := 0
	for _, n := range g.Nodes {
		if !slices.Contains(collectiveOps, n.Op) {
			continue
		}
		k := CollectiveOp{Op: n.Op, Hint: string(n.Attrs["communication_hint"].GetS())}
		count[k]++
		if !slices.Contains(reduceOps, n.Op) {
			continue
		}
		c.ReduceNodes = append(c.ReduceNodes, n)
		devices[n.Device] = true
		if len(n.Inputs) > 0 && n.Inputs[0].Node != nil {
			in := n.Inputs[0].Node
			if k := in.Attrs["N"].GetI(); k > 0 && (in.Op == "ConcatV2" || in.Op == "Concat") {
				tensors += int(k)
			} else {
				tensors++
			}
			b, ok := bytes(in, int(n.Inputs[0].Output))
			c.ReduceBytes += b
			c.Known = c.Known && ok
		} else {
			c.Known = false
		}
		if c.Replicas == 0 {
			c.Replicas = groupSize(n)
		}
	}
	if len(count) == 0 {
		return nil
	}
	for k, v := range count {
		k.Count = v
		c.Ops = append(c.Ops, k)
	}
	slices.SortFunc(c.Ops, func(a, b CollectiveOp) int {
		return strings.Compare(a.Op+"\x00"+a.Hint, b.Op+"\x00"+b.Hint)
	})
	if c.Replicas == 0 && !devices[""] {
		c.Replicas = len(devices)
	}
	if c.Replicas > 0 {
		c.Tensors = tensors / c.Replicas
	}
	return c
}

// PerReplica is the bytes one replica all-reduces per step (the gradients
// it contributes), 0 when the replicas are unknown.
func (c *Collectives) PerReplica() int64 {
	if c.Replicas == 0 {
		return 0
	}
	return c.ReduceBytes / int64(c.Replicas)
}

// Groups is the number of all-reduce instances per step: each is one
// reduce node on every replica.
func (c *Collectives) Groups() int {
	if c.Replicas == 0 {
		return 0
	}
	return len(c.ReduceNodes) / c.Replicas
}

// RingCost is what RingReduce moves per step over r replicas: each replica
// sends its share in r chunks around the ring twice (reduce, then gather),
// 2(r-1) chunk copies per replica per group, 2(r-1)/r of the data each
// (ring_reducer.cc; one subdivision: larger tensors are subdivided into
// more, smaller copies).
func (c *Collectives) RingCost() (copies int, bytes int64) {
	r := c.Replicas
	if r < 2 {
		return 0, 0
	}
	return 2 * r * (r - 1) * c.Groups(), 2 * int64(r-1) * c.PerReplica()
}

// OneDeviceCost is what ReductionToOneDevice moves per step: every
// gradient of every other replica copied to the first device (r-1 copies
// per tensor), and the sum copied back (r-1 more).
func (c *Collectives) OneDeviceCost() (copies int, bytes int64) {
	r := c.Replicas
	if r < 2 {
		return 0, 0
	}
	return 2 * (r - 1) * c.Tensors, 2 * int64(r-1) * c.PerReplica()
}

// groupSize reads the group size of an all-reduce node: NcclAllReduce's
// num_devices attr, CollectiveReduce's group_size attr, or the
// group_size input of the V2 and V3 ops when a Const feeds it; 0 otherwise.
func groupSize(n *graph.Node) int {
	for _, a := range []string{"num_devices", "group_size"} {
		if v, ok := n.Attrs[a]; ok && v.GetI() > 0 {
			return int(v.GetI())
		}
	}
	if len(n.Inputs) < 2 || n.Inputs[1].Node == nil {
		return 0
	}
	c := n.Inputs[1].Node
	for c.Op == "Identity" && len(c.Inputs) > 0 && c.Inputs[0].Node != nil {
		c = c.Inputs[0].Node
	}
	if c.Op != "Const" {
		return 0
	}
	t := c.Attrs["value"].GetTensor()
	switch {
	case t == nil:
		return 0
	case len(t.GetIntVal()) > 0:
		return int(t.GetIntVal()[0])
	case len(t.GetTensorContent()) >= 4:
		return int(int32(binary.LittleEndian.Uint32(t.GetTensorContent())))
	}
	return 0
}
