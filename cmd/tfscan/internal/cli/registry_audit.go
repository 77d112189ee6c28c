package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tfscan/tfscan/coverage/extract"
)

// registryAudit is the completeness check of `make registries-check`:
// every literal kernel registration in the non-test sources of a tree is
// in a pack for its device type, or on the exclusions list with a reason.
func registryAudit(e *env, args []string) error {
	fs := newFlagSet("registry audit", e.stderr)
	var (
		source, exclFile string
		dirs, packs      repeatFlag
	)
	fs.StringVar(&source, "source", "", "root of the source tree (required)")
	fs.Var(&dirs, "dir", "directory under --source to audit (repeatable; default tensorflow)")
	fs.Var(&packs, "pack", "DEVICE=PACKFILE: a pack holding DEVICE's kernels (repeatable; DEVICE may repeat)")
	fs.StringVar(&exclFile, "exclusions", "", "file of PATH-REGEXP OP REASON lines (required)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 || source == "" || exclFile == "" || len(packs) == 0 {
		return usageErrorf("registry audit needs --source, --exclusions and at least one --pack DEVICE=FILE")
	}
	if len(dirs) == 0 {
		dirs = repeatFlag{"tensorflow"}
	}
	byDevice := map[string][]map[string]bool{}
	for _, spec := range packs {
		dev, file, ok := strings.Cut(spec, "=")
		if !ok || dev == "" || file == "" {
			return usageErrorf("--pack %q: want DEVICE=PACKFILE", spec)
		}
		p, err := resolveOnePack(e, file)
		if err != nil {
			return err
		}
		ops := map[string]bool{}
		for _, k := range p.Kernels {
			ops[k.GetOp()] = true
		}
		byDevice[dev] = append(byDevice[dev], ops)
	}
	has := func(op, dev string) bool {
		for d, sets := range byDevice {
			if dev != "*" && d != dev {
				continue
			}
			for _, s := range sets {
				if s[op] {
					return true
				}
			}
		}
		return false
	}
	f, err := os.Open(abs(e, exclFile))
	if err != nil {
		return inputError(err)
	}
	excl, err := extract.ReadExclusions(f, exclFile)
	f.Close()
	if err != nil {
		return inputError(err)
	}
	res, err := extract.Audit(abs(e, source), dirs, has, excl)
	if err != nil {
		return inputError(err)
	}
	excluded := 0
	for _, n := range res.Excluded {
		excluded += n
	}
	fmt.Fprintf(e.stdout, "audit: %d literal registrations in %d files: %d in a pack, %d excluded, %d missing\n",
		res.Found, res.Files, res.Found-excluded-len(res.Missing), excluded, len(res.Missing))
	for _, m := range res.Missing {
		fmt.Fprintf(e.stdout, "missing: %s:%d: %s on %s\n", m.File, m.Line, m.Op, m.Device)
	}
	for _, x := range res.Unused {
		fmt.Fprintf(e.stdout, "unused exclusion: %s:%d: %s %s\n", exclFile, x.Line, x.Path, x.Op)
	}
	if len(res.Missing) > 0 || len(res.Unused) > 0 {
		return &exitError{code: ExitGate, err: fmt.Errorf("registry audit: %d registrations in no pack and not excluded, %d unused exclusions", len(res.Missing), len(res.Unused))}
	}
	return nil
}

func abs(e *env, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(e.wd, p)
}
