package cli

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/tfscan/tfscan/cmd/tfscan/internal/scan"
	"github.com/tfscan/tfscan/reports"
)

// checkResultsUsage refuses what `check --results` cannot honour: model
// paths, and scan flags, since nothing is scanned (the report records how
// its results were scanned). --target is allowed and must name the report's
// targets; --format, -v and the gate's flags apply as usual.
func (s *checkSetup) checkResultsUsage() error {
	if len(s.opts.Paths) > 0 {
		return usageErrorf("check: --results gates a report's results without scanning; give no model path (got %s)", s.opts.Paths[0])
	}
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var sf scanFlags
	sf.register(fs)
	var refused []string
	fs.VisitAll(func(f *flag.Flag) {
		if s.set[f.Name] && f.Name != "format" && f.Name != "target" && f.Name != "v" {
			refused = append(refused, "--"+f.Name)
		}
	})
	if len(refused) > 0 {
		return usageErrorf("check: %s: no effect with --results, which gates results already scanned (the report records how)", strings.Join(refused, ", "))
	}
	return nil
}

// readResults reads the report `check --results` gates and checks that the
// targets and the scan settings of the configuration (or --target) are the
// ones it was scanned with: a gate configured for one scan must not pass
// another's results. A report that records no options (an older tfscan)
// is gated as it is, with a warning.
func (s *checkSetup) readResults(e *env, file string) (*reports.Report, error) {
	path := file
	if !isAbs(path) {
		path = joinWD(e, path)
	}
	rep, err := reports.ReadJSON(path)
	if err != nil {
		return nil, inputError(err)
	}
	o := rep.Options
	if o == nil {
		fmt.Fprintf(e.stderr, "tfscan: warning: %s records no scan options; its targets and scan settings were not checked against the configuration\n", file)
		return rep, nil
	}
	where := "--target"
	if !s.set["target"] {
		where = s.cfgPath
	}
	mismatch := func(what, got, want string) error {
		return usageErrorf("check: %s holds results scanned with %s %s, but %s asks for %s", file, what, got, where, want)
	}
	if want := dedup(s.opts.Targets); len(want) > 0 && !sameSet(want, o.Targets) {
		return nil, mismatch("targets", strings.Join(o.Targets, ","), strings.Join(want, ","))
	}
	if s.cfg == nil {
		return rep, nil
	}
	where = s.cfgPath
	if c := s.cfg.From; c != "" && c != o.From {
		return nil, mismatch("from", o.From, c)
	}
	if len(s.cfg.Phases) > 0 {
		counted, err := scan.ParsePhases(s.cfg.Phases)
		if err != nil {
			return nil, usageError(err)
		}
		if want := counted.Names(); !slices.Equal(want, o.Phases) {
			return nil, mismatch("phases", strings.Join(o.Phases, ","), strings.Join(want, ","))
		}
	}
	if c := s.cfg.Signature; c != "" && c != o.Signature {
		return nil, mismatch("signature", o.Signature, c)
	}
	if len(s.cfg.Registries) > 0 {
		var want []string
		for _, f := range s.cfg.Registries {
			h, err := scan.HashFile(f)
			if err != nil {
				return nil, usageErrorf("%s: registry %s: %v", s.cfgPath, f, unwrapPath(err))
			}
			want = append(want, h)
		}
		if !slices.Equal(want, o.Registries) {
			return nil, mismatch("registries", "of other content", strings.Join(s.cfg.Registries, ","))
		}
	}
	return rep, nil
}

func dedup(s []string) []string {
	var out []string
	for _, v := range s {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}
