package registry

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tfscan/tfscan/coverage/extract"
)

// AuditOptions is what `registry audit` checks: the source tree, the packs
// that hold each device's kernels and the exclusions file.
type AuditOptions struct {
	Dir        string   // working directory the paths are relative to
	Source     string   // root of the source tree
	Dirs       []string // directories under Source to audit
	Packs      []string // DEVICE=PACK: a pack holding DEVICE's kernels (DEVICE may repeat)
	Exclusions string   // file of PATH-REGEXP OP REASON lines
}

// Audit is the completeness check of `make registries-check`: every
// literal kernel registration in the non-test sources of a tree is in a
// pack for its device type, or on the exclusions list with a reason. A
// GateError when one is neither, or when an exclusion is unused.
func Audit(w io.Writer, o AuditOptions) error {
	byDevice := map[string][]map[string]bool{}
	for _, spec := range o.Packs {
		dev, file, ok := strings.Cut(spec, "=")
		if !ok || dev == "" || file == "" {
			return usageErrorf("--pack %q: want DEVICE=PACKFILE", spec)
		}
		p, err := resolveOnePack(o.Dir, file)
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
	f, err := os.Open(abs(o.Dir, o.Exclusions))
	if err != nil {
		return inputError(err)
	}
	excl, err := extract.ReadExclusions(f, o.Exclusions)
	f.Close()
	if err != nil {
		return inputError(err)
	}
	res, err := extract.Audit(abs(o.Dir, o.Source), o.Dirs, has, excl)
	if err != nil {
		return inputError(err)
	}
	excluded := 0
	for _, n := range res.Excluded {
		excluded += n
	}
	fmt.Fprintf(w, "audit: %d literal registrations in %d files: %d in a pack, %d excluded, %d missing\n",
		res.Found, res.Files, res.Found-excluded-len(res.Missing), excluded, len(res.Missing))
	for _, m := range res.Missing {
		fmt.Fprintf(w, "missing: %s:%d: %s on %s\n", m.File, m.Line, m.Op, m.Device)
	}
	for _, x := range res.Unused {
		fmt.Fprintf(w, "unused exclusion: %s:%d: %s %s\n", o.Exclusions, x.Line, x.Path, x.Op)
	}
	if len(res.Missing) > 0 || len(res.Unused) > 0 {
		return &GateError{Err: fmt.Errorf("registry audit: %d registrations in no pack and not excluded, %d unused exclusions", len(res.Missing), len(res.Unused))}
	}
	return nil
}
