package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"

	"github.com/tfscan/tfscan/coverage"
)

const registryUsage = `Usage:
  tfscan registry list [--format table|json]
  tfscan registry show NAME|FILE [--op OP] [--format table|json|kernellist|kernellist-pb]
  tfscan registry diff A B [--format table|json]
  tfscan registry import DUMP --name NAME --vendor V [--device-type T] -o PACK
  tfscan registry check DUMP [--format table|json]
  tfscan registry derive --base PACK --name NAME --vendor V --device-type T
        --tf-version X --rule TEXT --evidence TEXT... --confidence-level low|medium
        --version-check TEXT [--known-ops PATH... --recorded-ops PATH...] -o PACK
  tfscan registry audit --source DIR [--dir D]... --pack DEVICE=PACK...
        --exclusions FILE
`

func runRegistry(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(e.stderr, registryUsage)
		return usageErrorf("registry: no subcommand (list, show, diff, import, check, derive, audit)")
	}
	switch args[0] {
	case "list":
		return registryList(e, args[1:])
	case "show":
		return registryShow(e, args[1:])
	case "diff":
		return registryDiff(e, args[1:])
	case "import":
		return registryImport(e, args[1:])
	case "check":
		return registryCheck(e, args[1:])
	case "audit":
		return registryAudit(e, args[1:])
	case "derive":
		return registryDerive(e, args[1:])
	case "help", "-h", "--help":
		fmt.Fprint(e.stdout, registryUsage)
		return nil
	}
	return usageErrorf("registry: unknown subcommand %q (list, show, diff, import, check, derive, audit)", args[0])
}

func checkFormat(f string) error {
	if f != "table" && f != "json" {
		return usageErrorf("--format must be table or json, not %q", f)
	}
	return nil
}

func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// packSummary is one row of `registry list`.
type packSummary struct {
	Name            string   `json:"name"`
	Vendor          string   `json:"vendor"`
	DeviceType      string   `json:"device_type"`
	Mechanism       string   `json:"mechanism"`
	Kernels         int      `json:"kernels"`
	Ops             int      `json:"ops"`
	UnresolvedOps   int      `json:"unresolved_ops"`
	TFVersion       string   `json:"tf_version"`
	Source          string   `json:"source"`
	Method          string   `json:"method"`
	Date            string   `json:"date"`
	ConfidenceLevel string   `json:"confidence_level"`
	Confidence      string   `json:"confidence"`
	BuildFlags      []string `json:"build_flags,omitempty"`
	Base            string   `json:"base,omitempty"`
	NextStep        string   `json:"next_step"`
}

func summarize(p *coverage.Pack) packSummary {
	s := packSummary{
		Name: p.Name, Vendor: p.Vendor, DeviceType: p.DeviceType, Mechanism: string(p.Mechanism),
		Kernels: len(p.OwnKernels()), Ops: len(p.Ops()), UnresolvedOps: len(p.UnresolvedOps),
		TFVersion: p.TFVersion, Source: p.Source, Method: string(p.Method), Date: p.Date,
		ConfidenceLevel: string(p.ConfidenceLevel), Confidence: p.Confidence, BuildFlags: p.BuildFlags,
		NextStep: packNextStep(p),
	}
	if p.Derived != nil {
		s.Base = p.Derived.Base
	}
	return s
}

// packNextStep is what a user does with a pack: use it, or replace an
// estimate with a live dump.
func packNextStep(p *coverage.Pack) string {
	switch {
	case p.Name == coverage.DefaultPackName && p.DeviceType == coverage.DeviceDefault:
		return "none: the DEFAULT kernels every non-XLA target falls back to"
	case p.ConfidenceLevel == coverage.LevelHigh:
		return "--target " + p.Name
	case p.Mechanism == coverage.MechanismDerived:
		return "--target " + p.Name + " as an estimate; for exact results dump the stack (docs/registries.md#derived-packs)"
	}
	return "--target " + p.Name + " as an estimate (read its confidence note); a live dump of the stack gives exact results (docs/registries.md)"
}

// sortByConfidence orders packs high, medium, low (then unrated), by name
// within a level.
func sortByConfidence(rows []packSummary) {
	slices.SortStableFunc(rows, func(a, b packSummary) int {
		if d := coverage.Level(b.ConfidenceLevel).Rank() - coverage.Level(a.ConfidenceLevel).Rank(); d != 0 {
			return d
		}
		return strings.Compare(a.Name, b.Name)
	})
}

