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
	opdefpb "github.com/wamuir/graft/tensorflow/core/framework/op_def_go_proto"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/coverage/extract"
	"github.com/tfscan/tfscan/graph/opdefs"
)

const registryUsage = `Usage:
  tfscan registry list [--format table|json]
  tfscan registry show NAME|FILE [--op OP] [--format table|json|kernellist|kernellist-pb]
  tfscan registry diff A B [--format table|json]
  tfscan registry import DUMP --name NAME --vendor V [--device-type T] -o PACK
  tfscan registry extract --source DIR --name NAME --vendor V --device-type T
        [--device-tag TAG]... [--define NAME[=V]]... --source-ref REPO@COMMIT
        [--date D] [--style tf|xla|dml|ascend] [--confidence-level L] -o PACK
  tfscan registry derive --base PACK --name NAME --vendor V --device-type T
        --tf-version X --rule TEXT --evidence TEXT... --confidence-level low|medium
        --version-check TEXT [--known-ops PATH... --recorded-ops PATH...] -o PACK
  tfscan registry audit --source DIR [--dir D]... --pack DEVICE=PACK...
        --exclusions FILE
`

func runRegistry(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(e.stderr, registryUsage)
		return usageErrorf("registry: no subcommand (list, show, diff, import, extract, derive, audit)")
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
	case "extract":
		return registryExtract(ctx, e, args[1:])
	case "audit":
		return registryAudit(e, args[1:])
	case "derive":
		return registryDerive(e, args[1:])
	case "help", "-h", "--help":
		fmt.Fprint(e.stdout, registryUsage)
		return nil
	}
	return usageErrorf("registry: unknown subcommand %q (list, show, diff, import, extract, derive, audit)", args[0])
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
		UnresolvedOpsList []string             `json:"unresolved_ops_list,omitempty"`
		Stack             *coverage.Stack      `json:"stack,omitempty"`
		Derived           *coverage.Derivation `json:"derived,omitempty"`
		NewerThanStack    []string             `json:"ops_newer_than_stack,omitempty"`
		HostKernels       int                  `json:"host_kernels,omitempty"`
		OpDefs            int                  `json:"op_defs,omitempty"`
		KernelList        []kernelRow          `json:"kernel_list"`
	}
	var out []shown
	found := false
	for _, p := range packs {
		s := shown{packSummary: summarize(p), UnresolvedOpsList: p.UnresolvedOps, Stack: p.Stack, Derived: p.Derived,
			NewerThanStack: p.NewerThanStack, HostKernels: len(p.HostKernels()), OpDefs: len(p.OpDefs)}
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

func registryDiff(e *env, args []string) error {
	fs := newFlagSet("registry diff", e.stderr)
	format := fs.String("format", "table", "table or json")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usageErrorf("registry diff takes two packs (names or files)")
	}
	if err := checkFormat(*format); err != nil {
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
	if *format == "json" {
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
	if err := p.Validate(); err != nil {
		return usageError(err)
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(e.wd, path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return usageError(err)
	}
	f, err := os.Create(path)
	if err != nil {
		return usageError(err)
	}
	if strings.HasSuffix(path, ".gz") {
		err = coverage.WritePackGzip(f, p)
	} else {
		err = coverage.WritePack(f, p)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
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

func registryExtract(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("registry extract", e.stderr)
	var (
		o                             extract.Options
		po                            extract.PackOptions
		dirs, excludes, includes      repeatFlag
		defines, tags, typeLists      repeatFlag
		style, out, mech, opsFile     string
		stackKind                     string
		stackInputs                   repeatFlag
		xlaDevice, xlaTypes, opDefDir string
	)
	fs.StringVar(&o.Source, "source", "", "root of the source tree (required)")
	fs.Var(&dirs, "dir", "file or directory under --source to scan (repeatable; default all)")
	fs.Var(&excludes, "exclude", "regexp of paths to skip (repeatable)")
	fs.Var(&includes, "include", "extra include root under --source (repeatable)")
	fs.Var(&defines, "define", "preprocessor define NAME or NAME=VALUE (repeatable)")
	fs.Var(&typeLists, "type-lists", "header defining named dtype lists, e.g. kFloatTypes; ascend style: op info INI files (repeatable)")
	fs.StringVar(&po.Name, "name", "", "pack name (required)")
	fs.StringVar(&po.Vendor, "vendor", "", "vendor (required)")
	fs.StringVar(&po.DeviceType, "device-type", "", "device type of the pack (required)")
	fs.Var(&tags, "device-tag", "source .Device() tag registering on --device-type (repeatable; default the device type)")
	fs.StringVar(&po.SourceRef, "source-ref", "", "repository@commit the source came from (required)")
	fs.StringVar(&po.Date, "date", "", "source commit date")
	fs.StringVar(&po.TFVersion, "tf-version", "", "TensorFlow version the source builds against")
	fs.StringVar(&po.Note, "note", "", "extra limits for the confidence note")
	fs.StringVar(&mech, "mechanism", "kernel", "kernel, xla_cluster or graph_offload")
	var level string
	fs.StringVar(&level, "confidence-level", "medium", "high, medium or low: how far the pack can be trusted")
	fs.StringVar(&style, "style", "tf", "tf (REGISTER_KERNEL_BUILDER), xla (REGISTER_XLA_OP), dml (DirectML templates), ascend (CANN parser plugins)")
	fs.StringVar(&opsFile, "ops", "", "xla and ascend styles: TensorFlow OpList text file (default: tfscan's embedded TF 2.15 OpDefs)")
	fs.StringVar(&xlaDevice, "xla-device", "XLA_GPU_JIT", "xla style: JIT device")
	fs.StringVar(&xlaTypes, "xla-types", "kGpuAllTypes", "xla style: the backend's dtype list name")
	fs.StringVar(&opDefDir, "op-defs", "", "dml style: header with the generated op structs (relative to --source)")
	fs.StringVar(&stackKind, "stack", "", "also read what the stack does around its kernels: "+extract.StackAscend+" (precision modes, partitioning), "+extract.StackITEX+" or "+extract.StackMUSA+" (graph optimizer)")
	fs.Var(&stackInputs, "stack-input", "`KEY=PATH` (under --source) of a file the --stack reader needs (repeatable)")
	fs.StringVar(&out, "o", "", "output pack file (.json or .json.gz)")
	verbose := fs.Bool("v", false, "list every skipped registration and preprocessor error")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("registry extract takes no positional arguments")
	}
	if o.Source == "" || po.Name == "" || po.Vendor == "" || po.DeviceType == "" || po.SourceRef == "" || out == "" {
		return usageErrorf("registry extract needs --source, --name, --vendor, --device-type, --source-ref and -o")
	}
	if err := coverage.CheckPackName(po.Name); err != nil {
		return usageError(err)
	}
	if !filepath.IsAbs(o.Source) {
		o.Source = filepath.Join(e.wd, o.Source)
	}
	o.Dirs, o.Exclude, o.Includes, o.Defines, o.TypeListFiles = dirs, excludes, includes, defines, typeLists
	stackIn := extract.StackInputs{}
	for _, kv := range stackInputs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || v == "" {
			return usageErrorf("--stack-input %q: want KEY=PATH", kv)
		}
		stackIn[k] = v
	}
	switch stackKind {
	case "", extract.StackITEX, extract.StackMUSA:
	case extract.StackAscend:
		if style != "ascend" {
			return usageErrorf("--stack %s needs --style ascend", stackKind)
		}
	default:
		return usageErrorf("unknown --stack %q (%s, %s, %s)", stackKind, extract.StackAscend, extract.StackITEX, extract.StackMUSA)
	}
	po.DeviceTags = tags
	po.Mechanism = coverage.Mechanism(mech)
	po.Level = coverage.Level(level)
	if po.Level.Rank() == 0 {
		return usageErrorf("--confidence-level must be high, medium or low, not %q", level)
	}
	po.BuildFlags = defines

	var res *extract.Result
	switch style {
	case "tf":
		res, err = extract.Extract(ctx, o)
	case "xla":
		ops, oerr := loadOpDefs(e, opsFile)
		if oerr != nil {
			return oerr
		}
		o.Marker = "REGISTER_XLA_OP"
		res, err = extract.Extract(ctx, o)
		if err == nil {
			res, err = extract.ToXLA(res, ops, xlaDevice, xlaTypes)
		}
		po.DeviceTags = []string{xlaDevice}
		po.Style = "C preprocessor expansion of REGISTER_XLA_OP, kernels built as XlaOpRegistry::RegisterCompilationKernels does with TF 2.15 OpDefs"
	case "dml":
		if opDefDir == "" {
			return usageErrorf("--style dml needs --op-defs")
		}
		res, err = extract.ExtractDML(ctx, o, opDefDir)
		po.Style = "C preprocessor expansion, then DirectML KernelDefinition<...> template patterns"
	case "ascend":
		ops, oerr := loadOpDefs(e, opsFile)
		if oerr != nil {
			return oerr
		}
		ao := extract.AscendOptions{INIFiles: typeLists, Ops: ops}
		if stackKind == extract.StackAscend {
			ao.Stack = stackIn
		}
		res, err = extract.ExtractAscend(o, ao)
		po.Style = "CANN TensorFlow parser plugins (REGISTER_CUSTOM_OP ... OriginOpType); dtypes from the AI Core / AI CPU op info INI files"
	default:
		return usageErrorf("unknown --style %q (tf, xla, dml, ascend)", style)
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return err
		}
		return inputError(err)
	}
	p, st, err := extract.ToPack(res, po)
	if err != nil {
		return inputError(err)
	}
	if p.Stack, err = readOptimizer(o.Source, stackKind, stackIn, res.Stack); err != nil {
		return inputError(err)
	}
	if err := writePackFile(e, out, p); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "wrote %s: %d kernels for %d ops on %s (dtypes known for %d/%d; %d skipped; %d preprocessor errors)\n",
		out, st.Registrations, st.Ops, p.DeviceType, st.Resolved, st.Registrations, st.Skipped, len(res.CPPErrors))
	shown := 5
	if *verbose {
		shown = len(res.CPPErrors)
		for _, s := range res.Skips {
			fmt.Fprintf(e.stderr, "  skipped: %s: %s: %s\n", s.File, s.Reason, s.Text)
		}
	}
	for _, s := range res.CPPErrors[:min(len(res.CPPErrors), shown)] {
		fmt.Fprintf(e.stderr, "  preprocessor: %s: %s\n", s.File, s.Reason)
	}
	return nil
}

// readOptimizer adds the --stack graph optimizer, if any, to what the
// style's own reader found.
func readOptimizer(root, kind string, in extract.StackInputs, st *coverage.Stack) (*coverage.Stack, error) {
	var read func(string, extract.StackInputs) (*coverage.Optimizer, error)
	switch kind {
	case extract.StackITEX:
		read = extract.ReadITEXOptimizer
	case extract.StackMUSA:
		read = extract.ReadMUSAOptimizer
	default:
		return st, nil
	}
	opt, err := read(root, in)
	if err != nil {
		return nil, err
	}
	if st == nil {
		st = &coverage.Stack{}
	}
	st.Optimizer = opt
	return st, nil
}

// loadOpDefs reads an OpList text file, or tfscan's embedded OpDefs
// (graph/opdefs: ops.pbtxt plus TensorFlow's internal _* ops) when path is "".
func loadOpDefs(e *env, path string) (map[string]*opdefpb.OpDef, error) {
	if path == "" {
		l, err := opdefs.Load()
		if err != nil {
			return nil, err
		}
		return extract.OpDefMap(l), nil
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(e.wd, path)
	}
	m, err := extract.LoadOpList(path)
	if err != nil {
		return nil, inputError(err)
	}
	return m, nil
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
