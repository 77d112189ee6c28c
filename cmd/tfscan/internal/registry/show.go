package registry

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"

	"github.com/tfscan/tfscan/coverage"
)

// ShowOptions says which pack `registry show` shows.
type ShowOptions struct {
	Dir  string // working directory: Pack is a file relative to it, or a built-in pack's name
	Pack string
	Op   string // when set, only this op's kernels
	JSON bool
}

// KernelRow is one kernel in `registry show`.
type KernelRow struct {
	Op          string   `json:"op"`
	DeviceType  string   `json:"device_type"`
	Constraints string   `json:"constraints,omitempty"`
	HostMemory  []string `json:"host_memory,omitempty"`
	Label       string   `json:"label,omitempty"`
	Priority    int32    `json:"priority,omitempty"`
}

// Show writes a pack's provenance, declared stack and kernels (every pack
// of a registry file with several device types).
func Show(w io.Writer, o ShowOptions) error {
	packs, err := resolvePacks(o.Dir, o.Pack)
	if err != nil {
		return err
	}
	type shown struct {
		PackSummary
		UnresolvedOpsList []string              `json:"unresolved_ops_list,omitempty"`
		Stack             *coverage.Stack       `json:"stack,omitempty"`
		Derived           *coverage.Derivation  `json:"derived,omitempty"`
		NewerThanStack    []string              `json:"ops_newer_than_stack,omitempty"`
		HostKernels       int                   `json:"host_kernels,omitempty"`
		CheckedAgainst    *coverage.BinaryCheck `json:"checked_against,omitempty"`
		OpDefs            int                   `json:"op_defs,omitempty"`
		KernelList        []KernelRow           `json:"kernel_list"`
	}
	var out []shown
	found := false
	for _, p := range packs {
		s := shown{PackSummary: summarize(p), UnresolvedOpsList: p.UnresolvedOps, Stack: p.Stack, Derived: p.Derived,
			NewerThanStack: p.NewerThanStack, HostKernels: len(p.HostKernels()), OpDefs: len(p.OpDefs)}
		if builtinArg(o.Dir, o.Pack) {
			s.CheckedAgainst = coverage.CheckedAgainst(p.Name)
		}
		for _, k := range p.Kernels {
			if o.Op != "" && k.GetOp() != o.Op {
				continue
			}
			s.KernelList = append(s.KernelList, toRow(k))
		}
		found = found || len(s.KernelList) > 0
		out = append(out, s)
	}
	if o.Op != "" && !found {
		return usageErrorf("%s has no kernel for op %q", o.Pack, o.Op)
	}
	if o.JSON {
		if len(out) == 1 {
			return writeJSON(w, out[0])
		}
		return writeJSON(w, out)
	}
	for i, s := range out {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "pack:       %s\nvendor:     %s\ndevice:     %s\nmechanism:  %s\ntf_version: %s\nsource:     %s\nmethod:     %s\ndate:       %s\nconfidence: %s (%s)\nkernels:    %d for %d ops\n",
			s.Name, s.Vendor, s.DeviceType, s.Mechanism, s.TFVersion, s.Source, s.Method, s.Date, dash(s.ConfidenceLevel), s.Confidence, s.Kernels, s.Ops)
		if len(s.BuildFlags) > 0 {
			fmt.Fprintf(w, "build:      %s\n", strings.Join(s.BuildFlags, " "))
		} else {
			fmt.Fprintf(w, "build:      %s\n", buildNote(packs[i]))
		}
		switch c := s.CheckedAgainst; {
		case c != nil && c.Conformance:
			fmt.Fprintf(w, "checked:    kernel by kernel against the %s registry of TensorFlow %s (%s, sha256 %s) on every run of conformance/registries_test.go; the differences and their reasons are in docs/conformance.md\n",
				c.DeviceType, c.TFVersion, c.Wheel, c.SHA256)
		case c != nil:
			fmt.Fprintf(w, "checked:    kernel by kernel, once, against the %s registry of %s (sha256 %s) on TensorFlow %s: %s; the result is in docs/registries.md\n",
				c.DeviceType, c.Wheel, c.SHA256, c.TFVersion, c.Setting)
		}
		writeDerivation(w, packs[i])
		if len(s.UnresolvedOpsList) > 0 {
			fmt.Fprintf(w, "dtype unverified for %d ops: %s\n", len(s.UnresolvedOpsList), strings.Join(s.UnresolvedOpsList, ", "))
		}
		writeStackDecl(w, s.Stack)
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "OP\tDEVICE\tCONSTRAINTS\tHOST MEMORY\tLABEL\tPRIORITY")
		for _, r := range s.KernelList {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\n", r.Op, r.DeviceType, dash(r.Constraints), dash(strings.Join(r.HostMemory, ",")), dash(r.Label), r.Priority)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

func toRow(k *kdpb.KernelDef) KernelRow {
	return KernelRow{
		Op: k.GetOp(), DeviceType: k.GetDeviceType(), Constraints: coverage.ConstraintString(k.GetConstraint()),
		HostMemory: k.GetHostMemoryArg(), Label: k.GetLabel(), Priority: k.GetPriority(),
	}
}

// buildNote says what a pack without recorded build flags assumes.
func buildNote(p *coverage.Pack) string {
	switch p.Method {
	case coverage.MethodLiveDump:
		return "none assumed: the registry of the install that made the dump"
	case coverage.MethodDerived:
		return "those of the base pack"
	}
	return "no preprocessor defines recorded"
}

// writeDerivation prints a derived pack's base, rule, evidence and version
// check, and a dump's host CPU kernels and vendor OpDefs.
func writeDerivation(w io.Writer, p *coverage.Pack) {
	if d := p.Derived; d != nil {
		fmt.Fprintf(w, "base:       %s (%s, TensorFlow %s; the vendor ships %s)\nrule:       %s\n", d.Base, d.BaseMechanism, d.BaseTFVersion, p.TFVersion, d.Rule)
		for _, ev := range d.Evidence {
			fmt.Fprintf(w, "evidence:   %s\n", ev)
		}
		if d.VersionCheck != "" {
			fmt.Fprintf(w, "versions:   %s\n", d.VersionCheck)
		}
		if len(p.NewerThanStack) > 0 {
			fmt.Fprintf(w, "newer than TensorFlow %s (op_newer_than_stack): %d ops: %s\n", p.TFVersion, len(p.NewerThanStack), strings.Join(p.NewerThanStack, ", "))
		}
	}
	if n := len(p.HostKernels()); n > 0 {
		fmt.Fprintf(w, "host CPU:   %d CPU kernels of this build (placement's fallback device for this target)\n", n)
	}
	if n := len(p.OpDefs); n > 0 {
		fmt.Fprintf(w, "op defs:    %d OpDefs for ops tfscan's embedded TensorFlow 2.15 OpDefs lack\n", n)
	}
}
