// Package gate judges reports: the policy's thresholds and ignore rules,
// the comparison with a baseline report, and the merge of shard reports into
// one. It reads and changes only the model; the writers print its verdict.
package gate

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/reports/internal/render"
)

// Thresholds are the limits of the CI gate. A nil field (or nil FailOn) is
// not checked, so that overrides can change one limit and inherit the rest.
type Thresholds struct {
	// MinCoverage is the minimum percentage of nodes covered on each target,
	// counted over reachable nodes when the scan computed reachability
	// (see Target.CoveragePercent). Ignored nodes count as covered.
	MinCoverage *float64
	// MaxFallbackNodes limits the nodes predicted to fall back to CPU
	// (Target.FallbackNodes), ignored nodes excepted.
	MaxFallbackNodes *int
	// MaxPartitions limits the device partitions of the placement.
	MaxPartitions *int
	// MaxTransferBytes limits the bytes crossing between device partitions.
	MaxTransferBytes *int64
	// MaxNewFallbackNodes limits the nodes that fall back to CPU on a
	// target but run on the source's accelerator (Delta.NewFallbackNodes),
	// ignored nodes excepted. A model already worse on the source does not
	// fail it.
	MaxNewFallbackNodes *int
	// FailOn lists reason codes (and unsafe_op) that fail the gate when any
	// node (or security finding) has them.
	FailOn []string
}

// Override applies thresholds to the models whose path matches Model.
type Override struct {
	Model string
	Thresholds
}

// IgnoreRule accepts known gaps: uncovered nodes matching Op or Node (glob
// patterns; exactly one is set) on targets matching Target (all when empty)
// do not fail the gate and count as covered. Reason says why and is
// required; after Until (YYYY-MM-DD, inclusive) the rule no longer applies.
type IgnoreRule struct {
	Op, Node string
	Target   string
	Reason   string
	Until    string
	// Source locates the rule for warnings, e.g. ".tfscan.yaml:12".
	Source string
}

// Policy is everything the gate checks: thresholds, per-model overrides
// (applied in order, later ones win) and ignore rules.
type Policy struct {
	Thresholds
	Overrides []Override
	Ignore    []IgnoreRule
}

// FailOnCodes are the codes fail_on accepts: reason codes, unsafe_op (a
// security finding) and new_fallback (a node that falls back on the target
// but not on the source).
var FailOnCodes = []string{reports.ReasonCoveredDefault, reports.ReasonFunctionCall, reports.ReasonLabelMismatch, reports.ReasonNoKernel,
	reports.ReasonNoKernelForDType, reports.ReasonUnknownOp, reports.ReasonOpNewerThanStack, reports.KindUnsafeOp, reports.ChangeNewFallback, reports.ReasonPrecisionModeError}

const dateLayout = "2006-01-02"

