package savedmodel

import (
	"os"
	"path/filepath"
	"testing"
)

// sharedDir returns ../shared (relative to the repository root) joined with
// elem. Without it the test is skipped locally and fails in CI (CI=true),
// where the shared corpus must be present.
func sharedDir(t testing.TB, elem ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{"..", "..", "shared"}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("shared test data missing in CI: %v", err)
		}
		t.Skipf("shared test data missing: %v", err)
	}
	return p
}

// modelsDir is the generated models (go run ./testdata/gen).
func modelsDir(elem ...string) string {
	return filepath.Join(append([]string{"..", "testdata", "models"}, elem...)...)
}

// countNodes returns the nodes of the first meta graph's graph and of its
// functions.
func countNodes(m *Model) (graph, funcs int) {
	gd := m.MetaGraphs[0].Def.GetGraphDef()
	for _, f := range gd.GetLibrary().GetFunction() {
		funcs += len(f.GetNodeDef())
	}
	return len(gd.GetNode()), funcs
}

func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func writeBench(file string, data []byte) error { return os.WriteFile(file, data, 0o644) }
