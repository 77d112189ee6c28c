package cli

import (
	"fmt"

	kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"

	"github.com/tfscan/tfscan/coverage"
)

// registryShowKernelList writes one pack's kernels of its device type as
// TensorFlow's KernelList (text or binary proto) on stdout: what
// tools/fakedevice registers on a fake PluggableDevice. A pack without a
// kernel of its own device type is bad input (exit 3).
func registryShowKernelList(e *env, arg, op string, text bool) error {
	p, err := resolveOnePack(e, arg)
	if err != nil {
		return err
	}
	list, err := coverage.KernelList(p)
	if err != nil {
		return inputError(fmt.Errorf("%s: %w", arg, err))
	}
	if op != "" {
		var keep []*kdpb.KernelDef
		for _, k := range list.Kernel {
			if k.GetOp() == op {
				keep = append(keep, k)
			}
		}
		if len(keep) == 0 {
			return usageErrorf("%s has no kernel for op %q", arg, op)
		}
		list.Kernel = keep
	}
	data, err := coverage.MarshalKernelList(list, text)
	if err != nil {
		return inputError(fmt.Errorf("%s: %w", arg, err))
	}
	_, err = e.stdout.Write(data)
	return err
}