// Validate checks a policy before any model is scanned, so that a typo is a
// configuration error and not a silently passing gate.
func (p *Policy) Validate() error {
	check := func(where string, th Thresholds) error {
		if th.MinCoverage != nil && (*th.MinCoverage < 0 || *th.MinCoverage > 100) {
			return fmt.Errorf("%smin_coverage %v: must be a percentage between 0 and 100", where, *th.MinCoverage)
		}
		if th.MaxFallbackNodes != nil && *th.MaxFallbackNodes < 0 {
			return fmt.Errorf("%smax_fallback_nodes must not be negative", where)
		}
		if th.MaxPartitions != nil && *th.MaxPartitions < 0 {
			return fmt.Errorf("%smax_partitions must not be negative", where)
		}
		if th.MaxTransferBytes != nil && *th.MaxTransferBytes < 0 {
			return fmt.Errorf("%smax_transfer_bytes must not be negative", where)
		}
		if th.MaxNewFallbackNodes != nil && *th.MaxNewFallbackNodes < 0 {
			return fmt.Errorf("%smax_new_fallback_nodes must not be negative", where)
		}
		for _, c := range th.FailOn {
			if !slices.Contains(FailOnCodes, c) {
				return fmt.Errorf("%sfail_on: unknown code %q (want one of %s)", where, c, strings.Join(FailOnCodes, ", "))
			}
		}
		return nil
	}
	if err := check("", p.Thresholds); err != nil {
		return err
	}
	for i, o := range p.Overrides {
		if _, err := compileGlob(o.Model); err != nil {
			return fmt.Errorf("overrides[%d]: model: %v", i, err)
		}
		if err := check(fmt.Sprintf("overrides[%d] (%s): ", i, o.Model), o.Thresholds); err != nil {
			return err
		}
	}
	for i, ig := range p.Ignore {
		where := ig.Source
		if where == "" {
			where = fmt.Sprintf("ignore[%d]", i)
		}
		if (ig.Op == "") == (ig.Node == "") {
			return fmt.Errorf("%s: an ignore entry needs exactly one of op or node", where)
		}
		for _, pat := range []string{ig.Op, ig.Node, ig.Target} {
			if pat == "" {
				continue
			}
			if _, err := compileGlob(pat); err != nil {
				return fmt.Errorf("%s: %v", where, err)
			}
		}
		if strings.TrimSpace(ig.Reason) == "" {
			return fmt.Errorf("%s: an ignore entry needs a reason saying why the gap is accepted", where)
		}
		if ig.Until != "" {
			if _, err := time.Parse(dateLayout, ig.Until); err != nil {
				return fmt.Errorf("%s: until %q is not a date (YYYY-MM-DD)", where, ig.Until)
			}
		}
	}
	return nil
}

// For returns the thresholds that apply to a model: the policy's, with each
// matching override's set fields laid over them in order.
func (p *Policy) For(modelPath string) Thresholds {
	th := p.Thresholds
	for _, o := range p.Overrides {
		if !globMatch(o.Model, modelPath) {
			continue
		}
		if o.MinCoverage != nil {
			th.MinCoverage = o.MinCoverage
		}
		if o.MaxFallbackNodes != nil {
			th.MaxFallbackNodes = o.MaxFallbackNodes
		}
		if o.MaxPartitions != nil {
			th.MaxPartitions = o.MaxPartitions
		}
		if o.MaxTransferBytes != nil {
			th.MaxTransferBytes = o.MaxTransferBytes
		}
		if o.MaxNewFallbackNodes != nil {
			th.MaxNewFallbackNodes = o.MaxNewFallbackNodes
		}
		if o.FailOn != nil {
			th.FailOn = o.FailOn
		}
	}
	return th
}

func (th Thresholds) any() bool {
	return th.MinCoverage != nil || th.MaxFallbackNodes != nil || th.MaxPartitions != nil ||
		th.MaxTransferBytes != nil || th.MaxNewFallbackNodes != nil || len(th.FailOn) > 0
}

// gapItem is one uncovered node (or, when a report lists no nodes, one
// uncovered group standing for Weight nodes).
type gapItem struct {
	path, op, reason string
	counted          bool // in the population the coverage counts
	weight           int
}

// fallbackItem is one new fallback against the source (or, when a report
// lists no nodes, one group of Weight nodes).
type fallbackItem struct {
	path, op string
	weight   int
}

// targetState is a target's numbers after ignore rules.
type targetState struct {
	coverage      float64
	fallback      int
	transferBytes int64
	// transferPartial: transferBytes leaves out the unknownTransfers
	// transfers of unknown size (a lower bound).
	transferPartial  bool
	unknownTransfers int
	gaps             []gapItem // counted and not ignored
	// newFallbacks are the new fallbacks against the source, not ignored;
	// nil without a Delta.
	newFallbacks []fallbackItem
}

type ignoreSet struct {
	rules   []IgnoreRule
	active  []bool
	used    []bool
	expired []bool
}

func newIgnoreSet(rules []IgnoreRule, today time.Time) *ignoreSet {
	s := &ignoreSet{rules: rules, active: make([]bool, len(rules)), used: make([]bool, len(rules)), expired: make([]bool, len(rules))}
	day := today.Format(dateLayout)
	for i, r := range rules {
		// Dates in YYYY-MM-DD compare as strings; the rule holds through its Until day.
		s.expired[i] = r.Until != "" && day > r.Until
		s.active[i] = !s.expired[i]
	}
	return s
}

