package coverage

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"unsafe"

	kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"
)

// builtinNames lists the embedded packs (builtinData) without decoding
// any: a scan against one target decodes only the packs it uses.
var builtinNames = sync.OnceValues(func() ([]string, error) {
	return slices.Sorted(maps.Keys(builtinData)), nil
})

// builtinDecoded holds, by name, each embedded pack's decode, run once.
var builtinDecoded sync.Map // string → func() (*Pack, error)

// loadBuiltin decodes one embedded pack, once.
func loadBuiltin(name string) (*Pack, error) { return readOnce(&builtinDecoded, name, decodeBuiltin) }

// readOnce is read(name), read once in m: packs of different names are
// read at the same time (a scan reads the packs it needs later on
// goroutines of their own while it resolves its targets), and a second
// caller of one name waits for the first.
func readOnce(m *sync.Map, name string, read func(string) (*Pack, error)) (*Pack, error) {
	f, ok := m.Load(name)
	if !ok {
		f, _ = m.LoadOrStore(name, sync.OnceValues(func() (*Pack, error) { return read(name) }))
	}
	return f.(func() (*Pack, error))()
}

// builtinFile is the embedded pack file of name, the binary's own bytes:
// read-only (a write faults), which the pack decoders are (they keep no
// byte of it they would change), and kept by a lazily read pack, whose
// kernels are decoded from it when asked for.
func builtinFile(name string) ([]byte, error) {
	s, ok := builtinData[name]
	if !ok {
		return nil, fmt.Errorf("no built-in pack %q", name)
	}
	return unsafe.Slice(unsafe.StringData(s), len(s)), nil
}

// decodeBuiltin decodes the embedded pack name.
func decodeBuiltin(name string) (*Pack, error) {
	data, err := builtinFile(name)
	if err != nil {
		return nil, err
	}
	p, err := parsePack(data)
	if err != nil {
		return nil, fmt.Errorf("built-in pack %s: %w", name, err)
	}
	if p.Name != name {
		return nil, fmt.Errorf("built-in pack %s.json is named %q", name, p.Name)
	}
	return p, nil
}

// BuiltinPacks returns the packs embedded in tfscan, sorted by name. They are
// parsed once and shared: callers must not modify them.
func BuiltinPacks() ([]*Pack, error) {
	names, err := builtinNames()
	if err != nil {
		return nil, err
	}
	packs := make([]*Pack, 0, len(names))
	for _, name := range names {
		p, err := loadBuiltin(name)
		if err != nil {
			return nil, err
		}
		packs = append(packs, p)
	}
	return packs, nil
}

// BuiltinPack returns the embedded pack called name.
func BuiltinPack(name string) (*Pack, error) {
	if err := checkBuiltin(name); err != nil {
		return nil, err
	}
	return loadBuiltin(name)
}

// checkBuiltin tells whether name is an embedded pack's.
func checkBuiltin(name string) error {
	names, err := builtinNames()
	if err != nil {
		return err
	}
	if !slices.Contains(names, name) {
		return fmt.Errorf("no built-in pack %q (have %s)", name, strings.Join(names, ", "))
	}
	return nil
}

// DefaultPackName is the built-in pack of TensorFlow's DEVICE_DEFAULT
// kernels.
const DefaultPackName = "default"

// OwnKernels are the kernels registered for the pack's own device type,
// without any DEFAULT kernels the pack carries.
func (p *Pack) OwnKernels() []*kdpb.KernelDef {
	var out []*kdpb.KernelDef
	for _, k := range p.Kernels {
		if k.GetDeviceType() == p.DeviceType {
			out = append(out, k)
		}
	}
	return out
}

// Ops lists the distinct ops of the pack's own kernels, sorted.
func (p *Pack) Ops() []string {
	var ops []string
	for _, k := range p.OwnKernels() {
		ops = append(ops, k.GetOp())
	}
	slices.Sort(ops)
	return slices.Compact(ops)
}

// DeviceCPU is TensorFlow's host device type (DEVICE_CPU).
const DeviceCPU = "CPU"

// HostKernels are the CPU kernels a pack carries for another device type:
// a live dump's record of the vendor's own TensorFlow build, which is the
// CPU that soft placement falls back to on that stack. nil for packs
// without them (then TF 2.15's built-in cpu pack stands in).
func (p *Pack) HostKernels() []*kdpb.KernelDef {
	if p.DeviceType == DeviceCPU {
		return nil
	}
	var out []*kdpb.KernelDef
	for _, k := range p.Kernels {
		if k.GetDeviceType() == DeviceCPU {
			out = append(out, k)
		}
	}
	return out
}

// HostPack is the vendor build's CPU as a pack of its own (its CPU and
// DEFAULT kernels), or nil when p carries no CPU kernels.
func (p *Pack) HostPack() *Pack {
	hk := p.HostKernels()
	if len(hk) == 0 {
		return nil
	}
	ks := slices.Clone(hk)
	for _, k := range p.Kernels {
		if k.GetDeviceType() == DeviceDefault {
			ks = append(ks, k)
		}
	}
	return &Pack{
		Name: p.Name + "-cpu", Vendor: p.Vendor, DeviceType: DeviceCPU, Mechanism: MechanismKernel,
		TFVersion: p.TFVersion, Source: p.Source, Method: p.Method, Date: p.Date,
		Confidence: "the CPU kernels recorded with " + p.Name, ConfidenceLevel: p.ConfidenceLevel,
		Kernels: ks,
	}
}

// HasDefaultKernels reports whether the pack carries its own DEFAULT
// kernels (live dumps do; source-extracted vendor packs do not).
func (p *Pack) HasDefaultKernels() bool {
	if p.DeviceType == DeviceDefault {
		return false
	}
	for _, k := range p.Kernels {
		if k.GetDeviceType() == DeviceDefault {
			return true
		}
	}
	return false
}

// DefaultKernelsFor returns the DEFAULT kernels TensorFlow falls back to on
// p's device when none of p's own kernels match a node
// (FindKernelRegistration, tensorflow/core/framework/op_kernel.cc): p's own
// DEFAULT kernels when it has them (a live dump), otherwise the built-in
// "default" pack (TF 2.15). It returns nil for XLA packs: XLA JIT devices
// are "symbolic execution devices" without DEFAULT fallback. A graph-offload
// stack (Ascend) keeps TensorFlow's DEFAULT ops around its compiled
// subgraphs, so it gets them (see Index).
func DefaultKernelsFor(p *Pack) ([]*kdpb.KernelDef, error) {
	if p.RunsAs() == MechanismXLACluster || p.DeviceType == DeviceDefault {
		return nil, nil
	}
	if p.HasDefaultKernels() {
		var out []*kdpb.KernelDef
		for _, k := range p.Kernels {
			if k.GetDeviceType() == DeviceDefault {
				out = append(out, k)
			}
		}
		return out, nil
	}
	d, err := BuiltinPack(DefaultPackName)
	if err != nil {
		return nil, err
	}
	return d.Kernels, nil
}
