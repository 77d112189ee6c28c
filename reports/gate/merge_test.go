package gate

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/reports/jsonout"
)

func TestMerge(t *testing.T) {
	opts := func(shard *reports.Shard, mutate ...func(*reports.Options)) *reports.Options {
		o := &reports.Options{Targets: []string{"intel-xpu", "musa"}, From: "cuda", Phases: []string{reports.PhaseStep}, Shard: shard}
		for _, m := range mutate {
			m(o)
		}
		return o
	}
	rep := func(o *reports.Options, paths ...string) *reports.Report {
		r := &reports.Report{SchemaVersion: reports.SchemaVersion, Tool: reports.Tool{Name: "tfscan", Version: "1.0"}, Options: o}
		for _, p := range paths {
			if p[0] == '!' {
				r.Errors = append(r.Errors, reports.ScanError{Path: p[1:], Message: p[1:] + ": bad", Class: reports.ErrorClassModel})
				continue
			}
			r.Models = append(r.Models, &reports.Model{Path: p, Targets: []*reports.Target{{Target: "intel-xpu"}, {Target: "musa"}}})
		}
		return r
	}
	s := func(i, n int) *reports.Shard { return &reports.Shard{Index: i, Count: n} }

	t.Run("shards give the whole run", func(t *testing.T) {
		got, err := Merge([]Named{
			{"b.json", rep(opts(s(2, 2)), "m/c", "!m/bad")},
			{"a.json", rep(opts(s(1, 2)), "m/b", "m/a")},
		})
		require.NoError(t, err)
		var want, have bytes.Buffer
		require.NoError(t, jsonout.WriteJSON(&want, rep(opts(nil), "m/a", "m/b", "m/c", "!m/bad")))
		require.NoError(t, jsonout.WriteJSON(&have, got))
		require.Equal(t, want.String(), have.String())
	})
	t.Run("a gate judged a share only and is dropped", func(t *testing.T) {
		r := rep(opts(nil), "m/a")
		r.Gate = &reports.Gate{Pass: true}
		got, err := Merge([]Named{{"a.json", r}, {"b.json", rep(opts(nil), "m/b")}})
		require.NoError(t, err)
		require.Nil(t, got.Gate)
	})

	for _, tc := range []struct {
		name string
		in   []Named
		want string
	}{
		{"tool version", []Named{{"a.json", rep(opts(nil), "x")}, {"b.json", func() *reports.Report { r := rep(opts(nil), "y"); r.Tool.Version = "2.0"; return r }()}},
			"a.json was written by tfscan 1.0 and b.json by tfscan 2.0: merge reports of one tool version"},
		{"targets", []Named{{"a.json", rep(opts(nil), "x")}, {"b.json", rep(opts(nil, func(o *reports.Options) { o.Targets = []string{"musa"} }), "y")}},
			"a.json scanned targets intel-xpu,musa and b.json targets musa: merge reports of the same targets"},
		{"options", []Named{{"a.json", rep(opts(nil), "x")}, {"b.json", rep(opts(nil, func(o *reports.Options) { o.Precision = "mixed_float16"; o.Dims = map[string]int64{"batch": 8} }), "y")}},
			"a.json and b.json were scanned with different options (dims, precision): merge reports scanned the same way"},
		{"model twice", []Named{{"a.json", rep(opts(nil), "x", "y")}, {"b.json", rep(opts(nil), "y")}},
			"model y is in both a.json and b.json: merge reports of disjoint shares of the models"},
		{"error and model", []Named{{"a.json", rep(opts(nil), "x")}, {"b.json", rep(opts(nil), "!x")}},
			"model x is in both a.json and b.json"},
		{"same report twice", []Named{{"a.json", rep(opts(nil), "x")}, {"a.json", rep(opts(nil), "x")}},
			"a.json lists model x twice"},
		{"missing shard", []Named{{"a.json", rep(opts(s(1, 3)), "x")}, {"c.json", rep(opts(s(3, 3)), "y")}},
			"missing shard(s) 2/3: merge every shard's report"},
		{"shard twice", []Named{{"a.json", rep(opts(s(1, 2)), "x")}, {"b.json", rep(opts(s(1, 2)), "y")}},
			"a.json and b.json are both shard 1/2"},
		{"splits", []Named{{"a.json", rep(opts(s(1, 2)), "x")}, {"b.json", rep(opts(s(2, 3)), "y")}},
			"a.json is shard 1/2 but b.json is shard 2/3: merge the shards of one split"},
		{"shard and whole", []Named{{"a.json", rep(opts(nil), "x")}, {"b.json", rep(opts(s(1, 1)), "y")}},
			"b.json is a shard but a.json is not"},
		{"no options", []Named{{"a.json", rep(opts(nil), "x")}, {"old.json", rep(nil, "y")}},
			"old.json records no scan options"},
		{"schema versions", []Named{{"a.json", rep(opts(nil), "x")}, {"old.json", func() *reports.Report { r := rep(opts(nil), "y"); r.SchemaVersion = reports.SchemaVersion1; return r }()}},
			"a.json is report schema version 2 and old.json version 1: merge reports of one schema version"},
		{"old schema", []Named{{"old.json", func() *reports.Report { r := rep(opts(nil), "y"); r.SchemaVersion = reports.SchemaVersion1; return r }()}},
			"old.json is report schema version 1; this tfscan merges version 2"},
		{"nodes modes", []Named{{"a.json", rep(opts(nil, func(o *reports.Options) { o.Nodes = reports.NodesAttention }), "x")}, {"b.json", rep(opts(nil, func(o *reports.Options) { o.Nodes = reports.NodesAll }), "y")}},
			`a.json lists nodes "attention" and b.json nodes "all" (--nodes): merge reports that list the same nodes`},
		{"nothing", nil, "no reports to merge"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Merge(tc.in)
			require.ErrorContains(t, err, tc.want)
		})
	}
}
