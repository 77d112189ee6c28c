// Package placement predicts, without running TensorFlow, where TF 2.15's
// placer would put every node of a model on a machine with one CPU and one
// target device, and what the resulting device partitions cost in
// host↔device transfers. It follows the rules of the placer
// (tensorflow/core/common_runtime/placer.cc, colocation_graph.cc), the
// graph partitioner (tensorflow/core/graph/graph_partition.cc) and the
// function-lowering passes, as docs/placement.md states them.
//
// Kernel availability comes from two coverage.Matcher values, one for the
// target device type and one for CPU; the simulator never prints and never
// reads flags.
package placement

import (
	"iter"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/graph/shape"
	"github.com/tfscan/tfscan/savedmodel/bundle"
)

// Options tune a simulation. The zero value is TensorFlow 2's default for
// functions: soft placement on, functions placed with the target as their
// default device, unknown batch dimensions taken as 1.
type Options struct {
	// NoSoftPlacement simulates allow_soft_placement=false (the session
	// default of a raw ConfigProto). Placement errors TF would raise are then
	// reported in Result.Error.
	NoSoftPlacement bool
	// FunctionDevice is the default device type for library functions that
	// are not called from the top-level graph (TF2: the device of the eager
	// call, docs/placement.md#the-top-level-call). "" means the target; "CPU" models a call
	// under tf.device("/CPU:0").
	FunctionDevice string
	// Dims gives values for unknown dimensions: a signature input name (or
	// node name) sets its unknown dimensions, "batch" sets dimension 0 of
	// every input. Missing batch dimensions default to 1.
	Dims map[string]int64
	// Signature selects the signature whose inputs are fed and whose outputs
	// are fetched; "" picks "serving_default" or else the first one.
	Signature string
	// Fetches, when not nil, are the tensors the client fetches (the fetch
	// list of Session.run), instead of the signature's outputs or, without
	// signatures, of graph.PossibleOutputs' output 0 (summarize_graph's
	// outputs; a node without outputs is run, not fetched). Feeds stay the
	// signature's inputs, or every Placeholder.
	Fetches []graph.Tensor
	// Precision is "", "mixed_float16" or "mixed_bfloat16": simulate
	// Grappler's auto mixed precision and check kernels for the half type.
	Precision string
	// Source is the matcher of the GPU the model comes from (CUDA), used to
	// tell remapper fusions that apply there but not on the target. May be
	// nil; then remapper's CUDA rules alone stand for the source.
	Source coverage.Matcher
	// NoWishlist skips the what-if re-simulations.
	NoWishlist bool
	// WhatIfCovered are groups of graph nodes to ask the wishlist's
	// question about: what if these nodes (every instance of them) had a
	// kernel on the target? Result.WhatIf answers each group in order.
	// `tfscan rewrite` asks it of the nodes a rule would make covered.
	WhatIfCovered [][]*graph.Node
	// Count selects the graph nodes whose work counts in partitions,
	// transfers, islands and the wishlist (e.g. the nodes of the step
	// phase, graph.Phases); nil counts every node. Every node is still
	// placed. An instance of a function body counts when both its own node
	// and the top-level node it was inlined from count, so that a body the
	// step and the loader share counts only under the step's call.
	Count func(*graph.Node) bool
	// ClearDevices simulates an import with clear_devices=True
	// (tf.compat.v1.train.import_meta_graph, saved_model.loader.load):
	// the device fields of the top-level graph's nodes are dropped before
	// placement (meta_graph.py:776-780). Function bodies keep theirs: the
	// import copies the library as it is.
	ClearDevices bool
	// Stack is what the target's stack does, from its pack (the target
	// matcher's coverage.Index.Stack()): precision-mode errors, one
	// compiled cluster for a session adapter without mix_compile_mode, and
	// the vendor optimizer's fusions. nil: none.
	Stack *coverage.StackConfig
	// Checkpoint is the index of the model's checkpoint (shape.OpenCheckpoint),
	// nil when it has none: the shapes it records size what is restored
	// from it.
	Checkpoint *bundle.Reader
	// Shapes, when not nil, are the graph's static shapes from InferShapes
	// with the same Signature, Dims and Checkpoint: they do not depend on
	// the target, so a scan of several targets infers them once.
	Shapes *shape.Shapes
	// Scratch, when not nil, passes on from one simulation to the next
	// what they share: the flattened graph, which a simulation of the
	// same graph with the same ClearDevices, Signature, Fetches and
	// function device reads instead of flattening the graph again
	// (share.go), the CPU's kernel lookups while the CPU matcher is the
	// same (IdentifiedMatcher), and the memory of the colocation groups;
	// so that a scan that simulates several targets of a model, or a
	// target and its --from source, builds and allocates them once. One
	// simulation at a time may use it, and the graph must not change
	// between them.
	Scratch *Scratch
	// PathOf, when not nil, is the Path() of the graph node of an ID as
	// the caller renders it ("" for one it does not), so that a scan
	// renders the paths its placements and its report read once for
	// every target.
	PathOf func(id int) string
	// LazyNodes leaves Result.Nodes nil: Result.NodeOf works each node's
	// result out when asked, from the simulation, which the Result then
	// keeps. A scan copies what it needs of every node into its report at
	// once, and a list of every node's result is memory (23 MB for a
	// 210,000-node model) touched once. NodeOf must be done with before
	// Options.Scratch is lent to another simulation.
	LazyNodes bool
	// NoNodeCounts leaves Result.DeviceNodes, PinnedNodes and
	// PinnedDevices empty, for a caller that counts the nodes itself (a
	// scan counts those its figures count): two walks of every node less.
	NoNodeCounts bool
	// DevicesOnly leaves out, beside the node counts, the islands and the
	// fusions, for a caller that reads only the nodes' devices and the
	// transfers (a scan's --from source).
	DevicesOnly bool
}

