// Command opdefgen regenerates graph/opdefs/ops.pb and
// graph/opdefs/zz_generated.go from a TensorFlow source tree; with -check it
// regenerates in memory and fails when the committed files differ.
//
//	go generate ./graph/...        # from the repo root
//	make opdefs-check
//
// The tree defaults to the Go module cache copy of
// github.com/tensorflow/tensorflow@v2.15.0+incompatible (fetch it with
// `go mod download github.com/tensorflow/tensorflow@v2.15.0+incompatible`).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/tfscan/tfscan/graph/internal/opdefgen"
)

const tfModule = "github.com/tensorflow/tensorflow@v2.15.0+incompatible"

func main() {
	tf := flag.String("tf", "", "TensorFlow source tree (default: $GOMODCACHE/"+tfModule+")")
	out := flag.String("o", ".", "output directory (graph/opdefs)")
	check := flag.Bool("check", false, "compare with the files in -o instead of writing them")
	flag.Parse()
	if err := run(*tf, *out, *check); err != nil {
		fmt.Fprintln(os.Stderr, "opdefgen:", err)
		os.Exit(1)
	}
}

func run(tf, out string, check bool) error {
	if tf == "" {
		cache, err := exec.Command("go", "env", "GOMODCACHE").Output()
		if err != nil {
			return fmt.Errorf("go env GOMODCACHE: %w", err)
		}
		tf = filepath.Join(strings.TrimSpace(string(cache)), tfModule)
	}
	if _, err := os.Stat(filepath.Join(tf, opdefgen.OpsPbtxt)); err != nil {
		return fmt.Errorf("no TensorFlow tree at %s (go mod download %s): %w", tf, tfModule, err)
	}
	res, err := opdefgen.Generate(tf)
	if err != nil {
		return err
	}
	pb, err := opdefgen.Encode(res)
	if err != nil {
		return err
	}
	files := map[string][]byte{"ops.pb": pb, "zz_generated.go": opdefgen.GoSource(res)}
	for name, want := range files {
		p := filepath.Join(out, name)
		if check {
			got, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if !bytes.Equal(got, want) {
				return fmt.Errorf("%s is stale: run go generate ./graph/...", p)
			}
			continue
		}
		if err := os.WriteFile(p, want, 0o644); err != nil {
			return err
		}
	}
	return nil
}
