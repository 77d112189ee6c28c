package cli

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tfscan/tfscan/cmd/tfscan/internal/config"
	"github.com/tfscan/tfscan/cmd/tfscan/internal/scan"
	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/reports/gate"
)

// gateFlags are the thresholds of `tfscan check`; a flag that is given
// overrides the same key of .tfscan.yaml.
type gateFlags struct {
	minCoverage      string
	maxFallbackNodes string
	maxPartitions    string
	maxTransferBytes string
	maxNewFallback   string
	failOn           listFlag
	baseline         string
	config           string
	minConfidence    string
}

func (g *gateFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&g.minCoverage, "min-coverage", "", "fail when fewer than `PERCENT` of the (reachable) nodes are covered on a target")
	fs.StringVar(&g.maxFallbackNodes, "max-fallback-nodes", "", "fail when more than `N` nodes fall back to CPU on a target")
	fs.StringVar(&g.maxPartitions, "max-partitions", "", "fail when the placement has more than `N` device partitions")
	fs.StringVar(&g.maxTransferBytes, "max-transfer-bytes", "", "fail when more than `N` bytes cross between devices")
	fs.StringVar(&g.maxNewFallback, "max-new-fallback-nodes", "", "fail when more than `N` nodes fall back to CPU on a target but not on the --from source")
	fs.Var(&g.failOn, "fail-on", "fail on any node with one of these reason `CODES` (e.g. no_kernel,unknown_op,unsafe_op,new_fallback)")
	fs.StringVar(&g.baseline, "baseline", "", "previous JSON report `FILE`: fail only on regressions against it")
	fs.StringVar(&g.minConfidence, "min-confidence", "", "refuse (exit 2) to gate on a target whose pack's confidence is below `LEVEL` (low, medium, high)")
	fs.StringVar(&g.config, "config", "", "configuration `FILE` (default: .tfscan.yaml found from the working directory up to the repository root)")
}

// checkSetup is what check and baseline share: the merged options.
type checkSetup struct {
	opts     scan.Options
	formats  []string
	policy   gate.Policy
	baseline string
	cfgPath  string
	cfg      *config.File
	// set holds the flags given on the command line.
	set map[string]bool
	// minConfidence is --min-confidence, "" when not given.
	minConfidence scan.Level
}

// setup parses flags, finds and merges the configuration file, and checks
// everything that can be checked before scanning.
func setup(e *env, name string, args []string, extra func(fs *flag.FlagSet)) (*checkSetup, error) {
	fs := newFlagSet(name, e.stderr)
	var sf scanFlags
	sf.register(fs)
	var gf gateFlags
	gf.register(fs)
	if extra != nil {
		extra(fs)
	}
	paths, err := parseArgs(fs, args)
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })

	cfg := &config.File{}
	cfgPath := gf.config
	if cfgPath == "" {
		if cfgPath, err = config.Find(e.wd); err != nil {
			return nil, usageError(err)
		}
	} else if !isAbs(cfgPath) {
		cfgPath = joinWD(e, cfgPath)
	}
	if cfgPath != "" {
		if cfg, err = config.Load(cfgPath); err != nil {
			return nil, usageError(err)
		}
	}
	if len(sf.targets) == 0 {
		sf.targets = cfg.Targets
	}
	if len(sf.registries) == 0 {
		sf.registries = cfg.Registries
	}
	if !set["signature"] {
		sf.signature = cfg.Signature
	}
	if !set["j"] {
		sf.jobs = cfg.Jobs
	}
	if len(sf.formats) == 0 {
		sf.formats = cfg.Formats
	}
	if !set["from"] && cfg.From != "" {
		sf.from = cfg.From
	}
	if len(sf.phases) == 0 {
		sf.phases = cfg.Phases
	}
	if _, err := parseFormats(sf.formats); err != nil {
		return nil, err
	}
	opts, err := sf.options(paths)
	if err != nil {
		return nil, err
	}
	e.verbose = sf.verbose
	opts.Version = Version
	opts.Progress = progressBar(e)
	opts.CacheDone = cacheReport(e, opts.Cache)

	p := cfg.Policy
	if set["min-coverage"] {
		v, err := strconv.ParseFloat(gf.minCoverage, 64)
		if err != nil {
			return nil, usageErrorf("--min-coverage %q: want a percentage", gf.minCoverage)
		}
		p.MinCoverage = &v
	}
	for _, x := range []struct {
		name, val string
		dst       **int
	}{{"max-fallback-nodes", gf.maxFallbackNodes, &p.MaxFallbackNodes}, {"max-partitions", gf.maxPartitions, &p.MaxPartitions},
		{"max-new-fallback-nodes", gf.maxNewFallback, &p.MaxNewFallbackNodes}} {
		if set[x.name] {
			v, err := strconv.Atoi(x.val)
			if err != nil {
				return nil, usageErrorf("--%s %q: want a whole number", x.name, x.val)
			}
			*x.dst = &v
		}
	}
	if set["max-transfer-bytes"] {
		v, err := strconv.ParseInt(gf.maxTransferBytes, 10, 64)
		if err != nil {
			return nil, usageErrorf("--max-transfer-bytes %q: want a whole number of bytes", gf.maxTransferBytes)
		}
		p.MaxTransferBytes = &v
	}
	if set["fail-on"] {
		p.FailOn = gf.failOn
	}
	if err := p.Validate(); err != nil {
		if cfgPath != "" {
			return nil, usageErrorf("%v (flags and %s)", err, cfgPath)
		}
		return nil, usageError(err)
	}
	base := gf.baseline
	if base == "" {
		base = cfg.Baseline
	} else if !isAbs(base) {
		base = joinWD(e, base)
	}
	var minConf scan.Level
	if set["min-confidence"] {
		minConf = scan.Level(gf.minConfidence)
		if minConf.Rank() == 0 {
			return nil, usageErrorf("--min-confidence %q: want low, medium or high", gf.minConfidence)
		}
	}
	return &checkSetup{opts: opts, formats: sf.formats, policy: p, baseline: base, cfgPath: cfgPath, cfg: cfg, set: set, minConfidence: minConf}, nil
}

