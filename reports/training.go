package reports

// Training breaks a target's figures down by part of a training step: the
// forward pass, the backward pass, the optimizer's update, the loss scaling
// of mixed precision, the collectives between replicas and the input
// pipeline (docs/migration.md defines them). It is present only for a
// training graph: one with backward or optimizer nodes.
type Training struct {
	// Parts are the parts with counted nodes, in the order forward,
	// backward, optimizer, loss_scale, collective, input.
	Parts []TrainingPart `json:"parts"`
	// Collectives is present when the step exchanges tensors between
	// replicas.
	Collectives *Collectives `json:"collectives,omitempty"`
}

// TrainingPart is the counted nodes of one part of the step on a target.
type TrainingPart struct {
	Part string `json:"part"`
	// Nodes and Covered count the part's nodes in the counted phases
	// (Coverage.Phases) and those the target has a kernel for.
	Nodes   int `json:"nodes"`
	Covered int `json:"covered"`
	// FallbackNodes leave the target's device (Target.LeavesDevice);
	// NewFallbackNodes are those among them that run on the source's
	// accelerator (Delta), absent without a source.
	FallbackNodes    int `json:"fallback_nodes"`
	NewFallbackNodes int `json:"new_fallback_nodes,omitempty"`
	// IslandBytes is the bytes per step crossing the borders of the
	// islands this part holds most nodes of (ties go to the earlier part).
	IslandBytes int64 `json:"island_bytes,omitempty"`
	// Fallback groups the fallback nodes by op and dtypes, most nodes
	// first.
	Fallback []TrainingOp `json:"fallback,omitempty"`
}

// TrainingOp is one group of a part's fallback nodes.
type TrainingOp struct {
	Op     string   `json:"op"`
	DTypes []string `json:"dtypes"`
	Count  int      `json:"count"`
	// New counts the group's nodes that are new fallbacks against the
	// source.
	New int `json:"new,omitempty"`
}

// TrainingPart returns the figures of part p, nil when the target has no
// training breakdown or no counted node of that part.
func (t *Target) TrainingPart(p string) *TrainingPart {
	if t.Training == nil {
		return nil
	}
	for i := range t.Training.Parts {
		if t.Training.Parts[i].Part == p {
			return &t.Training.Parts[i]
		}
	}
	return nil
}

// Collectives is what a training step's collective ops exchange per step
// and what runs them on the target (docs/migration.md#several-devices).
type Collectives struct {
	// Replicas is the all-reduce group size, 0 when it cannot be told.
	Replicas int `json:"replicas"`
	// Ops counts the collective nodes by op and communication hint.
	Ops []CollectiveOp `json:"ops"`
	// ReduceBytes is the bytes one replica all-reduces per step (the dense
	// gradients it contributes; sparse gradients, IndexedSlices of an
	// embedding, are all-gathered by CollectiveGatherV2 instead and not
	// counted); ReduceBytesKnown is false when a shape is unknown and the
	// figure a lower bound.
	ReduceBytes      int64 `json:"reduce_bytes"`
	ReduceBytesKnown bool  `json:"reduce_bytes_known"`
	// Library is the collective library the target's stack has for
	// TensorFlow, absent when none is known.
	Library *CollectiveLibrary `json:"library,omitempty"`
	// Runs says what runs the graph's all-reduce on the target, with where
	// TensorFlow decides it; Copies and CopyBytes are the device-to-device
	// copies it makes per step when no library does the exchange.
	Runs       string `json:"runs"`
	RunsSource string `json:"runs_source"`
	Copies     int    `json:"copies,omitempty"`
	CopyBytes  int64  `json:"copy_bytes,omitempty"`
	// OneDevice is the cost of ReductionToOneDevice for the all-reduced
	// gradients, which MirroredStrategy uses instead in a TF1 graph over
	// non-GPU devices or over CPUs mixed with GPUs, absent when the target
	// has a library.
	OneDevice *CollectiveCost `json:"one_device,omitempty"`
}

// CollectiveOp is one op and communication hint of the collective nodes.
type CollectiveOp struct {
	Op    string `json:"op"`
	Hint  string `json:"hint,omitempty"`
	Count int    `json:"count"`
	// OnCPU counts those the placement puts off the target's device.
	OnCPU int `json:"on_cpu"`
}

// CollectiveLibrary is a stack's collective library and where it says so.
type CollectiveLibrary struct {
	Name   string `json:"name"`
	Via    string `json:"via"`
	Source string `json:"source"`
}

// CollectiveCost is the copies per step of a way to all-reduce without a
// collective library.
type CollectiveCost struct {
	Copies int    `json:"copies"`
	Bytes  int64  `json:"bytes"`
	Source string `json:"source"`
}
