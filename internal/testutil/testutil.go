// Package testutil holds what tests across tfscan share: where the repo and
// the shared corpus are.
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

// Corpus returns ../shared/corpus beside the repository. Without it the test
// is skipped on a developer machine and fails under CI=true, so that CI never
// passes silently on a missing corpus.
func Corpus(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(RepoRoot(), "..", "shared", "corpus")
	if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("shared corpus missing at %s: %v", dir, err)
		}
		t.Skipf("shared corpus missing at %s", dir)
	}
	return dir
}