// Precision profiles accepted by Options.Precision.
const (
	PrecisionMixedFloat16  = "mixed_float16"
	PrecisionMixedBFloat16 = "mixed_bfloat16"
)

// Result is the predicted placement of one graph against one target.
type Result struct {
	// Target and CPU are the device names used, e.g. "XPU:0" and "CPU:0".
	Target, CPU   string
	SoftPlacement bool
	// Nodes holds one entry per graph node (graph.Node.ID order) that was
	// placed; nodes of functions that were never instantiated are absent.
	Nodes []NodeResult
	// Error is the error TensorFlow would raise (in its own words), if any;
	// placement continues past it so that every node still gets a device.
	Error string
	// Errors lists every placement error found (Error is the first).
	Errors []string
	// Warnings are messages TF would log (resources moved, bodies that will
	// fail at run time, instances of one node placed differently).
	Warnings []string

	// Partitions is the number of devices that run part of the graph.
	Partitions int
	// Transfers counts Send/Recv pairs between partitions inside the model
	// plus same-device host↔device copies, control edges included (at zero
	// bytes); TransferBytes sums their sizes once per step.
	Transfers     int
	TransferBytes int64
	// TransfersPerIteration counts those of Transfers that sit inside a
	// while frame and repeat on every iteration (counted once above).
	TransfersPerIteration int
	// IOTransfers and IOBytes are the copies of fed inputs to their devices
	// and of fetched outputs back to the host, counted apart.
	IOTransfers int
	IOBytes     int64
	// UnknownBytes counts transfers whose size could not be told (unknown
	// shapes, strings, variants).
	UnknownBytes int
	// AssumedDims says which assumed dimensions the byte figures rest on.
	AssumedDims    []string
	PartitionEdges []PartitionEdge
	DeviceNodes    map[string]int
	// TransferList is every counted transfer, in a stable order.
	TransferList []Transfer

	Islands  []Island
	Wishlist []Wish
	// WhatIf answers Options.WhatIfCovered, one entry per group (Op and
	// DType empty; Nodes the group's size).
	WhatIf []Wish
	// Fusions are the remapper fusions the target loses, in the order of
	// the flattened graph (deterministic, not sorted: a report sorts).
	Fusions []Fusion
	// AMP lists the nodes auto mixed precision would convert and whether the
	// target has the half-precision kernel (empty without Options.Precision).
	AMP []AMPNode

	// PinnedNodes counts the counted nodes (Options.Count) whose device
	// field requests a device the simulation honoured
	// (NodeResult.RequestedDevice);
	// PinnedDevices counts them per device field as written.
	PinnedNodes   int
	PinnedDevices map[string]int
	// ClearedDevices counts the top-level device fields
	// Options.ClearDevices dropped.
	ClearedDevices int

	// nodeOf works out a node's result and all every node's, in Nodes'
	// order (Options.LazyNodes).
	nodeOf    func(id int) (NodeResult, bool)
	all       func() []NodeResult
	deviceOf  func(id int) (device, requested string, ok bool)
	devicesAt func(at, dev, req []int32) []string
	// own is Own's work, nil when the simulation borrowed nothing its
	// nodes read; release is Release's, set by Own.
	own     func() (release func())
	release func()
}

// Own keeps for r the arrays of its Scratch that its lazy nodes read
// (Options.LazyNodes), so that r can be read while the Scratch is lent to
// the next simulation: that one is lent other arrays, those a Result gave
// back (Release) or new ones. A caller that reads one result while the
// next simulation runs thus holds two sets of them, about 12 bytes a
// node. Own and Release, like a simulation lent the Scratch, are called
// by one goroutine at a time.
func (r *Result) Own() {
	if r.own != nil {
		r.release = r.own()
		r.own = nil
	}
}

// Release gives the arrays Own kept back to the Scratch, for a later
// simulation; r's lazy nodes are not read after it. Without Own it does
// nothing.
func (r *Result) Release() {
	if r.release != nil {
		r.release()
		r.release = nil
	}
}