// checkConfidence refuses, before any model is scanned, to gate on a target
// whose pack is less trustworthy than --min-confidence: a gate that passes
// on an estimate would claim more than tfscan knows.
func checkConfidence(s *checkSetup) error {
	if s.minConfidence == "" {
		return nil
	}
	ts, err := scan.ResolveTargets(s.opts.Targets, s.opts.Registries)
	if err != nil {
		return scanError(err)
	}
	var weak []string
	for _, t := range ts.List {
		p := t.Index.Info()
		weak = s.appendWeak(weak, t.Name, p.ConfidenceLevel, string(p.Mechanism))
	}
	return s.refuseWeak(weak)
}

// checkResultsConfidence is checkConfidence for `check --results`: the
// confidence each target's pack had when the report was scanned.
func checkResultsConfidence(s *checkSetup, rep *reports.Report) error {
	if s.minConfidence == "" {
		return nil
	}
	var weak []string
	seen := map[string]bool{}
	for _, m := range rep.Models {
		for _, t := range m.Targets {
			if seen[t.Target] {
				continue
			}
			seen[t.Target] = true
			weak = s.appendWeak(weak, t.Target, scan.Level(t.Registry.ConfidenceLevel), t.Registry.Mechanism)
		}
	}
	return s.refuseWeak(weak)
}

// appendWeak adds the target to weak when its level is below --min-confidence.
func (s *checkSetup) appendWeak(weak []string, target string, level scan.Level, mech string) []string {
	if level.Rank() >= s.minConfidence.Rank() {
		return weak
	}
	lvl := string(level)
	if lvl == "" {
		lvl = "unrated"
	}
	return append(weak, fmt.Sprintf("%s (%s, %s)", target, lvl, mech))
}

func (s *checkSetup) refuseWeak(weak []string) error {
	if len(weak) == 0 {
		return nil
	}
	return usageErrorf("--min-confidence %s: refusing to gate on %s; drop the target, lower --min-confidence, or import a live dump of the stack (docs/registries.md)",
		s.minConfidence, strings.Join(weak, ", "))
}

// checkFlags are the flags of `tfscan check` besides those it shares with
// baseline (scanFlags, gateFlags).
type checkFlags struct {
	results string
}

func (f *checkFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.results, "results", "", "gate the results of a JSON report `FILE` (e.g. from 'tfscan merge') instead of scanning")
}

// runCheck scans, evaluates the gate, writes the reports and exits 1 when
// the gate failed, 3 when a model could not be scanned (whatever the gate
// said of the others). Warnings (expired or unused ignore entries,
// thresholds that could not be checked) go to stderr.
func runCheck(ctx context.Context, e *env, args []string) error {
	var cf checkFlags
	s, err := setup(e, "check", args, cf.register)
	if err != nil {
		return err
	}
	if cf.results != "" {
		if err := s.checkResultsUsage(); err != nil {
			return err
		}
	} else if err := checkConfidence(s); err != nil {
		return err
	}
	var base *reports.Report
	if s.baseline != "" {
		if base, err = reports.ReadAnyVersion(s.baseline); err != nil {
			return inputError(fmt.Errorf("baseline: %w", err))
		}
	}
	today, err := gateToday(e)
	if err != nil {
		return err
	}
	var rep *reports.Report
	if cf.results != "" {
		// A report read back has no rewrite preview unless the run that
		// wrote it was a check.
		if rep, err = s.readResults(e, cf.results); err != nil {
			return err
		}
		if err := checkResultsConfidence(s, rep); err != nil {
			return err
		}
	} else {
		s.opts.RewritePreview = true
		rep, err = scan.Run(ctx, s.opts)
	}
	if err != nil {
		return scanError(err)
	}
	rep.Gate = gate.EvaluateGate(rep, s.policy, base, today)
	if err := writeReports(e, s.formats, rep); err != nil {
		return err
	}
	failed := reportErrors(e, rep.Errors)
	for _, w := range rep.Gate.Warnings {
		fmt.Fprintf(e.stderr, "tfscan: warning: %s\n", w)
	}
	if !rep.Gate.Pass {
		fmt.Fprintf(e.stderr, "tfscan: gate failed: %d failure(s)\n", len(rep.Gate.Failures))
		for _, f := range rep.Gate.Failures {
			where := f.Model
			if f.Target != "" {
				where += " on " + f.Target
			}
			fmt.Fprintf(e.stderr, "  %s: %s: %s\n", where, f.Rule, f.Message)
		}
		if failed == nil {
			return errGateFailed
		}
	}
	return failed
}

// gateToday is the date ignore entries expire against: today in UTC, or
// TFSCAN_TODAY (YYYY-MM-DD) so that a CI run can be reproduced later and
// tests do not depend on the clock.
func gateToday(e *env) (time.Time, error) {
	if v := e.getenv("TFSCAN_TODAY"); v != "" {
		t, err := time.Parse("2006-01-02", v)
		if err != nil {
			return time.Time{}, usageErrorf("TFSCAN_TODAY %q: want YYYY-MM-DD", v)
		}
		return t, nil
	}
	return time.Now().UTC(), nil
}
