package coverage

import (
	"fmt"

	kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"
)

// KernelList is a pack's kernels of its own device type as TensorFlow's
// KernelList, the form get_all_registered_kernels() returns and
// TF_RegisterKernelBuilderWithKernelDef registers one KernelDef of
// (tools/fakedevice builds a PluggableDevice from it). CPU and DEFAULT
// kernels a dump carries are left out: TensorFlow has its own. An error
// names the pack when it has no kernel of its device type.
func KernelList(p *Pack) (*kdpb.KernelList, error) {
	list := &kdpb.KernelList{}
	for _, k := range p.Kernels {
		if k.GetDeviceType() == p.DeviceType {
			list.Kernel = append(list.Kernel, k)
		}
	}
	if len(list.Kernel) == 0 {
		return nil, fmt.Errorf("pack %s has no kernel of its device type %s", p.Name, p.DeviceType)
	}
	return list, nil
}

// MarshalKernelList encodes a KernelList deterministically: binary proto,
// or text proto when text is set (written here, as prototext's output is
// deliberately unstable between builds).
func MarshalKernelList(list *kdpb.KernelList, text bool) ([]byte, error) {
	if !text {
		return proto.MarshalOptions{Deterministic: true}.Marshal(list)
	}
	var b strings.Builder
	for _, k := range list.GetKernel() {
		b.WriteString("kernel {\n")
		fmt.Fprintf(&b, "  op: %s\n  device_type: %s\n", strconv.Quote(k.GetOp()), strconv.Quote(k.GetDeviceType()))
		for _, c := range k.GetConstraint() {
			v := c.GetAllowedValues()
			if v != nil && v.GetValue() != nil && v.GetList() == nil {
				return nil, fmt.Errorf("kernel %s: constraint %s is not a list of types", k.GetOp(), c.GetName())
			}
			l := v.GetList()
			if len(l.GetS())+len(l.GetI())+len(l.GetF())+len(l.GetB())+len(l.GetShape())+len(l.GetTensor())+len(l.GetFunc()) > 0 {
				return nil, fmt.Errorf("kernel %s: constraint %s is not a list of types", k.GetOp(), c.GetName())
			}
			fmt.Fprintf(&b, "  constraint {\n    name: %s\n    allowed_values {\n      list {\n", strconv.Quote(c.GetName()))
			for _, t := range l.GetType() {
				fmt.Fprintf(&b, "        type: %s\n", t)
			}
			b.WriteString("      }\n    }\n  }\n")
		}
		for _, h := range k.GetHostMemoryArg() {
			fmt.Fprintf(&b, "  host_memory_arg: %s\n", strconv.Quote(h))
		}
		if k.GetLabel() != "" {
			fmt.Fprintf(&b, "  label: %s\n", strconv.Quote(k.GetLabel()))
		}
		if k.GetPriority() != 0 {
			fmt.Fprintf(&b, "  priority: %d\n", k.GetPriority())
		}
		b.WriteString("}\n")
	}
	return []byte(b.String()), nil
}
