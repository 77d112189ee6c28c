package extract

import (
	"fmt"
	"os"
	"slices"

	avpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"
	opdefpb "github.com/wamuir/graft/tensorflow/core/framework/op_def_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
	"google.golang.org/protobuf/encoding/prototext"
)

// XLABackend is one XLA JIT device as REGISTER_XLA_BACKEND declares it.
type XLABackend struct {
	// Device is the JIT device type, e.g. "XLA_GPU_JIT".
	Device string
	// Types are the backend's supported dtypes (kGpuAllTypes).
	Types []tpb.DataType
	// Filter may edit or reject each kernel (the backend's op filter).
	Filter func(*kdpb.KernelDef) bool
}

// xlaDeviceNames maps the DEVICE_*_XLA_JIT constants, as parseDevices
// reports them, to their values (tensorflow/compiler/tf2xla/xla_op_registry.cc:40-41).
var xlaDeviceNames = map[string]string{
	"CPU_XLA_JIT": "XLA_CPU_JIT",
	"GPU_XLA_JIT": "XLA_GPU_JIT",
	"TPU_XLA_JIT": "XLA_TPU_JIT",
}

// GPUOpFilter is GpuOpFilter from tensorflow/compiler/tf2xla/xla_gpu_backend.cc:
// it adds DT_STRING to Const's dtype and Assert's T.
func GPUOpFilter(k *kdpb.KernelDef) bool {
	switch k.GetOp() {
	case "Const":
		addDtype(k, "dtype", tpb.DataType_DT_STRING)
	case "Assert":
		addDtype(k, "T", tpb.DataType_DT_STRING)
	}
	return true
}

// addDtype is AddDtypeToKernelDefConstraint (tensorflow/compiler/tf2xla/tf2xla_util.cc).
func addDtype(k *kdpb.KernelDef, attr string, t tpb.DataType) {
	for _, c := range k.Constraint {
		if c.GetName() == attr {
			l := c.GetAllowedValues().GetList()
			if l != nil {
				l.Type = append(l.Type, t)
			}
		}
	}
}

