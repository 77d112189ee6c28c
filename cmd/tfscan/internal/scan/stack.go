package scan

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/reports"
)

// ConfigureStacks applies the user's stack settings (--precision-mode,
// --stack-option) to every target whose pack declares them, and the packs'
// defaults to the others. A setting no target's pack declares is a usage
// error; so is a value a declaring pack does not accept.
func (ts *Targets) ConfigureStacks(s coverage.StackSettings) error {
	usedMode := false
	usedOpt := map[string]bool{}
	for _, t := range ts.List {
		p := t.Index.Info()
		mine := coverage.StackSettings{Options: map[string]string{}}
		if st := p.Stack; st != nil {
			if st.Precision != nil && s.PrecisionMode != "" {
				mine.PrecisionMode = s.PrecisionMode
				usedMode = true
			}
			for k, v := range s.Options {
				if slices.ContainsFunc(st.Options, func(o coverage.StackOption) bool { return o.Name == k }) {
					mine.Options[k] = v
					usedOpt[k] = true
				}
			}
		}
		c, err := p.ResolveStack(mine)
		if err != nil {
			return &UsageError{err}
		}
		t.Index.SetStack(c)
	}
	// The source the model runs on today (--from) runs with its stack's
	// defaults: the user's settings are for the targets.
	if ts.From != nil && ts.fromTarget() < 0 {
		c, err := ts.From.Index.Info().ResolveStack(coverage.StackSettings{})
		if err != nil {
			return &UsageError{err}
		}
		ts.From.Index.SetStack(c)
	}
	if s.PrecisionMode != "" && !usedMode {
		return &UsageError{fmt.Errorf("--precision-mode %s: no target's pack declares precision modes (%s)", s.PrecisionMode, declaring(func(st *coverage.Stack) bool { return st.Precision != nil }))}
	}
	for _, k := range slices.Sorted(maps.Keys(s.Options)) {
		if !usedOpt[k] {
			return &UsageError{fmt.Errorf("--stack-option %s: no target's pack declares it (%s)", k, declaring(func(st *coverage.Stack) bool { return len(st.Options) > 0 }))}
		}
	}
	return nil
}

// declaring names the built-in packs whose stack declarations pass has.
func declaring(has func(*coverage.Stack) bool) string {
	packs, err := coverage.BuiltinPacks()
	if err != nil {
		return "none"
	}
	var names []string
	for _, p := range packs {
		if p.Stack != nil && has(p.Stack) {
			names = append(names, p.Name)
		}
	}
	if len(names) == 0 {
		return "no built-in pack does"
	}
	return "built-in packs that do: " + strings.Join(names, ", ")
}

// ParseStackOptions reads --stack-option KEY=VALUE flags.
func ParseStackOptions(kvs []string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || v == "" {
			return nil, fmt.Errorf("--stack-option %q: want KEY=VALUE", kv)
		}
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("--stack-option %s is given twice", k)
		}
		out[k] = v
	}
	return out, nil
}

// stackInfo is what the report says about the stack settings a target's
// prediction rests on.
func stackInfo(c *coverage.StackConfig) *reports.StackInfo {
	if c == nil || c.Mode == nil && len(c.Options) == 0 {
		return nil
	}
	info := &reports.StackInfo{Assumed: c.Assumed(), Options: map[string]string{}}
	maps.Copy(info.Options, c.Options)
	if c.Mode != nil {
		info.PrecisionMode = c.Mode.Name
		info.PrecisionModeSource = c.Mode.Source
		info.PrecisionModeDoc = c.Mode.Doc
	}
	info.HostPartitions = "mixed"
	if !c.Mixed {
		info.HostPartitions = "one_cluster"
	}
	info.HostPartitionsSource = c.MixedSource
	return info
}

// lowerGroups groups the covered_lower_precision nodes of a target by (op,
// dtypes, lowered type), most nodes first, with a warning finding each.
func lowerGroups(rt *reports.Target, c *coverage.StackConfig, lowered []loweredNode) {
	type key struct{ op, dtypes, to string }
	groups := map[key]*reports.LowerPrecision{}
	for _, l := range lowered {
		nr := &rt.Nodes[l.k]
		k := key{nr.Op, strings.Join(nr.DTypes, ","), l.to}
		g := groups[k]
		if g == nil {
			how := "computed in " + l.to
			if l.inputs {
				how = "inputs rounded to " + l.to + ", output float32"
			}
			g = &reports.LowerPrecision{Op: nr.Op, DTypes: nr.DTypes, LoweredTo: l.to, InputsOnly: l.inputs, How: how, Nodes: []string{}}
			groups[k] = g
		}
		g.Count++
		g.Nodes = appendSmallest(g.Nodes, nr.Path, maxExamplePaths)
	}
	for _, g := range groups {
		if g.DTypes == nil {
			g.DTypes = []string{}
		}
		rt.LowerPrecision = append(rt.LowerPrecision, *g)
	}
	sort.Slice(rt.LowerPrecision, func(i, j int) bool {
		a, b := rt.LowerPrecision[i], rt.LowerPrecision[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		if a.Op != b.Op {
			return a.Op < b.Op
		}
		return strings.Join(a.DTypes, ",") < strings.Join(b.DTypes, ",")
	})
	mode := ""
	if c != nil && c.Mode != nil {
		mode = fmt.Sprintf(" under %s=%s", c.Stack().Precision.Option, c.Mode.Name)
	}
	for _, g := range rt.LowerPrecision {
		rt.Findings = append(rt.Findings, reports.Finding{
			Kind: reports.ReasonCoveredLowerPrecision, Severity: "warning", Op: g.Op, Path: g.Nodes[0],
			Message: fmt.Sprintf("%d %s %s node(s) run on %s but %s%s: check the numbers with 'tfscan parity --target %s'",
				g.Count, strings.Join(g.DTypes, ","), g.Op, rt.Target, g.How, mode, rt.Target),
		})
	}
}

// modeErrors adds an error finding per node the stack's compiler rejects.
func modeErrors(rt *reports.Target, c *coverage.StackConfig, rejected map[int]coverage.Match) {
	for _, i := range slices.Sorted(maps.Keys(rejected)) {
		nr := rt.Nodes[i]
		rt.Findings = append(rt.Findings, reports.Finding{
			Kind: reports.ReasonPrecisionModeError, Severity: "error", Op: nr.Op, Path: nr.Path,
			Message: c.ErrorMessage(nr.Path, nr.Op, rejected[i].StackError),
		})
	}
}

// appendSmallest adds path to paths, the at most limit smallest paths
// seen, in order, and drops the largest beyond limit: a group's example
// paths without a list of all its nodes.
func appendSmallest(paths []string, path string, limit int) []string {
	at, _ := slices.BinarySearch(paths, path)
	if at >= limit {
		return paths
	}
	if len(paths) < limit {
		paths = append(paths, "")
	}
	copy(paths[at+1:], paths[at:])
	paths[at] = path
	return paths
}
