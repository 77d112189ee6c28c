package gate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tfscan/tfscan/reports"
)

// Named is a report with the name (a file) it is known by in messages.
type Named struct {
	Name   string
	Report *reports.Report
}

// Merge combines the reports of runs that each scanned a share of the
// models (`--shard i/n`, or disjoint sets of paths) into the report one run
// over all of them writes: the same tool version and the same
// result-changing options (Options.SameResults), every model once. Sharded
// reports must be every shard of one split, each once, so that a lost runner
// cannot pass unnoticed. Each input's errors[] are kept; a gate is not (it
// judged only a share: `tfscan check --results` gates the merged report).
// The error names the reports and what stops them from being combined.
func Merge(in []Named) (*reports.Report, error) {
	if len(in) == 0 {
		return nil, fmt.Errorf("no reports to merge")
	}
	first := in[0]
	for _, r := range in {
		if v := r.Report.SchemaVersion; v != first.Report.SchemaVersion {
			return nil, fmt.Errorf("%s is report schema version %d and %s version %d: merge reports of one schema version (rescan with one tfscan)",
				first.Name, first.Report.SchemaVersion, r.Name, v)
		}
		if r.Report.SchemaVersion != reports.SchemaVersion {
			return nil, fmt.Errorf("%s is report schema version %d; this tfscan merges version %d: rescan with it", r.Name, r.Report.SchemaVersion, reports.SchemaVersion)
		}
		if r.Report.Options == nil {
			return nil, fmt.Errorf("%s records no scan options (written by an older tfscan, or not by scan, check or baseline): rescan to merge it", r.Name)
		}
	}
	for _, r := range in[1:] {
		if r.Report.Tool != first.Report.Tool {
			return nil, fmt.Errorf("%s was written by %s %s and %s by %s %s: merge reports of one tool version",
				first.Name, first.Report.Tool.Name, first.Report.Tool.Version, r.Name, r.Report.Tool.Name, r.Report.Tool.Version)
		}
		a, b := first.Report.Options, r.Report.Options
		if !slices.Equal(a.Targets, b.Targets) {
			return nil, fmt.Errorf("%s scanned targets %s and %s targets %s: merge reports of the same targets",
				first.Name, strings.Join(a.Targets, ","), r.Name, strings.Join(b.Targets, ","))
		}
		if a.Nodes != b.Nodes {
			return nil, fmt.Errorf("%s lists nodes %q and %s nodes %q (--nodes): merge reports that list the same nodes",
				first.Name, a.Nodes, r.Name, b.Nodes)
		}
		if !a.SameResults(b) {
			return nil, fmt.Errorf("%s and %s were scanned with different options (%s): merge reports scanned the same way",
				first.Name, r.Name, strings.Join(a.Differences(b), ", "))
		}
	}
	if err := checkShards(in); err != nil {
		return nil, err
	}
	opts := *first.Report.Options
	opts.Shard = nil
	out := &reports.Report{SchemaVersion: reports.SchemaVersion, Tool: first.Report.Tool, Options: &opts, Models: []*reports.Model{}}
	seen := map[string]string{} // model path → the report it is in
	claim := func(path, name string) error {
		if prev, ok := seen[path]; ok {
			if prev == name {
				return fmt.Errorf("%s lists model %s twice", name, path)
			}
			return fmt.Errorf("model %s is in both %s and %s: merge reports of disjoint shares of the models", path, prev, name)
		}
		seen[path] = name
		return nil
	}
	for _, r := range in {
		for _, m := range r.Report.Models {
			if err := claim(m.Path, r.Name); err != nil {
				return nil, err
			}
			out.Models = append(out.Models, m)
		}
		for _, e := range r.Report.Errors {
			if err := claim(e.Path, r.Name); err != nil {
				return nil, err
			}
			out.Errors = append(out.Errors, e)
		}
	}
	out.Normalize()
	return out, nil
}

// checkShards requires sharded reports to be the whole split: the same
// count, every index once.
func checkShards(in []Named) error {
	var sharded, whole []string
	for _, r := range in {
		if r.Report.Options.Shard != nil {
			sharded = append(sharded, r.Name)
		} else {
			whole = append(whole, r.Name)
		}
	}
	if len(sharded) == 0 {
		return nil
	}
	if len(whole) > 0 {
		return fmt.Errorf("%s is a shard but %s is not: merge the shards of one split", sharded[0], whole[0])
	}
	n := in[0].Report.Options.Shard.Count
	by := map[int]string{}
	for _, r := range in {
		s := r.Report.Options.Shard
		if s.Count != n {
			return fmt.Errorf("%s is shard %d/%d but %s is shard %d/%d: merge the shards of one split",
				in[0].Name, in[0].Report.Options.Shard.Index, n, r.Name, s.Index, s.Count)
		}
		if prev, ok := by[s.Index]; ok {
			return fmt.Errorf("%s and %s are both shard %d/%d", prev, r.Name, s.Index, n)
		}
		by[s.Index] = r.Name
	}
	var missing []string
	for i := 1; i <= n; i++ {
		if _, ok := by[i]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", i, n))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("missing shard(s) %s: merge every shard's report, or the models of the missing shards go unchecked", strings.Join(missing, ", "))
	}
	return nil
}
