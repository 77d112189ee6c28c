package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	f, err := Parse("/repo/.tfscan.yaml", []byte(`
targets: [ascend-910b, musa]
registry: packs/custom.pbtxt
min_coverage: 95.5
max_fallback_nodes: 3
max_partitions: 2
max_transfer_bytes: 1048576
max_new_fallback_nodes: 0
fail_on: unknown_op,unsafe_op,new_fallback
from: rocm
phase: step,load
baseline: ci/baseline.json
jobs: 4
overrides:
  - model: "models/legacy/**"
    min_coverage: 50
    max_new_fallback_nodes: 10
ignore:
  - op: Erf
    target: "ascend-*"
    reason: decomposed by the graph compiler
    until: 2026-12-31
  - node: "model/head/**"
    reason: custom op runs on host
`))
	require.NoError(t, err)
	require.Equal(t, []string{"ascend-910b", "musa"}, f.Targets)
	require.Equal(t, []string{"/repo/packs/custom.pbtxt"}, f.Registries)
	require.Equal(t, "/repo/ci/baseline.json", f.Baseline)
	require.Equal(t, 4, f.Jobs)
	require.Equal(t, 95.5, *f.Policy.MinCoverage)
	require.Equal(t, 3, *f.Policy.MaxFallbackNodes)
	require.Equal(t, int64(1048576), *f.Policy.MaxTransferBytes)
	require.Equal(t, []string{"unknown_op", "unsafe_op", "new_fallback"}, []string(f.Policy.FailOn))
	require.Equal(t, 0, *f.Policy.MaxNewFallbackNodes)
	require.Equal(t, "rocm", f.From)
	require.Equal(t, []string{"step", "load"}, f.Phases)
	require.Len(t, f.Policy.Overrides, 1)
	require.Equal(t, 50.0, *f.Policy.Overrides[0].MinCoverage)
	require.Equal(t, 10, *f.Policy.Overrides[0].MaxNewFallbackNodes)
	require.Nil(t, f.Policy.Overrides[0].MaxPartitions)
	require.Len(t, f.Policy.Ignore, 2)
	require.Equal(t, "2026-12-31", f.Policy.Ignore[0].Until)
	require.Equal(t, ".tfscan.yaml:19", f.Policy.Ignore[0].Source)
	require.Equal(t, ".tfscan.yaml:23", f.Policy.Ignore[1].Source)
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ name, yaml, want string }{
		{"unknown key", "targets: [a]\nmin_coverge: 3\n", `c.yaml:2: unknown key "min_coverge"`},
		{"unknown ignore key", "ignore:\n  - op: Erf\n    reason: r\n    expires: 2026-01-01\n", `c.yaml:4: ignore: unknown key "expires"`},
		{"unknown override key", "overrides:\n  - model: a\n    targets: [x]\n", `c.yaml:3: overrides: unknown key "targets"`},
		{"wrong type", "min_coverage: lots\n", "c.yaml:1: cannot unmarshal"},
		{"bad yaml", "targets: [a\n", "c.yaml"},
		{"not a mapping", "- a\n", "c.yaml:1: want a mapping"},
		{"ignore without reason", "ignore:\n  - op: Erf\n", "needs a reason"},
		{"bad fail_on", "fail_on: [no_kernels]\n", `unknown code "no_kernels"`},
		{"bad until", "ignore:\n  - op: Erf\n    reason: r\n    until: soon\n", `until "soon" is not a date`},
		{"override without model", "overrides:\n  - min_coverage: 3\n", "c.yaml:2: overrides: each entry needs a model"},
		{"duplicate key", "jobs: 1\njobs: 2\n", "c.yaml:2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("c.yaml", []byte(tc.yaml))
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestParseEmpty(t *testing.T) {
	for _, s := range []string{"", "# only a comment\n"} {
		f, err := Parse("c.yaml", []byte(s))
		require.NoError(t, err)
		require.Empty(t, f.Targets)
	}
}

func TestFind(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	deep := filepath.Join(repo, "models", "a")
	require.NoError(t, os.MkdirAll(deep, 0o755))
	require.NoError(t, os.Mkdir(filepath.Join(repo, ".git"), 0o755))
	// A file above the repository root must not be used.
	require.NoError(t, os.WriteFile(filepath.Join(root, FileName), []byte("jobs: 1\n"), 0o644))
	got, err := Find(deep)
	require.NoError(t, err)
	require.Equal(t, "", got)

	require.NoError(t, os.WriteFile(filepath.Join(repo, FileName), []byte("jobs: 1\n"), 0o644))
	got, err = Find(deep)
	require.NoError(t, err)
	require.Equal(t, filepath.Join(repo, FileName), got)

	// The nearest file wins.
	require.NoError(t, os.WriteFile(filepath.Join(deep, FileName), []byte("jobs: 2\n"), 0o644))
	got, err = Find(deep)
	require.NoError(t, err)
	require.Equal(t, filepath.Join(deep, FileName), got)
}

// FuzzParse: any input gives a File or an error naming the file, never a panic.
func FuzzParse(f *testing.F) {
	f.Add([]byte("targets: [a]\nmin_coverage: 90\n"))
	f.Add([]byte("ignore:\n  - op: Erf\n    reason: r\n    until: 2026-01-01\n"))
	f.Add([]byte("overrides:\n  - model: '**'\n    fail_on: unknown_op\n"))
	f.Add([]byte("a: &x [*x]\n"))
	f.Add([]byte("- - -\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse("fuzz.yaml", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.yaml") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if err := cfg.Policy.Validate(); err != nil {
			t.Fatalf("Parse returned an invalid policy: %v", err)
		}
	})
}
