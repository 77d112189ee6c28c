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
