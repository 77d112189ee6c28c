package cli

import (
	"fmt"
	"slices"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/coverage/extract"
)

// registryDerive builds a derived pack (mechanism "derived") from a base
// pack, a rule and public evidence; tools/registries.sh runs it for
// iluvatar-corex, hygon-dcu and enflame-gcu.
func registryDerive(e *env, args []string) error {
	fs := newFlagSet("registry derive", e.stderr)
	var (
		o                  coverage.DeriveOptions
		base, out, level   string
		evidence           repeatFlag
		knownOps, recorded repeatFlag
	)
	fs.StringVar(&base, "base", "", "base pack: a built-in name or a pack file (required)")
	fs.StringVar(&o.Name, "name", "", "pack name (required)")
	fs.StringVar(&o.Vendor, "vendor", "", "vendor (required)")
	fs.StringVar(&o.DeviceType, "device-type", "", "the stack's device type (required)")
	fs.StringVar(&o.TFVersion, "tf-version", "", "TensorFlow version the vendor ships (required)")
	fs.StringVar(&o.Rule, "rule", "", "which of the base's kernels the stack runs, in words (required)")
	fs.Var(&evidence, "evidence", "public source, 'owner/repo path@commit: what it shows' (repeatable, required)")
	fs.StringVar(&level, "confidence-level", "", "low or medium (required)")
	fs.Var(&knownOps, "known-ops", "op history of the vendor's TensorFlow major versions: an ops_history_vN directory or OpList file (repeatable)")
	fs.Var(&recorded, "recorded-ops", "op history in which an op's absence from --known-ops is meaningful (repeatable)")
	fs.StringVar(&o.VersionCheck, "version-check", "", "how ops newer than the vendor's TensorFlow were found, and what cannot be known (required)")
	fs.StringVar(&out, "o", "", "output pack file (.json or .json.gz)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("registry derive takes no positional arguments")
	}
	if base == "" || o.Name == "" || o.Vendor == "" || o.DeviceType == "" || o.TFVersion == "" || o.Rule == "" ||
		len(evidence) == 0 || level == "" || o.VersionCheck == "" || out == "" {
		return usageErrorf("registry derive needs --base, --name, --vendor, --device-type, --tf-version, --rule, --evidence, --confidence-level, --version-check and -o")
	}
	if (len(knownOps) == 0) != (len(recorded) == 0) {
		return usageErrorf("--known-ops and --recorded-ops go together")
	}
	if err := coverage.CheckPackName(o.Name); err != nil {
		return usageError(err)
	}
	o.Evidence, o.Level = evidence, coverage.Level(level)
	b, err := resolveOnePack(e, base)
	if err != nil {
		return err
	}
	if len(knownOps) > 0 {
		known, err := unionOps(e, knownOps)
		if err != nil {
			return err
		}
		rec, err := unionOps(e, recorded)
		if err != nil {
			return err
		}
		for _, op := range b.Ops() {
			if rec[op] && !known[op] {
				o.NewerThanStack = append(o.NewerThanStack, op)
			}
		}
	}
	p, err := coverage.Derive(b, o)
	if err != nil {
		return usageError(err)
	}
	if err := writePackFile(e, out, p); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "wrote %s: %s derived from %s, %d kernels for %d ops on %s; %d ops newer than TensorFlow %s\n",
		out, p.Name, b.Name, len(p.OwnKernels()), len(p.Ops()), p.DeviceType, len(p.NewerThanStack), p.TFVersion)
	return nil
}

func unionOps(e *env, paths []string) (map[string]bool, error) {
	all := map[string]bool{}
	for _, p := range slices.Clone(paths) {
		ops, err := extract.HistoryOps(abs(e, p))
		if err != nil {
			return nil, inputError(err)
		}
		for op := range ops {
			all[op] = true
		}
	}
	return all, nil
}
