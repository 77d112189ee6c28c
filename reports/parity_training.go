package reports

// ParityTraining is what a mixed_float16 training step's gradients do
// under the target's precision against the float64 reference, without
// loss scaling and under LossScaleOptimizer's dynamic loss scale
// (docs/precision.md, "Training steps").
type ParityTraining struct {
	// LossScaleVariable is the variable the runs set (current_loss_scale);
	// InitialScale its value in the checkpoint.
	LossScaleVariable string  `json:"loss_scale_variable"`
	InitialScale      float64 `json:"initial_scale"`
	// WithoutLossScaling is the step at scale 1.
	WithoutLossScaling ParityStep `json:"without_loss_scaling"`
	// WithLossScaling are the steps the dynamic scale takes from the
	// initial one: each skipped step halves it, until one is applied or the
	// scale is 1 and still not finite.
	WithLossScaling []ParityStep `json:"with_loss_scaling"`
	// SettledScale is the scale of the first applied step; null when every
	// step is skipped. SkippedSteps counts the skipped steps before it
	// (all of WithLossScaling when it never settles).
	SettledScale *float64 `json:"settled_scale"`
	SkippedSteps int      `json:"skipped_steps"`
	// AfterGrowth is the step at twice the settled scale, where the scale
	// goes after growth_steps finite steps in a row.
	AfterGrowth *ParityStep `json:"after_growth,omitempty"`
}

// ParityStep is one run of the step at one loss scale.
type ParityStep struct {
	LossScale float64 `json:"loss_scale"`
	// Applied is set when every gradient is finite: LossScaleOptimizer
	// applies the update; otherwise it skips the step.
	Applied   bool             `json:"applied"`
	Gradients []ParityGradient `json:"gradients"`
}

// ParityGradient is one gradient (as LossScaleOptimizer checks it,
// unscaled) against the reference.
type ParityGradient struct {
	// Path is the node computing the gradient (its name says the
	// variable), Op its op.
	Path   string `json:"path"`
	Op     string `json:"op"`
	Values int    `json:"values"`
	// Overflow counts values ±Inf/NaN where the reference is finite;
	// Underflow values zero where the reference is not.
	Overflow  int `json:"overflow"`
	Underflow int `json:"underflow"`
	// LostMass is the share of the reference's L1 mass flushed to zero;
	// RelError Σ|a−b|/Σ|b| over the values finite on both sides.
	LostMass float64 `json:"lost_mass"`
	RelError float64 `json:"rel_error"`
	// Finding is "overflow", "underflow" or "".
	Finding string `json:"finding"`
	// Origin is where the finding starts: the first node in execution
	// order the gradient is computed from whose values overflow or flush.
	Origin *ParityOrigin `json:"origin,omitempty"`
}

// ParityOrigin is the node a gradient's overflow or underflow starts at.
type ParityOrigin struct {
	Path   string `json:"path"`
	Op     string `json:"op"`
	Part   string `json:"part"`
	Values int    `json:"values"`
}
