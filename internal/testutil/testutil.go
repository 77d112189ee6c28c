// Package testutil holds what tests across tfscan share: where the repo and
// the shared material beside it are.
package testutil

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// RepoRoot returns the repository root.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Shared returns ../shared beside the repository (the corpus, TF's op list,
// the oracle). Without it the test is skipped on a developer machine and
// fails under CI=true, so that CI never passes silently on missing data.
func Shared(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(RepoRoot(), "..", "shared")
	if _, err := os.Stat(filepath.Join(dir, "corpus", "README.md")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("shared material missing at %s: %v", dir, err)
		}
		t.Skipf("shared material missing at %s", dir)
	}
	return dir
}

// Corpus returns ../shared/corpus (see Shared).
func Corpus(t testing.TB) string {
	t.Helper()
	return filepath.Join(Shared(t), "corpus")
}
