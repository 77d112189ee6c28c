package coverage

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"
	"google.golang.org/protobuf/proto"
)

// DeriveOptions describe a derived pack: a stack with no registry of its
// own that public evidence says runs another pack's kernels (Iluvatar
// CoreX ships TensorFlow rebuilt for its CUDA-compatible stack).
type DeriveOptions struct {
	Name, Vendor string
	// DeviceType is the stack's device type; the base's kernels are
	// relabelled to it.
	DeviceType string
	// TFVersion is the TensorFlow the vendor ships.
	TFVersion string
	Rule      string
	Evidence  []string
	Level     Level
	// NewerThanStack are base ops whose OpDef the vendor's TensorFlow
	// does not have; their kernels are left out and nodes of them get
	// op_newer_than_stack.
	NewerThanStack []string
	// VersionCheck says how NewerThanStack was found and what it cannot
	// know.
	VersionCheck string
}

// Derive builds the derived pack from base: every kernel of base's own
// device type, relabelled to o.DeviceType, minus the ops newer than the
// vendor's TensorFlow. DEFAULT kernels are not copied: a derived stack
// falls back to the built-in DEFAULT pack like any static pack.
func Derive(base *Pack, o DeriveOptions) (*Pack, error) {
	switch {
	case base.Mechanism == MechanismDerived:
		return nil, fmt.Errorf("base pack %q is itself derived", base.Name)
	case o.Rule == "" || len(o.Evidence) == 0:
		return nil, errors.New("a derived pack needs a rule and at least one piece of evidence")
	case o.Level != LevelMedium && o.Level != LevelLow:
		return nil, fmt.Errorf("a derived pack's confidence is low or medium, not %q", o.Level)
	}
	newer := map[string]bool{}
	for _, op := range o.NewerThanStack {
		newer[op] = true
	}
	var ks []*kdpb.KernelDef
	for _, k := range base.OwnKernels() {
		if newer[k.GetOp()] {
			continue
		}
		c := proto.Clone(k).(*kdpb.KernelDef)
		c.DeviceType = o.DeviceType
		ks = append(ks, c)
	}
	var unresolved []string
	for _, op := range base.UnresolvedOps {
		if !newer[op] {
			unresolved = append(unresolved, op)
		}
	}
	newOps := slices.Clone(o.NewerThanStack)
	slices.Sort(newOps)
	newOps = slices.Compact(newOps)
	p := &Pack{
		Name: o.Name, Vendor: o.Vendor, DeviceType: o.DeviceType, Mechanism: MechanismDerived,
		TFVersion: o.TFVersion, Source: fmt.Sprintf("derived from built-in pack %s (%s)", base.Name, base.Source),
		Method: MethodDerived, Date: base.Date, ConfidenceLevel: o.Level,
		BuildFlags: slices.Clone(base.BuildFlags), UnresolvedOps: unresolved, NewerThanStack: newOps,
		Derived: &Derivation{
			Base: base.Name, BaseMechanism: base.Mechanism, BaseTFVersion: base.TFVersion,
			Rule: o.Rule, Evidence: slices.Clone(o.Evidence), VersionCheck: o.VersionCheck,
		},
		Kernels: SortKernels(ks),
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s: derived, not read from the vendor's own registry. Rule: %s. The vendor ships TensorFlow %s; the base pack %s was read from TensorFlow %s",
		strings.ToUpper(string(o.Level)), o.Rule, o.TFVersion, base.Name, base.TFVersion)
	if o.VersionCheck != "" {
		fmt.Fprintf(&sb, "; version check: %s", o.VersionCheck)
	}
	if len(newOps) > 0 {
		fmt.Fprintf(&sb, " (%d ops flagged op_newer_than_stack)", len(newOps))
	}
	sb.WriteString(". A live dump from the stack replaces this pack (docs/registries.md)")
	p.Confidence = sb.String()
	return p, p.Validate()
}