// LoadOpList reads a text-format OpList (TensorFlow's ops.pbtxt).
func LoadOpList(path string) (map[string]*opdefpb.OpDef, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var l opdefpb.OpList
	if err := (prototext.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(data, &l); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return OpDefMap(&l), nil
}

// OpDefMap indexes an OpList by op name.
func OpDefMap(l *opdefpb.OpList) map[string]*opdefpb.OpDef {
	m := map[string]*opdefpb.OpDef{}
	for _, op := range l.GetOp() {
		m[op.GetName()] = op
	}
	return m
}

// XLAKernels turns REGISTER_XLA_OP registrations into the KernelDefs TF
// registers for backend b, the way XlaOpRegistry::RegisterCompilationKernels
// does (tensorflow/compiler/tf2xla/xla_op_registry.cc:208-360): every type
// attr of the OpDef gets a constraint = backend types ∩ OpDef allowed types
// ∩ the registration's TypeConstraint (+ resource/variant/string when
// allowed); a registration with a device allowlist hides the others on the
// listed backends; an empty constraint drops the kernel.
func XLAKernels(res *Result, ops map[string]*opdefpb.OpDef, b XLABackend) ([]Registration, []Skip) {
	byOp := map[string][]Registration{}
	var names []string
	for _, r := range res.Registrations {
		op := r.Kernel.GetOp()
		if _, ok := byOp[op]; !ok {
			names = append(names, op)
		}
		byOp[op] = append(byOp[op], r)
	}
	slices.Sort(names)
	var out []Registration
	var skips []Skip
	for _, op := range names {
		regs := byOp[op]
		def := ops[op]
		if def == nil {
			// No OpDef (Xla* and internal ops are not in ops.pbtxt): the
			// type attrs are unknown, so only the registration's own
			// constraints, cut to the backend's types, are kept and the
			// op is marked as dtype-unverified.
			def = &opdefpb.OpDef{Name: op}
			for _, r := range regs {
				for _, c := range r.Kernel.GetConstraint() {
					if !slices.ContainsFunc(def.Attr, func(a *opdefpb.OpDef_AttrDef) bool { return a.GetName() == c.GetName() }) {
						def.Attr = append(def.Attr, &opdefpb.OpDef_AttrDef{Name: c.GetName(), Type: "type"})
					}
				}
			}
			for i := range regs {
				regs[i].Unresolved = append(slices.Clone(regs[i].Unresolved), "(no OpDef)")
			}
		}
		allowlisted := false
		for _, r := range regs {
			if len(r.XLADevices) > 0 && r.hasDevice(b.Device) {
				allowlisted = true
			}
		}
		for _, r := range regs {
			if len(r.XLADevices) > 0 && !r.hasDevice(b.Device) || len(r.XLADevices) == 0 && allowlisted {
				continue
			}
			k, why := xlaKernel(r, def, b)
			if why != "" {
				skips = append(skips, Skip{File: r.File, Text: op, Reason: why})
				continue
			}
			if k == nil || b.Filter != nil && !b.Filter(k) {
				continue
			}
			out = append(out, Registration{Kernel: k, File: r.File, Unresolved: r.Unresolved})
		}
	}
	return out, skips
}

func (r Registration) hasDevice(dev string) bool {
	for _, d := range r.XLADevices {
		if d == dev || xlaDeviceNames[d] == dev {
			return true
		}
	}
	return false
}

// xlaKernel builds one KernelDef, or nil when a constraint is unsatisfiable.
func xlaKernel(r Registration, def *opdefpb.OpDef, b XLABackend) (*kdpb.KernelDef, string) {
	regTypes := map[string][]tpb.DataType{}
	for _, c := range r.Kernel.GetConstraint() {
		regTypes[c.GetName()] = c.GetAllowedValues().GetList().GetType()
	}
	var typeAttrs []*opdefpb.OpDef_AttrDef
	for _, a := range def.GetAttr() {
		if a.GetType() == "type" || a.GetType() == "list(type)" {
			typeAttrs = append(typeAttrs, a)
		}
	}
	for name := range r.xlaTypeConstraintsSet {
		if !slices.ContainsFunc(typeAttrs, func(a *opdefpb.OpDef_AttrDef) bool { return a.GetName() == name }) {
			return nil, fmt.Sprintf("XLA registration of %s constrains %q, which is not a type attr", def.GetName(), name)
		}
	}
	k := &kdpb.KernelDef{Op: def.GetName(), DeviceType: b.Device, Label: r.Kernel.GetLabel()}
	for _, a := range typeAttrs {
		var allowed []tpb.DataType
		opAllowed := a.GetAllowedValues().GetList().GetType()
		rt, constrained := regTypes[a.GetName()]
		if slices.Contains(r.Unresolved, a.GetName()) && !slices.Contains(r.Unresolved, "(no OpDef)") {
			constrained = false // unknown list: fall back to the backend set
		}
		for _, t := range b.Types {
			if a.GetAllowedValues() != nil && !slices.Contains(opAllowed, t) {
				continue
			}
			if constrained && !slices.Contains(rt, t) {
				continue
			}
			allowed = append(allowed, t)
		}
		if r.XLAAllowResource {
			allowed = append(allowed, tpb.DataType_DT_RESOURCE)
		}
		if r.XLAAllowVariant {
			allowed = append(allowed, tpb.DataType_DT_VARIANT)
		}
		if r.XLAAllowString {
			allowed = append(allowed, tpb.DataType_DT_STRING)
		}
		if len(allowed) == 0 {
			return nil, ""
		}
		k.Constraint = append(k.Constraint, &kdpb.KernelDef_AttrConstraint{
			Name:          a.GetName(),
			AllowedValues: &avpb.AttrValue{Value: &avpb.AttrValue_List{List: &avpb.AttrValue_ListValue{Type: allowed}}},
		})
	}
	return k, ""
}

// ToXLA turns a REGISTER_XLA_OP extraction into kernels for one JIT
// device: ops are TensorFlow's OpDefs, typesName the backend's dtype list
// in res.TypeLists (kGpuAllTypes for XLA_GPU_JIT,
// tensorflow/compiler/tf2xla/xla_gpu_backend.cc).
func ToXLA(res *Result, ops map[string]*opdefpb.OpDef, device, typesName string) (*Result, error) {
	types, ok := res.TypeLists[typesName]
	if !ok {
		return nil, fmt.Errorf("dtype list %q not found in the --type-lists files", typesName)
	}
	b := XLABackend{Device: device, Types: types}
	if device == "XLA_GPU_JIT" {
		b.Filter = GPUOpFilter
	}
	regs, skips := XLAKernels(res, ops, b)
	out := *res
	out.Registrations = regs
	out.Skips = append(slices.Clone(res.Skips), skips...)
	return &out, nil
}