// match reports whether an active rule ignores (op, path) on target; mark
// records use (the baseline is evaluated without marking).
func (s *ignoreSet) match(target, op, path string, mark bool) bool {
	hit := false
	for i, r := range s.rules {
		if !s.active[i] {
			continue
		}
		if r.Target != "" && !globMatch(r.Target, target) {
			continue
		}
		if (r.Op != "" && globMatch(r.Op, op)) || (r.Node != "" && globMatch(r.Node, path)) {
			hit = true
			if mark {
				s.used[i] = true
			}
		}
	}
	return hit
}

func (s *ignoreSet) state(t *reports.Target, mark bool) targetState {
	st := targetState{}
	if t.Placement != nil {
		st.transferBytes = t.Placement.TransferBytes
		st.transferPartial = t.Placement.TransferBytesPartial()
		st.unknownTransfers = t.Placement.UnknownSizeTransfers - t.Placement.UnknownSizeIOTransfers
	}
	var items []gapItem
	if len(t.Nodes) > 0 {
		for i := range t.Nodes {
			n := &t.Nodes[i]
			if !reports.IsCovered(n.Reason) {
				items = append(items, gapItem{path: n.Path, op: n.Op, reason: n.Reason, counted: t.Counts(n), weight: 1})
			}
		}
	} else {
		for _, u := range t.Uncovered {
			p := ""
			if len(u.Nodes) > 0 {
				p = u.Nodes[0]
			}
			items = append(items, gapItem{path: p, op: u.Op, reason: u.Reason, counted: t.CountsPhase(u.Phase), weight: u.Count})
		}
	}
	ignoredCounted := 0 // ignored nodes in the population coverage counts
	for _, it := range items {
		if s.match(t.Target, it.op, it.path, mark) {
			if it.counted {
				ignoredCounted += it.weight
			}
			continue
		}
		if it.counted {
			// fail_on and regressions judge the nodes the figures count
			st.gaps = append(st.gaps, it)
		}
	}
	total, covered := t.CountedNodes()
	st.coverage = 100
	if total > 0 {
		st.coverage = 100 * float64(min(total, covered+ignoredCounted)) / float64(total)
	}
	st.fallback = max(0, t.FallbackNodes()-ignoredCounted)
	if d := t.Delta; d != nil {
		st.newFallbacks = []fallbackItem{}
		add := func(op, path string, weight int) {
			if !s.match(t.Target, op, path, mark) {
				st.newFallbacks = append(st.newFallbacks, fallbackItem{path: path, op: op, weight: weight})
			}
		}
		if len(t.Nodes) > 0 {
			for _, n := range t.Nodes {
				if n.Change == reports.ChangeNewFallback {
					add(n.Op, n.Path, 1)
				}
			}
		} else {
			for _, o := range d.NewFallbackOps {
				for _, p := range o.Nodes {
					add(o.Op, p, 1)
				}
				if len(o.Nodes) < o.Count {
					add(o.Op, "", o.Count-len(o.Nodes))
				}
			}
		}
	}
	return st
}

// newFallbackCount sums the new fallbacks and lists their paths.
func (st targetState) newFallbackCount() (int, []string) {
	n := 0
	var paths []string
	for _, f := range st.newFallbacks {
		n += f.weight
		if f.path != "" {
			paths = append(paths, f.path)
		}
	}
	return n, paths
}

// placementError is the first line of the error TensorFlow would raise
// placing the model on t, "" when none. A model TensorFlow refuses to place
// fails the gate whatever the thresholds: it would not run there.
func placementError(t *reports.Target) string {
	if t.Placement == nil {
		return ""
	}
	first, _, _ := strings.Cut(t.Placement.Error, "\n")
	return first
}

