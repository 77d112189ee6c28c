package executor

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tfscan/tfscan/dtype"
	"github.com/tfscan/tfscan/kernels"
)

// Variables returns the session's resource variables that hold a value,
// keyed by their shared_name (the resource-manager key without its empty
// container): what a training step leaves behind after a run, for
// comparing updated weights with TensorFlow's. The tensors must not be
// modified.
func (e *Executor) Variables() map[string]*kernels.Tensor {
	out := map[string]*kernels.Tensor{}
	for _, v := range kernels.All[kernels.Variable](e.res) {
		if v.Value != nil {
			out[strings.TrimPrefix(v.Name, "/")] = v.Value
		}
	}
	return out
}

// VariableNames returns the keys of Variables, sorted.
func VariableNames(vars map[string]*kernels.Tensor) []string {
	names := make([]string, 0, len(vars))
	for k := range vars {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// SetVariable assigns t to the resource variable named name (its
// shared_name), converted as the run holds floats (float64 under
// Options.Compute): how a caller sets a training step's state, such as a
// loss scale, before running it. It fails when no such variable holds a
// value or the dtype differs.
func (e *Executor) SetVariable(name string, t *kernels.Tensor) error {
	for _, v := range kernels.All[kernels.Variable](e.res) {
		if strings.TrimPrefix(v.Name, "/") != name || v.Value == nil {
			continue
		}
		if t.DType != v.DType {
			return fmt.Errorf("variable %s is %s, not %s", name, dtype.Name(v.DType), dtype.Name(t.DType))
		}
		val, err := e.num.Import(t)
		if err != nil {
			return err
		}
		v.Value = val
		return nil
	}
	return fmt.Errorf("no variable %s with a value", name)
}
