package cli

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/tfscan/tfscan/cmd/tfscan/internal/scan"
)

// runVectors implements `tfscan vectors PATH --target T -o DIR` through
// scan.Vectors, which says what it writes.
func runVectors(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("vectors", e.stderr)
	var f parityFlags
	f.register(fs)
	out := fs.String("o", "", "output `DIR` for the vectors (required)")
	paths, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(paths) != 1 {
		return usageErrorf("vectors: want exactly one model path (tfscan vectors PATH --target T -o DIR)")
	}
	if len(f.targets) != 1 {
		return usageErrorf("vectors: want exactly one --target")
	}
	if *out == "" {
		return usageErrorf("vectors: -o DIR is required")
	}
	if err := f.check(); err != nil {
		return err
	}
	ts, err := f.resolveTargets(e)
	if err != nil {
		return err
	}
	dir := *out
	if !filepath.IsAbs(dir) {
		dir = joinWD(e, dir)
	}
	vecs, nodes, err := scan.Vectors(ctx, scan.VectorsOptions{Load: f.load(e, paths[0]), Target: ts.List[0], Dir: *out, DirPath: dir})
	if err != nil {
		return appError(err)
	}
	fmt.Fprintf(e.stderr, "%d vector(s) for %d uncovered node(s) written to %s\n", vecs, nodes, *out)
	return nil
}