// dumpRequired is a stack without a pack, as `registry list` shows it.
type dumpRequired struct {
	coverage.DumpOnlyStack
	Mechanism string `json:"mechanism"`
	NextStep  string `json:"next_step"`
}

func registryList(e *env, args []string) error {
	fs := newFlagSet("registry list", e.stderr)
	format := fs.String("format", "table", "table or json")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("registry list takes no arguments")
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	packs, err := coverage.BuiltinPacks()
	if err != nil {
		return err
	}
	var rows []packSummary
	for _, p := range packs {
		rows = append(rows, summarize(p))
	}
	sortByConfidence(rows)
	var dumps []dumpRequired
	for _, d := range coverage.DumpOnlyStacks() {
		dumps = append(dumps, dumpRequired{DumpOnlyStack: d, Mechanism: string(coverage.MechanismDumpRequired), NextStep: d.NextStep()})
	}
	if *format == "json" {
		return writeJSON(e.stdout, struct {
			Packs        []packSummary  `json:"packs"`
			DumpRequired []dumpRequired `json:"dump_required"`
		}{rows, dumps})
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tVENDOR\tDEVICE\tMECHANISM\tCONFIDENCE\tOPS\tTF\tNEXT STEP")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", r.Name, r.Vendor, r.DeviceType, r.Mechanism, dash(r.ConfidenceLevel), r.Ops, dash(r.TFVersion), r.NextStep)
	}
	for _, d := range dumps {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t-\t-\t-\t%s\n", d.Name, d.Vendor, dash(d.DeviceType), d.Mechanism, "make a live dump ("+d.Steps+")")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, "\nConfidence:")
	for _, r := range rows {
		fmt.Fprintf(e.stdout, "  %s: %s\n", r.Name, r.Confidence)
	}
	fmt.Fprintln(e.stdout, "\nDump required (no public kernel source and no evidence to derive one from):")
	for _, d := range dumps {
		fmt.Fprintf(e.stdout, "  %s: %s. Next: %s\n", d.Name, d.Note, d.NextStep)
	}
	return nil
}

