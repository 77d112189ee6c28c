package cli

import (
	"context"
	"fmt"

	"github.com/tfscan/tfscan/cmd/tfscan/internal/registry"
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

// runRegistry parses a `tfscan registry` subcommand's flags and calls the
// application layer (cmd/tfscan/internal/registry) with them.
func runRegistry(_ context.Context, e *env, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(e.stderr, registryUsage)
		return usageErrorf("registry: no subcommand (list, show, diff, import, check, derive, audit)")
	}
	var err error
	switch args[0] {
	case "list":
		err = registryList(e, args[1:])
	case "show":
		err = registryShow(e, args[1:])
	case "diff":
		err = registryDiff(e, args[1:])
	case "import":
		err = registryImport(e, args[1:])
	case "check":
		err = registryCheck(e, args[1:])
	case "audit":
		err = registryAudit(e, args[1:])
	case "derive":
		err = registryDerive(e, args[1:])
	case "help", "-h", "--help":
		fmt.Fprint(e.stdout, registryUsage)
		return nil
	default:
		return usageErrorf("registry: unknown subcommand %q (list, show, diff, import, check, derive, audit)", args[0])
	}
	return appError(err)
}

func checkFormat(f string) error {
	if f != "table" && f != "json" {
		return usageErrorf("--format must be table or json, not %q", f)
	}
	return nil
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
	return registry.List(e.stdout, *format == "json")
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
		return registry.ShowKernelList(e.stdout, registry.KernelListOptions{Dir: e.wd, Pack: pos[0], Op: *op, Text: *format == "kernellist"})
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	return registry.Show(e.stdout, registry.ShowOptions{Dir: e.wd, Pack: pos[0], Op: *op, JSON: *format == "json"})
}

func registryDiff(e *env, args []string) error {
	format, pos, err := formatArgs(e, "registry diff", args, 2, "two packs (names or files)")
	if err != nil {
		return err
	}
	return registry.Diff(e.stdout, registry.DiffOptions{Dir: e.wd, A: pos[0], B: pos[1], JSON: format == "json"})
}

func registryImport(e *env, args []string) error {
	fs := newFlagSet("registry import", e.stderr)
	o := registry.ImportOptions{Dir: e.wd}
	fs.StringVar(&o.Name, "name", "", "pack name (required)")
	fs.StringVar(&o.Vendor, "vendor", "", "vendor (required)")
	fs.StringVar(&o.DeviceType, "device-type", "", "device type to keep (default: the dump's only accelerator type)")
	fs.StringVar(&o.Source, "source", "", `override "live dump from <host/stack>"`)
	fs.StringVar(&o.Date, "date", "", "override the dump date")
	fs.StringVar(&o.TFVersion, "tf-version", "", "override the TensorFlow version")
	fs.StringVar(&o.Out, "o", "", "output pack file (.json or .json.gz)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf("registry import takes one dump file")
	}
	if o.Name == "" || o.Vendor == "" || o.Out == "" {
		return usageErrorf("registry import needs --name, --vendor and -o")
	}
	o.Dump = pos[0]
	return registry.Import(e.stderr, o)
}

// registryCheck compares the built-in packs that are checked against a
// binary with a live dump of that binary's registry. Exit 1 when a pack
// disagrees, 3 when the dump cannot be read or is not of the binary's
// TensorFlow version.
func registryCheck(e *env, args []string) error {
	format, pos, err := formatArgs(e, "registry check", args, 1, "one dump file (tools/dump_registry.py)")
	if err != nil {
		return err
	}
	return registry.Check(e.stdout, registry.CheckOptions{Dir: e.wd, Dump: pos[0], JSON: format == "json"})
}

// registryDerive builds a derived pack (mechanism "derived") from a base
// pack, a rule and public evidence; tools/registries.sh runs it for
// iluvatar-corex, hygon-dcu and enflame-gcu.
func registryDerive(e *env, args []string) error {
	fs := newFlagSet("registry derive", e.stderr)
	var (
		o                  = registry.DeriveOptions{Dir: e.wd}
		evidence           repeatFlag
		knownOps, recorded repeatFlag
	)
	fs.StringVar(&o.Base, "base", "", "base pack: a built-in name or a pack file (required)")
	fs.StringVar(&o.Name, "name", "", "pack name (required)")
	fs.StringVar(&o.Vendor, "vendor", "", "vendor (required)")
	fs.StringVar(&o.DeviceType, "device-type", "", "the stack's device type (required)")
	fs.StringVar(&o.TFVersion, "tf-version", "", "TensorFlow version the vendor ships (required)")
	fs.StringVar(&o.Rule, "rule", "", "which of the base's kernels the stack runs, in words (required)")
	fs.Var(&evidence, "evidence", "public source, 'owner/repo path@commit: what it shows' (repeatable, required)")
	fs.StringVar(&o.ConfidenceLevel, "confidence-level", "", "low or medium (required)")
	fs.Var(&knownOps, "known-ops", "op history of the vendor's TensorFlow major versions: an ops_history_vN directory or OpList file (repeatable)")
	fs.Var(&recorded, "recorded-ops", "op history in which an op's absence from --known-ops is meaningful (repeatable)")
	fs.StringVar(&o.VersionCheck, "version-check", "", "how ops newer than the vendor's TensorFlow were found, and what cannot be known (required)")
	fs.StringVar(&o.Out, "o", "", "output pack file (.json or .json.gz)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("registry derive takes no positional arguments")
	}
	if o.Base == "" || o.Name == "" || o.Vendor == "" || o.DeviceType == "" || o.TFVersion == "" || o.Rule == "" ||
		len(evidence) == 0 || o.ConfidenceLevel == "" || o.VersionCheck == "" || o.Out == "" {
		return usageErrorf("registry derive needs --base, --name, --vendor, --device-type, --tf-version, --rule, --evidence, --confidence-level, --version-check and -o")
	}
	if (len(knownOps) == 0) != (len(recorded) == 0) {
		return usageErrorf("--known-ops and --recorded-ops go together")
	}
	o.Evidence, o.KnownOps, o.RecordedOps = evidence, knownOps, recorded
	return registry.Derive(e.stderr, o)
}

// registryAudit is the completeness check of `make registries-check`.
func registryAudit(e *env, args []string) error {
	fs := newFlagSet("registry audit", e.stderr)
	o := registry.AuditOptions{Dir: e.wd}
	var dirs, packs repeatFlag
	fs.StringVar(&o.Source, "source", "", "root of the source tree (required)")
	fs.Var(&dirs, "dir", "directory under --source to audit (repeatable; default tensorflow)")
	fs.Var(&packs, "pack", "DEVICE=PACKFILE: a pack holding DEVICE's kernels (repeatable; DEVICE may repeat)")
	fs.StringVar(&o.Exclusions, "exclusions", "", "file of PATH-REGEXP OP REASON lines (required)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 || o.Source == "" || o.Exclusions == "" || len(packs) == 0 {
		return usageErrorf("registry audit needs --source, --exclusions and at least one --pack DEVICE=FILE")
	}
	if len(dirs) == 0 {
		dirs = repeatFlag{"tensorflow"}
	}
	o.Dirs, o.Packs = dirs, packs
	return registry.Audit(e.stdout, o)
}
