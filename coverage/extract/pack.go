package extract

import (
	"fmt"
	"slices"
	"strings"

	kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"
	"google.golang.org/protobuf/proto"

	"github.com/tfscan/tfscan/coverage"
)

// PackOptions describe the pack built from extracted registrations.
type PackOptions struct {
	Name, Vendor string
	// DeviceType is the pack's device type; DeviceTags are the source's
	// .Device(...) tags that register on it (default: DeviceType). ITEX
	// writes .Device(DEVICE_GPU) but registers on XPU.
	DeviceType string
	DeviceTags []string
	Mechanism  coverage.Mechanism
	TFVersion  string
	SourceRef  string // "repo@commit"
	Date       string // the source commit's date
	Style      string // how it was extracted, for the confidence note
	Note       string // vendor-specific limits, appended to the confidence note
	// Level is the pack's confidence level (default medium).
	Level coverage.Level
	// BuildFlags are the defines the extraction assumed (Options.Defines).
	BuildFlags []string
}

// Stats count what went into a pack; they feed its confidence note.
type Stats struct {
	Registrations int // registrations on the pack's device tags
	Ops           int
	Resolved      int // registrations with every type constraint resolved
	Untyped       int // registrations with no type constraint at all
	Skipped       int // registrations that could not be parsed (any device)
	Files         int
}

// ToPack keeps the registrations whose device tag is one of o.DeviceTags,
// relabels them with o.DeviceType and builds a pack with provenance.
func ToPack(res *Result, o PackOptions) (*coverage.Pack, Stats, error) {
	tags := o.DeviceTags
	if len(tags) == 0 {
		tags = []string{o.DeviceType}
	}
	st := Stats{Skipped: len(res.Skips), Files: res.Files}
	var ks []*kdpb.KernelDef
	var unresolved []string
	for _, r := range res.Registrations {
		if !slices.Contains(tags, r.Kernel.GetDeviceType()) {
			continue
		}
		k := proto.Clone(r.Kernel).(*kdpb.KernelDef)
		k.DeviceType = o.DeviceType
		ks = append(ks, k)
		st.Registrations++
		switch {
		case len(r.Unresolved) > 0:
			unresolved = append(unresolved, k.Op)
		case len(k.Constraint) == 0:
			st.Untyped++
			st.Resolved++
		default:
			st.Resolved++
		}
	}
	if len(ks) == 0 {
		return nil, st, fmt.Errorf("no registrations for device tag(s) %s", strings.Join(tags, ", "))
	}
	ks = coverage.SortKernels(ks)
	p := &coverage.Pack{
		Name: o.Name, Vendor: o.Vendor, DeviceType: o.DeviceType, Mechanism: o.Mechanism,
		TFVersion: o.TFVersion, Source: o.SourceRef, Method: coverage.MethodSourceExtraction,
		Date: o.Date, Kernels: ks, ConfidenceLevel: o.Level, BuildFlags: o.BuildFlags,
	}
	if p.ConfidenceLevel == "" {
		p.ConfidenceLevel = coverage.LevelMedium
	}
	if p.Mechanism == "" {
		p.Mechanism = coverage.MechanismKernel
	}
	slices.Sort(unresolved)
	p.UnresolvedOps = slices.Compact(unresolved)
	st.Ops = len(p.Ops())
	p.Confidence = confidence(st, o)
	return p, st, p.Validate()
}

func confidence(st Stats, o PackOptions) string {
	style := o.Style
	if style == "" {
		style = "C preprocessor expansion of the registration macros"
	}
	s := fmt.Sprintf("static source extraction (%s): %d registrations for %d ops from %d files; dtypes known for %d of %d registrations (%d have no type constraint)",
		style, st.Registrations, st.Ops, st.Files, st.Resolved, st.Registrations, st.Untyped)
	if st.Skipped > 0 {
		s += fmt.Sprintf("; %d registrations (all devices) skipped: op name or label not a constant", st.Skipped)
	}
	s += "; files are not filtered by build targets"
	if o.Note != "" {
		s += "; " + o.Note
	}
	return s
}