// Materialize fills Nodes when Options.LazyNodes left it nil, for a caller
// that wants the list after all; the Result then no longer keeps the
// simulation.
func (r *Result) Materialize() {
	if r.all != nil {
		r.Nodes = r.all()
		r.nodeOf, r.all, r.deviceOf, r.devicesAt, r.own = nil, nil, nil, nil, nil
	}
}

// DeviceOf is NodeOf's Device and RequestedDevice of the graph node with
// ID id, without the rest of its result (its path and reasons), false
// when it was not placed.
func (r *Result) DeviceOf(id int) (device, requested string, ok bool) {
	if r.deviceOf != nil {
		return r.deviceOf(id)
	}
	n, ok := r.NodeOf(id)
	return n.Device, n.RequestedDevice, ok
}

// DevicesAt is DeviceOf of every graph node at once, as a scan reads
// each target's: for each ID id with at[id] >= 0 whose node was placed,
// dev[at[id]] and req[at[id]] become the indexes in the names returned
// of its device and of the device it requests; a nil at puts each ID
// below len(dev) at its own position. names[0] is "" (none
// requested) and holds no name twice; a node not placed is left as it
// is. A lazy result reads the simulation's arrays, with no string per
// node.
func (r *Result) DevicesAt(at, dev, req []int32) (names []string) {
	if r.devicesAt != nil {
		return r.devicesAt(at, dev, req)
	}
	nm := deviceNames{""}
	for id, k := range positions(at, len(dev)) {
		if k < 0 {
			continue
		}
		if d, q, ok := r.DeviceOf(id); ok {
			dev[k], req[k] = nm.index(d), nm.index(q)
		}
	}
	return nm
}

// positions are DevicesAt's graph node IDs and their positions: at's,
// or with a nil at every ID below n at its own.
func positions(at []int32, n int) iter.Seq2[int, int32] {
	return func(yield func(int, int32) bool) {
		if at == nil {
			for id := 0; id < n && yield(id, int32(id)); id++ {
			}
			return
		}
		for id, k := range at {
			if !yield(id, k) {
				return
			}
		}
	}
}

// deviceNames are names each kept once: a placement names few devices,
// which a walk finds without hashing a string per node.
type deviceNames []string

// index is name's index, added when new.
func (nm *deviceNames) index(name string) int32 {
	for k, x := range *nm {
		if x == name {
			return int32(k)
		}
	}
	*nm = append(*nm, name)
	return int32(len(*nm) - 1)
}

// NodeOf is the result of the graph node with ID id, false when it was not
// placed. Without Options.LazyNodes it is the entry of Nodes with that ID
// (found by a walk of Nodes).
func (r *Result) NodeOf(id int) (NodeResult, bool) {
	if r.nodeOf != nil {
		return r.nodeOf(id)
	}
	for _, n := range r.Nodes {
		if n.ID == id {
			return n, true
		}
	}
	return NodeResult{}, false
}

// NodeResult is the prediction for one graph node.
type NodeResult struct {
	ID     int
	Path   string
	Name   string
	Op     string
	Device string
	// RequestedDevice is the node's own device field when the simulation
	// honoured it (not cleared by Options.ClearDevices).
	RequestedDevice string
	// Reasons is the chain of reasons for the device, most important first.
	Reasons []string
}

// Transfer is one Send/Recv pair (or same-device memory copy).
type Transfer struct {
	From, To string // device names
	// Src is the producing node's path and output, e.g. "a/b:0"; Dst the
	// first consumer that needed it.
	Src, Dst string
	Bytes    int64
	// BytesKnown is false when the size could not be told.
	BytesKnown bool
	// Kind is "h2d", "d2h", "host" (a host-memory hand-over with no PCIe
	// copy), "same_device_h2d", "same_device_d2h" or "control".
	Kind string
	// PerIteration marks transfers inside a while frame (once per iteration).
	PerIteration bool
	// IO marks copies of fed inputs and fetched outputs.
	IO bool
}

// PartitionEdge is the traffic from one device partition to another.
type PartitionEdge struct {
	From, To  string
	Transfers int
	Bytes     int64
}

// Island is a maximal connected group of CPU nodes between target nodes.
type Island struct {
	Nodes     []string
	Transfers int
	Bytes     int64
	Cause     string
	// Pinned counts the island's nodes that a device field holds on CPU
	// although the target has their kernel.
	Pinned int
}

// Wish is a missing target kernel and what adding it would remove.
type Wish struct {
	Op, DType        string
	Nodes            int
	TransfersRemoved int
	BytesRemoved     int64
	// IOBytesRemoved is the part of BytesRemoved that is copies of fed
	// inputs and fetched outputs (Result.IOBytes, apart from
	// TransferBytes).
	IOBytesRemoved int64
}

// Fusion is a Grappler remapper fusion that applies on the source GPU but
// not on the target.
type Fusion struct {
	Fused  string
	Nodes  []string
	Reason string
}

// AMPNode is one node auto mixed precision would run in half precision.
type AMPNode struct {
	Path, Op, DType string
	// Covered is whether the target has the half kernel.
	Covered bool
}