// EvaluateGate checks a report against a policy and returns the gate
// outcome (also stored in r.Gate by the caller if wanted). With a baseline
// (a previous JSON report) only regressions fail: an op or node uncovered
// now but not in the baseline, more fallback nodes, more transfer bytes,
// lower coverage, or a new security finding; the absolute thresholds are
// then not applied. today decides which ignore rules have expired; it is a
// parameter so that evaluation is deterministic.
func EvaluateGate(r *reports.Report, p Policy, baseline *reports.Report, today time.Time) *reports.Gate {
	r.Normalize()
	g := &reports.Gate{Failures: []reports.GateFailure{}, Warnings: []string{}}
	ign := newIgnoreSet(p.Ignore, today)
	fail := func(m *reports.Model, target, rule, format string, args ...any) {
		g.Failures = append(g.Failures, reports.GateFailure{Model: m.Path, Target: target, Rule: rule, Message: fmt.Sprintf(format, args...)})
	}
	var base map[string]*reports.Model
	if baseline != nil {
		baseline.Normalize()
		base = map[string]*reports.Model{}
		for _, m := range baseline.Models {
			base[m.Path] = m
		}
		if p.Thresholds.any() || len(p.Overrides) > 0 {
			g.Warnings = append(g.Warnings, "with a baseline only regressions fail; the absolute thresholds are not applied")
		}
	}
	for _, m := range r.Models {
		th := p.For(m.Path)
		findings := []reports.Finding{}
		for _, f := range m.Findings {
			if !ign.match("", f.Op, f.Path, true) {
				findings = append(findings, f)
			}
		}
		if baseline != nil {
			bm := base[m.Path]
			if bm == nil {
				g.Warnings = append(g.Warnings, fmt.Sprintf("model %s is not in the baseline; everything in it counts as new", m.Path))
				bm = &reports.Model{Path: m.Path}
			}
			regressions(g, m, bm, findings, ign, fail)
			continue
		}
		if slices.Contains(th.FailOn, reports.KindUnsafeOp) && len(findings) > 0 {
			fail(m, "", "fail_on", "%d security finding(s) (unsafe_op): %s", len(findings), findingList(findings))
		}
		for _, t := range m.Targets {
			st := ign.state(t, true)
			if e := placementError(t); e != "" {
				fail(m, t.Target, "placement_error", "TensorFlow would fail to place the model: %s", e)
			}
			if th.MinCoverage != nil && st.coverage < *th.MinCoverage {
				fail(m, t.Target, "min_coverage", "coverage %s is below the minimum %s", render.FormatPercent(st.coverage), render.FormatPercent(*th.MinCoverage))
			}
			if th.MaxFallbackNodes != nil && st.fallback > *th.MaxFallbackNodes {
				fail(m, t.Target, "max_fallback_nodes", "%d node(s) fall back to CPU, more than the maximum %d", st.fallback, *th.MaxFallbackNodes)
			}
			if th.MaxPartitions != nil || th.MaxTransferBytes != nil {
				if t.Placement == nil {
					g.Warnings = append(g.Warnings, fmt.Sprintf("%s on %s: no placement was computed; max_partitions and max_transfer_bytes were not checked", m.Path, t.Target))
				} else {
					if th.MaxPartitions != nil && t.Placement.Partitions > *th.MaxPartitions {
						fail(m, t.Target, "max_partitions", "%d device partitions, more than the maximum %d", t.Placement.Partitions, *th.MaxPartitions)
					}
					if th.MaxTransferBytes != nil && t.Placement.TransferBytes > *th.MaxTransferBytes {
						fail(m, t.Target, "max_transfer_bytes", "%d bytes cross between devices, more than the maximum %d", t.Placement.TransferBytes, *th.MaxTransferBytes)
					} else if th.MaxTransferBytes != nil && t.Placement.TransferBytesPartial() {
						// The known sizes are a lower bound: below the maximum,
						// they do not show that the model stays below it.
						g.Warnings = append(g.Warnings, fmt.Sprintf("%s on %s: %d transfer(s) of unknown size are not in the %d bytes checked against max_transfer_bytes", m.Path, t.Target, t.Placement.UnknownSizeTransfers-t.Placement.UnknownSizeIOTransfers, t.Placement.TransferBytes))
					}
				}
			}
			failOnNew := slices.Contains(th.FailOn, reports.ChangeNewFallback)
			if th.MaxNewFallbackNodes != nil || failOnNew {
				if st.newFallbacks == nil {
					g.Warnings = append(g.Warnings, fmt.Sprintf("%s on %s: no source to compare with (--from none); max_new_fallback_nodes and fail_on new_fallback were not checked", m.Path, t.Target))
				} else {
					n, paths := st.newFallbackCount()
					if th.MaxNewFallbackNodes != nil && n > *th.MaxNewFallbackNodes {
						fail(m, t.Target, "max_new_fallback_nodes", "%d node(s) fall back to CPU here but not on %s, more than the maximum %d: %s",
							n, t.Delta.Source, *th.MaxNewFallbackNodes, examples(paths))
					}
					if failOnNew && n > 0 {
						fail(m, t.Target, "fail_on", "%d node(s) newly fall back to CPU against %s (new_fallback): %s", n, t.Delta.Source, examples(paths))
					}
				}
			}
			for _, code := range th.FailOn {
				if code == reports.KindUnsafeOp || code == reports.ChangeNewFallback {
					continue
				}
				var paths []string
				n := 0
				for _, gp := range st.gaps {
					if gp.reason == code {
						n += gp.weight
						paths = append(paths, gp.path)
					}
				}
				if n > 0 {
					fail(m, t.Target, "fail_on", "%d node(s) with reason %s: %s", n, code, examples(paths))
				}
			}
		}
	}
	if baseline != nil {
		for _, bm := range baseline.Models {
			if !slices.ContainsFunc(r.Models, func(m *reports.Model) bool { return m.Path == bm.Path }) {
				g.Warnings = append(g.Warnings, fmt.Sprintf("baseline model %s was not scanned", bm.Path))
			}
		}
	}
	for i, rule := range p.Ignore {
		switch {
		case ign.expired[i]:
			g.Warnings = append(g.Warnings, fmt.Sprintf("ignore entry %s expired on %s and no longer applies", describeRule(i, rule), rule.Until))
		case !ign.used[i]:
			g.Warnings = append(g.Warnings, fmt.Sprintf("ignore entry %s matched nothing; remove it", describeRule(i, rule)))
		}
	}
	g.Pass = len(g.Failures) == 0
	g.Normalize()
	return g
}

