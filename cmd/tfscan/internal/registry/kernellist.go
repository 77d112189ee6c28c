package registry

import (
	"fmt"
	"io"

	kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"

	"github.com/tfscan/tfscan/coverage"
)

// KernelListOptions says which pack's kernels `registry show --format
// kernellist` writes, and as text or binary proto.
type KernelListOptions struct {
	Dir  string
	Pack string
	Op   string // when set, only this op's kernels
	Text bool
}

// ShowKernelList writes one pack's kernels of its device type as
// TensorFlow's KernelList (text or binary proto): what tools/fakedevice
// registers on a fake PluggableDevice. A pack without a kernel of its own
// device type is an InputError.
func ShowKernelList(w io.Writer, o KernelListOptions) error {
	p, err := resolveOnePack(o.Dir, o.Pack)
	if err != nil {
		return err
	}
	list, err := coverage.KernelList(p)
	if err != nil {
		return inputError(fmt.Errorf("%s: %w", o.Pack, err))
	}
	if o.Op != "" {
		var keep []*kdpb.KernelDef
		for _, k := range list.Kernel {
			if k.GetOp() == o.Op {
				keep = append(keep, k)
			}
		}
		if len(keep) == 0 {
			return usageErrorf("%s has no kernel for op %q", o.Pack, o.Op)
		}
		list.Kernel = keep
	}
	data, err := coverage.MarshalKernelList(list, o.Text)
	if err != nil {
		return inputError(fmt.Errorf("%s: %w", o.Pack, err))
	}
	_, err = w.Write(data)
	return err
}
