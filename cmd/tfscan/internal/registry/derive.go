package registry

import (
	"fmt"
	"io"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/coverage/extract"
)

// DeriveOptions is what `registry derive` builds a derived pack (mechanism
// "derived") from: a base pack, a rule and public evidence.
type DeriveOptions struct {
	Dir             string // working directory the paths are relative to
	Base            string // a built-in pack's name or a pack file
	Out             string // the pack file to write (.json or .json.gz)
	Name            string
	Vendor          string
	DeviceType      string
	TFVersion       string // the TensorFlow version the vendor ships
	Rule            string
	Evidence        []string
	ConfidenceLevel string // low or medium
	VersionCheck    string
	// KnownOps and RecordedOps are op histories (ops_history_vN directories
	// or OpList files): an op of the base recorded in RecordedOps but absent
	// from KnownOps is newer than the vendor's TensorFlow.
	KnownOps, RecordedOps []string
}

// Derive writes the derived pack to Out and says what it wrote on log;
// tools/registries.sh runs it for iluvatar-corex, hygon-dcu and
// enflame-gcu.
func Derive(log io.Writer, o DeriveOptions) error {
	if err := checkPackName(o.Name); err != nil {
		return err
	}
	do := coverage.DeriveOptions{Name: o.Name, Vendor: o.Vendor, DeviceType: o.DeviceType, TFVersion: o.TFVersion,
		Rule: o.Rule, Evidence: o.Evidence, Level: coverage.Level(o.ConfidenceLevel), VersionCheck: o.VersionCheck}
	b, err := resolveOnePack(o.Dir, o.Base)
	if err != nil {
		return err
	}
	if len(o.KnownOps) > 0 {
		known, err := unionOps(o.Dir, o.KnownOps)
		if err != nil {
			return err
		}
		rec, err := unionOps(o.Dir, o.RecordedOps)
		if err != nil {
			return err
		}
		for _, op := range b.Ops() {
			if rec[op] && !known[op] {
				do.NewerThanStack = append(do.NewerThanStack, op)
			}
		}
	}
	p, err := coverage.Derive(b, do)
	if err != nil {
		return &UsageError{Err: err}
	}
	if err := writePackFile(o.Dir, o.Out, p); err != nil {
		return err
	}
	fmt.Fprintf(log, "wrote %s: %s derived from %s, %d kernels for %d ops on %s; %d ops newer than TensorFlow %s\n",
		o.Out, p.Name, b.Name, len(p.OwnKernels()), len(p.Ops()), p.DeviceType, len(p.NewerThanStack), p.TFVersion)
	return nil
}

// unionOps is every op of the op histories at paths.
func unionOps(dir string, paths []string) (map[string]bool, error) {
	all := map[string]bool{}
	for _, p := range paths {
		ops, err := extract.HistoryOps(abs(dir, p))
		if err != nil {
			return nil, inputError(err)
		}
		for op := range ops {
			all[op] = true
		}
	}
	return all, nil
}
