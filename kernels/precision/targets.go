package precision

import "strings"

// Default is the profile a target's vendor stack uses when the model does
// not ask for anything else, and why tfscan assumes it.
type Default struct {
	Profile string
	Why     string
}

// DefaultFor returns the default profile of a target, by pack name or
// device type. Only CUDA departs from float32 by default; for every other
// stack tfscan assumes plain float32 math, since none of them documents a
// reduced-precision default for TensorFlow's float32 ops that we could
// cite. docs/precision.md keeps this table.
func DefaultFor(name, deviceType string) Default {
	switch strings.ToLower(name) {
	case "cuda", "gpu":
		return Default{TF32, "TensorFloat-32 is on by default in TensorFlow ≥ 2.4 " +
			"(tensor_float_32_enabled{true} in tsl/platform/tensor_float_32_utils.cc; " +
			"tf.config.experimental.enable_tensor_float_32_execution): float32 matmuls and " +
			"convolutions use TF32 tensor cores on Ampere and later GPUs"}
	}
	switch strings.ToUpper(deviceType) {
	case "GPU":
		if strings.EqualFold(name, "rocm") {
			break
		}
		return Default{TF32, "a GPU device of CUDA's kind: TensorFlow's TF32 default applies on Ampere and later"}
	}
	return Default{FP32, "assumed: float32 storage and accumulation (no reduced-precision default documented for this stack)"}
}
