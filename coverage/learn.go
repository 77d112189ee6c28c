package coverage

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
	"google.golang.org/protobuf/proto"

	"github.com/tfscan/tfscan/tflog"
)

// MethodLearnedFromLog marks a pack learned from the kernel lists in
// TensorFlow's own error messages (tflog): a partial pack that corrects a
// base pack for the ops it names (MergeLearned).
const MethodLearnedFromLog Method = "learned_from_log"

// CompleteOp states that a learned pack holds every kernel registered for Op
// on each of DeviceTypes in the process that wrote the log: none at all for
// a device type without a kernel in the pack.
type CompleteOp struct {
	Op          string   `json:"op"`
	DeviceTypes []string `json:"device_types"`
}

// LearnOptions name the pack a log becomes.
type LearnOptions struct {
	Name string
	// DeviceType is the accelerator the pack is about (the target's).
	DeviceType string
	Mechanism  Mechanism
	// Source says which log, e.g. "log run.log sha256:…".
	Source string
}

// Unlearned is an op whose kernel list a log had but that could not be
// learned, and why.
type Unlearned struct {
	Op, Why string
	Line    int
}

// LearnFromLog turns every registered-kernel section of a log into a
// learned pack.
//
// What a section states: TensorFlow prints the registrations of the whole
// process for the op (op_kernel.cc:1626-1650 KernelsRegisteredForOp reads
// the global kernel registry), so for every device type the process has,
// the lines of that type are all its kernels for the op — none if there is
// no line. The device types the process has are those the message names:
// its "Registered devices" (colocation_graph.cc:1518), the device type whose
// lookup failed (op_kernel.cc:1493, colocation_graph.cc:1312), and the types
// of the kernel lines; DEFAULT, TensorFlow's own fallback registrations, is
// in every process. A type the message does not name (a plugin that was not
// loaded) is left alone. A section TensorFlow shortened (30 values or more
// in a list, long strings) is not a complete statement and is not learned.
func LearnFromLog(l *tflog.Log, opts LearnOptions) (*Pack, []Unlearned) {
	type opFacts struct {
		devices map[string]bool
		kernels map[string]*kdpb.KernelDef // by canonical JSON
	}
	facts := map[string]*opFacts{}
	var skipped []Unlearned
	for _, m := range l.Messages {
		if !m.KernelsListed {
			continue
		}
		if m.Op == "" {
			skipped = append(skipped, Unlearned{Why: "the message does not name the op", Line: m.Line})
			continue
		}
		if m.KernelsElided {
			skipped = append(skipped, Unlearned{Op: m.Op, Why: "TensorFlow shortened or could not print the kernel list", Line: m.Line})
			continue
		}
		var ks []*kdpb.KernelDef
		var bad string
		for _, k := range m.Kernels {
			kd, err := kernelDef(m.Op, k)
			if err != nil {
				bad = err.Error()
				break
			}
			ks = append(ks, kd)
		}
		if bad != "" {
			skipped = append(skipped, Unlearned{Op: m.Op, Why: bad, Line: m.Line})
			continue
		}
		f := facts[m.Op]
		if f == nil {
			f = &opFacts{devices: map[string]bool{DeviceDefault: true}, kernels: map[string]*kdpb.KernelDef{}}
			facts[m.Op] = f
		}
		for _, d := range m.RegisteredDevices {
			f.devices[d] = true
		}
		switch m.Kind {
		case tflog.KindNoRegisteredKernel, tflog.KindExplicitDevice:
			if t, _, _ := strings.Cut(m.Device, ":"); t != "" {
				f.devices[t] = true
			}
		}
		for _, k := range ks {
			f.devices[k.GetDeviceType()] = true
			NormalizeKernel(k)
			key, _ := canonicalJSON(k)
			f.kernels[string(key)] = k
		}
	}
	p := &Pack{
		Name:       opts.Name,
		DeviceType: opts.DeviceType,
		Mechanism:  opts.Mechanism,
		Source:     opts.Source,
		Method:     MethodLearnedFromLog,
		Confidence: "exact for the ops listed in complete_ops on their device types, as TensorFlow itself reported them in the log; nothing about any other op. Host-memory args and priorities are not in TensorFlow's message: a kernel equal to one of the base pack's keeps the base's.",
	}
	if p.Mechanism == "" {
		p.Mechanism = MechanismKernel
	}
	for _, op := range slices.Sorted(maps.Keys(facts)) {
		f := facts[op]
		p.Complete = append(p.Complete, CompleteOp{Op: op, DeviceTypes: slices.Sorted(maps.Keys(f.devices))})
		for _, key := range slices.Sorted(maps.Keys(f.kernels)) {
			p.Kernels = append(p.Kernels, f.kernels[key])
		}
	}
	return p, skipped
}

