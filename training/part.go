// Package training tells which part of a training step each node of a graph
// belongs to: the forward pass, the backward pass, the optimizer's update,
// the loss scaling of mixed precision, the collectives of several replicas
// or the input pipeline. A migration is judged per part: a missing optimizer
// kernel costs a host round trip per variable per step, a missing gradient
// kernel one per layer.
package training

// Part is the part of a training step a node belongs to.
type Part uint8

// The parts. Forward is every node no rule gives another part: the layers'
// computation, the loss, the metrics and the moving statistics updated on
// the way.
const (
	Forward Part = iota
	Backward
	Optimizer
	LossScale
	Collective
	Input
)

var partNames = [...]string{"forward", "backward", "optimizer", "loss_scale", "collective", "input"}

// String is the name reports use.
func (p Part) String() string {
	if int(p) < len(partNames) {
		return partNames[p]
	}
	return "forward"
}

// Names lists the part names in report order.
func Names() []string { return partNames[:] }

// IsTraining tells whether parts (as Parts returns them) describe a training
// step: some node computes a gradient or updates a variable by an optimizer.
func IsTraining(parts []Part) bool {
	for _, p := range parts {
		if p == Backward || p == Optimizer {
			return true
		}
	}
	return false
}