// resolvePacks reads arg as a registry file when one exists at that path,
// otherwise as the name of a built-in pack.
func resolvePacks(e *env, arg string) ([]*coverage.Pack, error) {
	path := arg
	if !filepath.IsAbs(path) {
		path = filepath.Join(e.wd, path)
	}
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		packs, err := coverage.LoadRegistryFile(path)
		if err != nil {
			return nil, inputError(err)
		}
		return packs, nil
	}
	if strings.ContainsAny(arg, `/\`) || strings.HasSuffix(arg, ".json") || strings.HasSuffix(arg, ".gz") || strings.HasSuffix(arg, ".pbtxt") || strings.HasSuffix(arg, ".pb") {
		return nil, inputError(fmt.Errorf("%s: no such file", arg))
	}
	p, err := coverage.BuiltinPack(arg)
	if err != nil {
		return nil, usageError(err)
	}
	return []*coverage.Pack{p}, nil
}

// builtinArg reports whether resolvePacks reads arg as a built-in pack's
// name rather than a file.
func builtinArg(e *env, arg string) bool {
	st, err := os.Stat(abs(e, arg))
	return (err != nil || st.IsDir()) && !strings.ContainsAny(arg, `/\`)
}

func resolveOnePack(e *env, arg string) (*coverage.Pack, error) {
	packs, err := resolvePacks(e, arg)
	if err != nil {
		return nil, err
	}
	if len(packs) == 1 {
		return packs[0], nil
	}
	var names []string
	for _, p := range packs {
		names = append(names, p.Name)
	}
	return nil, usageErrorf("%s holds %d device types (%s); import one with `tfscan registry import --device-type`", arg, len(packs), strings.Join(names, ", "))
}

// kernelRow is one kernel in `registry show`.
type kernelRow struct {
	Op          string   `json:"op"`
	DeviceType  string   `json:"device_type"`
	Constraints string   `json:"constraints,omitempty"`
	HostMemory  []string `json:"host_memory,omitempty"`
	Label       string   `json:"label,omitempty"`
	Priority    int32    `json:"priority,omitempty"`
}

func registryShow(e *env, args []string) error {
	fs := newFlagSet("registry show", e.stderr)
	op := fs.String("op", "", "show only this op's kernels")
	format := fs.String("format", "table", "table, json, kernellist (TensorFlow's KernelList as text) or kernellist-pb (binary)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf("registry show takes one pack name or file")
	}
	if *format == "kernellist" || *format == "kernellist-pb" {
		return registryShowKernelList(e, pos[0], *op, *format == "kernellist")
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	packs, err := resolvePacks(e, pos[0])
	if err != nil {
		return err
	}
	type shown struct {
		packSummary
		UnresolvedOpsList []string              `json:"unresolved_ops_list,omitempty"`
		Stack             *coverage.Stack       `json:"stack,omitempty"`
		Derived           *coverage.Derivation  `json:"derived,omitempty"`
		NewerThanStack    []string              `json:"ops_newer_than_stack,omitempty"`
		HostKernels       int                   `json:"host_kernels,omitempty"`
		CheckedAgainst    *coverage.BinaryCheck `json:"checked_against,omitempty"`
		OpDefs            int                   `json:"op_defs,omitempty"`
		KernelList        []kernelRow           `json:"kernel_list"`
	}
	var out []shown
	found := false
	for _, p := range packs {
		s := shown{packSummary: summarize(p), UnresolvedOpsList: p.UnresolvedOps, Stack: p.Stack, Derived: p.Derived,
			NewerThanStack: p.NewerThanStack, HostKernels: len(p.HostKernels()), OpDefs: len(p.OpDefs)}
		if builtinArg(e, pos[0]) {
			s.CheckedAgainst = coverage.CheckedAgainst(p.Name)
		}
		for _, k := range p.Kernels {
			if *op != "" && k.GetOp() != *op {
				continue
			}
			s.KernelList = append(s.KernelList, toRow(k))
		}
		found = found || len(s.KernelList) > 0
		out = append(out, s)
	}
	if *op != "" && !found {
		return usageErrorf("%s has no kernel for op %q", pos[0], *op)
	}
	if *format == "json" {
		if len(out) == 1 {
			return writeJSON(e.stdout, out[0])
		}
		return writeJSON(e.stdout, out)
	}
	for i, s := range out {
		if i > 0 {
			fmt.Fprintln(e.stdout)
		}
		fmt.Fprintf(e.stdout, "pack:       %s\nvendor:     %s\ndevice:     %s\nmechanism:  %s\ntf_version: %s\nsource:     %s\nmethod:     %s\ndate:       %s\nconfidence: %s (%s)\nkernels:    %d for %d ops\n",
			s.Name, s.Vendor, s.DeviceType, s.Mechanism, s.TFVersion, s.Source, s.Method, s.Date, dash(s.ConfidenceLevel), s.Confidence, s.Kernels, s.Ops)
		if len(s.BuildFlags) > 0 {
			fmt.Fprintf(e.stdout, "build:      %s\n", strings.Join(s.BuildFlags, " "))
		} else {
			fmt.Fprintf(e.stdout, "build:      %s\n", buildNote(packs[i]))
		}
		switch c := s.CheckedAgainst; {
		case c != nil && c.Conformance:
			fmt.Fprintf(e.stdout, "checked:    kernel by kernel against the %s registry of TensorFlow %s (%s, sha256 %s) on every run of conformance/registries_test.go; the differences and their reasons are in docs/conformance.md\n",
				c.DeviceType, c.TFVersion, c.Wheel, c.SHA256)
		case c != nil:
			fmt.Fprintf(e.stdout, "checked:    kernel by kernel, once (%s), against the %s registry of %s (sha256 %s) on TensorFlow %s: %s; the result is in docs/registries.md\n",
				c.Date, c.DeviceType, c.Wheel, c.SHA256, c.TFVersion, c.Setting)
		}
		writeDerivation(e.stdout, packs[i])
		if len(s.UnresolvedOpsList) > 0 {
			fmt.Fprintf(e.stdout, "dtype unverified for %d ops: %s\n", len(s.UnresolvedOpsList), strings.Join(s.UnresolvedOpsList, ", "))
		}
		writeStackDecl(e.stdout, s.Stack)
		fmt.Fprintln(e.stdout)
		tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
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

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func toRow(k *kdpb.KernelDef) kernelRow {
	return kernelRow{
		Op: k.GetOp(), DeviceType: k.GetDeviceType(), Constraints: coverage.ConstraintString(k.GetConstraint()),
		HostMemory: k.GetHostMemoryArg(), Label: k.GetLabel(), Priority: k.GetPriority(),
	}
}

// formatArgs parses a registry subcommand that takes only --format and n
// positional arguments (what says which, for the usage error).
func formatArgs(e *env, cmd string, args []string, n int, what string) (string, []string, error) {
	fs := newFlagSet(cmd, e.stderr)
	format := fs.String("format", "table", "table or json")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return "", nil, err
	}
	if len(pos) != n {
		return "", nil, usageErrorf("%s takes %s", cmd, what)
	}
	return *format, pos, checkFormat(*format)
}

func registryDiff(e *env, args []string) error {
	format, pos, err := formatArgs(e, "registry diff", args, 2, "two packs (names or files)")
	if err != nil {
		return err
	}
	a, err := resolveOnePack(e, pos[0])
	if err != nil {
		return err
	}
	b, err := resolveOnePack(e, pos[1])
	if err != nil {
		return err
	}
	d := coverage.DiffPacks(a, b)
	if format == "json" {
		return writeJSON(e.stdout, d)
	}
	w := e.stdout
	fmt.Fprintf(w, "%s -> %s: %d ops gained, %d lost, %d with dtype changes, %d unchanged\n", d.A, d.B, len(d.Added), len(d.Removed), len(d.Changed), d.Same)
	for _, op := range d.Added {
		fmt.Fprintf(w, "+ %s\n", op)
	}
	for _, op := range d.Removed {
		fmt.Fprintf(w, "- %s\n", op)
	}
	for _, c := range d.Changed {
		var parts []string
		for _, x := range c.Added {
			parts = append(parts, "+"+x)
		}
		for _, x := range c.Removed {
			parts = append(parts, "-"+x)
		}
		fmt.Fprintf(w, "~ %s: %s\n", c.Op, strings.Join(parts, " "))
	}
	return nil
}

// writePackFile writes p to path (relative to the working directory),
// gzip-compressed when the name ends in .gz.
func writePackFile(e *env, path string, p *coverage.Pack) error {
	if !filepath.IsAbs(path) {
		path = filepath.Join(e.wd, path)
	}
	err := coverage.WritePackFile(path, p)
	var pe *coverage.PackPathError
	if errors.As(err, &pe) {
		return usageError(pe.Err)
	}
	return err
}

func registryImport(e *env, args []string) error {
	fs := newFlagSet("registry import", e.stderr)
	var o coverage.ImportOptions
	fs.StringVar(&o.Name, "name", "", "pack name (required)")
	fs.StringVar(&o.Vendor, "vendor", "", "vendor (required)")
	fs.StringVar(&o.DeviceType, "device-type", "", "device type to keep (default: the dump's only accelerator type)")
	fs.StringVar(&o.Source, "source", "", `override "live dump from <host/stack>"`)
	fs.StringVar(&o.Date, "date", "", "override the dump date")
	fs.StringVar(&o.TFVersion, "tf-version", "", "override the TensorFlow version")
	out := fs.String("o", "", "output pack file (.json or .json.gz)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf("registry import takes one dump file")
	}
	if o.Name == "" || o.Vendor == "" || *out == "" {
		return usageErrorf("registry import needs --name, --vendor and -o")
	}
	if err := coverage.CheckPackName(o.Name); err != nil {
		return usageError(err)
	}
	path := pos[0]
	if !filepath.IsAbs(path) {
		path = filepath.Join(e.wd, path)
	}
	d, err := coverage.ReadDumpFile(path)
	if err != nil {
		return inputError(err)
	}
	p, err := d.Pack(o)
	if err != nil {
		return inputError(fmt.Errorf("%s: %w", pos[0], err))
	}
	if err := writePackFile(e, *out, p); err != nil {
		return err
	}
	host := len(p.HostKernels())
	fmt.Fprintf(e.stderr, "wrote %s: %s, %d kernels for %d ops on %s (+%d DEFAULT kernels, %d CPU kernels of this build, %d vendor OpDefs)\n",
		*out, p.Name, len(p.OwnKernels()), len(p.Ops()), p.DeviceType, len(p.Kernels)-len(p.OwnKernels())-host, host, len(p.OpDefs))
	return nil
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