// kernelDef converts one logged kernel line.
func kernelDef(op string, k tflog.Kernel) (*kdpb.KernelDef, error) {
	kd := &kdpb.KernelDef{Op: op, DeviceType: k.DeviceType, Label: k.Label}
	if k.DeviceType == "" {
		return nil, fmt.Errorf("a kernel line without a device type")
	}
	for _, c := range k.Constraints {
		l := &attrpb.AttrValue_ListValue{}
		switch {
		case len(c.Types) > 0:
			for _, t := range c.Types {
				v, ok := tpb.DataType_value[t]
				if !ok {
					return nil, fmt.Errorf("unknown dtype %s in the kernel list", t)
				}
				l.Type = append(l.Type, tpb.DataType(v))
			}
		case len(c.Ints) > 0:
			l.I = c.Ints
		case len(c.Strings) > 0:
			for _, s := range c.Strings {
				l.S = append(l.S, []byte(s))
			}
		case len(c.Bools) > 0:
			l.B = c.Bools
		}
		kd.Constraint = append(kd.Constraint, &kdpb.KernelDef_AttrConstraint{
			Name: c.Name, AllowedValues: &attrpb.AttrValue{Value: &attrpb.AttrValue_List{List: l}},
		})
	}
	return kd, nil
}

// checkLearned rejects a learned pack whose kernels are not covered by its
// complete_ops statements (they could not be merged with known meaning).
func (p *Pack) checkLearned() error {
	if p.Method != MethodLearnedFromLog {
		if len(p.Complete) > 0 {
			return fmt.Errorf("pack %q: complete_ops is only for method %s", p.Name, MethodLearnedFromLog)
		}
		return nil
	}
	stated := map[[2]string]bool{}
	for _, c := range p.Complete {
		for _, d := range c.DeviceTypes {
			stated[[2]string{c.Op, d}] = true
		}
	}
	for _, k := range p.Kernels {
		if !stated[[2]string{k.GetOp(), k.GetDeviceType()}] {
			return fmt.Errorf("pack %q: kernel for %s on %s is not under complete_ops", p.Name, k.GetOp(), k.GetDeviceType())
		}
	}
	return nil
}

// MergeLearned applies learned packs over base: for every op a learned pack
// states complete on base's device type (or on DEFAULT), base's kernels of
// that op and type are replaced by the learned ones. Later packs override
// earlier ones for the same op and type. A learned kernel equal to one of
// base's (op, type, label, constraints) keeps base's host-memory args and
// priority, which TensorFlow's message does not print. When a learned pack
// states DEFAULT kernels and base relies on the built-in DEFAULT pack,
// defaults' DEFAULT kernels are copied in first so that every other op keeps
// its fallback. base is not modified; it is returned as is when nothing
// applies.
func MergeLearned(base *Pack, learned []*Pack, defaults *Pack) *Pack {
	types := []string{base.DeviceType}
	if base.RunsAs() != MechanismXLACluster && base.DeviceType != DeviceDefault {
		types = append(types, DeviceDefault)
	}
	replace := map[[2]string][]*kdpb.KernelDef{}
	var sources []string
	var ops []string
	for _, lp := range learned {
		used := false
		for _, c := range lp.Complete {
			for _, d := range c.DeviceTypes {
				if !slices.Contains(types, d) {
					continue
				}
				var ks []*kdpb.KernelDef
				for _, k := range lp.Kernels {
					if k.GetOp() == c.Op && k.GetDeviceType() == d {
						ks = append(ks, k)
					}
				}
				replace[[2]string{c.Op, d}] = ks
				used = true
				if d == base.DeviceType && !slices.Contains(ops, c.Op) {
					ops = append(ops, c.Op)
				}
			}
		}
		if used {
			sources = append(sources, lp.Source)
		}
	}
	if len(replace) == 0 {
		return base
	}
	base = base.complete()
	kernels := base.Kernels
	needDefaults := false
	for key := range replace {
		if key[1] == DeviceDefault {
			needDefaults = true
		}
	}
	if needDefaults && !base.HasDefaultKernels() && defaults != nil {
		kernels = slices.Clone(kernels)
		for _, k := range defaults.complete().Kernels {
			if k.GetDeviceType() == DeviceDefault {
				kernels = append(kernels, k)
			}
		}
	}
	byKey := map[string]*kdpb.KernelDef{}
	var out []*kdpb.KernelDef
	for _, k := range kernels {
		if _, ok := replace[[2]string{k.GetOp(), k.GetDeviceType()}]; ok {
			byKey[sameKernelKey(k)] = k
			continue
		}
		out = append(out, k)
	}
	for _, key := range slices.SortedFunc(maps.Keys(replace), func(a, b [2]string) int {
		return strings.Compare(a[0]+"\x00"+a[1], b[0]+"\x00"+b[1])
	}) {
		for _, k := range replace[key] {
			if prev := byKey[sameKernelKey(k)]; prev != nil {
				k = prev
			}
			out = append(out, k)
		}
	}
	merged := *base
	merged.Kernels = out
	merged.UnresolvedOps = slices.DeleteFunc(slices.Clone(base.UnresolvedOps), func(op string) bool { return slices.Contains(ops, op) })
	slices.Sort(ops)
	merged.LearnedFrom = append(slices.Clone(base.LearnedFrom), sources...)
	if len(ops) > 0 {
		merged.Source = fmt.Sprintf("%s; corrected for %s by %s", base.Source, strings.Join(ops, ", "), strings.Join(sources, ", "))
	}
	return &merged
}

// sameKernelKey identifies a registration by what TensorFlow's message
// prints of it: op, device type, label and constraints.
func sameKernelKey(k *kdpb.KernelDef) string {
	c := proto.Clone(k).(*kdpb.KernelDef)
	c.HostMemoryArg, c.Priority = nil, 0
	NormalizeKernel(c)
	b, _ := canonicalJSON(c)
	return string(b)
}