func regressions(g *reports.Gate, m, bm *reports.Model, findings []reports.Finding, ign *ignoreSet, fail func(*reports.Model, string, string, string, ...any)) {
	known := map[string]bool{}
	for _, f := range bm.Findings {
		known[f.Op+"\x00"+f.Path] = true
	}
	var fresh []reports.Finding
	for _, f := range findings {
		if !known[f.Op+"\x00"+f.Path] {
			fresh = append(fresh, f)
		}
	}
	if len(fresh) > 0 {
		fail(m, "", "new_finding", "%d new security finding(s): %s", len(fresh), findingList(fresh))
	}
	for _, t := range m.Targets {
		var bt *reports.Target
		for _, x := range bm.Targets {
			if x.Target == t.Target {
				bt = x
			}
		}
		if bt == nil {
			if len(bm.Targets) > 0 {
				g.Warnings = append(g.Warnings, fmt.Sprintf("%s: target %s is not in the baseline; everything on it counts as new", m.Path, t.Target))
			}
			bt = &reports.Target{Target: t.Target}
		}
		cur, old := ign.state(t, true), ign.state(bt, false)
		if e := placementError(t); e != "" && placementError(bt) == "" {
			fail(m, t.Target, "placement_error", "TensorFlow would fail to place the model, which the baseline placed: %s", e)
		}
		oldOps, oldNodes := map[string]bool{}, map[string]bool{}
		for _, gp := range old.gaps {
			oldOps[gp.op] = true
			oldNodes[gp.path] = true
		}
		for _, u := range bt.Uncovered { // groups list ops even when nodes were not kept
			oldOps[u.Op] = true
			for _, n := range u.Nodes {
				oldNodes[n] = true
			}
		}
		var newOps, newNodes []string
		for _, gp := range cur.gaps {
			if !oldOps[gp.op] && !slices.Contains(newOps, gp.op) {
				newOps = append(newOps, gp.op)
			}
			if !oldNodes[gp.path] {
				newNodes = append(newNodes, gp.path)
			}
		}
		slices.Sort(newOps)
		if len(newOps) > 0 {
			fail(m, t.Target, "new_uncovered_op", "%d op(s) newly uncovered: %s", len(newOps), examples(newOps))
		}
		if len(newNodes) > 0 {
			fail(m, t.Target, "new_uncovered_node", "%d node(s) newly uncovered: %s", len(newNodes), examples(newNodes))
		}
		if cur.fallback > old.fallback {
			fail(m, t.Target, "more_fallback_nodes", "%d node(s) fall back to CPU, baseline %d", cur.fallback, old.fallback)
		}
		switch partial := cur.transferPartial || old.transferPartial; {
		case cur.transferBytes > old.transferBytes && partial:
			// Lower bounds: the known sizes grew, which still fails (an
			// unknown size on the baseline's side may hide as much, but the
			// gate does not pass a model on a guess); the failure says so.
			fail(m, t.Target, "more_transfer_bytes", "%s bytes cross between devices, baseline %s (sizes partly unknown: the sums leave out transfers of unknown size)",
				atLeast(cur.transferBytes, cur.transferPartial), atLeast(old.transferBytes, old.transferPartial))
			g.Failures[len(g.Failures)-1].TransferBytesPartial = true
		case cur.transferBytes > old.transferBytes:
			fail(m, t.Target, "more_transfer_bytes", "%d bytes cross between devices, baseline %d", cur.transferBytes, old.transferBytes)
		case cur.unknownTransfers > old.unknownTransfers:
			// Not more by the known sizes, but more transfers of unknown
			// size than the baseline had: the known sizes do not show
			// that the bytes did not grow (as max_transfer_bytes warns).
			g.Warnings = append(g.Warnings, fmt.Sprintf("%s on %s: %d transfer(s) of unknown size (baseline %d) are not in the %d bytes compared with the baseline's %s (more_transfer_bytes; sizes partly unknown)",
				m.Path, t.Target, cur.unknownTransfers, old.unknownTransfers, cur.transferBytes, atLeast(old.transferBytes, old.transferPartial)))
		}
		// Compare at the precision reports show, so that float noise is no regression.
		if render.FormatPercent(cur.coverage) != render.FormatPercent(old.coverage) && cur.coverage < old.coverage {
			fail(m, t.Target, "lower_coverage", "coverage %s, baseline %s", render.FormatPercent(cur.coverage), render.FormatPercent(old.coverage))
		}
	}
}

// atLeast is a byte count, "≥N" when it is a lower bound.
func atLeast(n int64, partial bool) string {
	if partial {
		return "≥" + strconv.FormatInt(n, 10)
	}
	return strconv.FormatInt(n, 10)
}

func describeRule(i int, r IgnoreRule) string {
	where := r.Source
	if where == "" {
		where = fmt.Sprintf("#%d", i+1)
	}
	what := "op " + r.Op
	if r.Node != "" {
		what = "node " + r.Node
	}
	if r.Target != "" {
		what += " on " + r.Target
	}
	return fmt.Sprintf("%s (%s)", where, what)
}

// examples lists the first few items, sorted, and how many more there are.
func examples(items []string) string {
	const n = 5
	s := slices.Clone(items)
	slices.Sort(s)
	s = slices.Compact(s)
	if len(s) <= n {
		return strings.Join(s, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(s[:n], ", "), len(s)-n)
}

func findingList(fs []reports.Finding) string {
	var s []string
	for _, f := range fs {
		s = append(s, f.Op+" at "+f.Path)
	}
	return examples(s)
}
