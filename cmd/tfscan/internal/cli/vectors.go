package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/dtype"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/kernels"
	"github.com/tfscan/tfscan/kernels/npz"
	"github.com/tfscan/tfscan/kernels/parity"
)

// runVectors implements `tfscan vectors PATH --target T -o DIR`: for
// every node the target has no kernel for, it runs the model once on the
// same inputs as `tfscan run` with the reference kernels and writes what
// the node received and returned, one vector per distinct (op, dtypes,
// attrs, shapes):
//
//	DIR/<n>_<op>.npz   input_0, input_1, ... and output_0, ... arrays
//	DIR/<n>_<op>.json  op, dtypes, attrs, shapes, the node paths it covers
//	DIR/README.md      one line per vector
//
// so that a vendor's kernel team can check a new kernel on the device.
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
	t := ts.List[0]
	lm, err := loadForRun(e, paths[0], &f)
	if err != nil {
		return err
	}
	reasons := map[*graph.Node]coverage.Reason{}
	for _, n := range lm.graph.Nodes {
		if r := t.Index.Match(n).Reason; !r.Covered() {
			reasons[n] = r
		}
	}
	vecs, missed, err := parity.CaptureVectors(ctx, lm.pm, func(n *graph.Node) bool { _, ok := reasons[n]; return ok }, 0)
	if err != nil {
		return runError(lm.path, err)
	}
	dir := *out
	if !filepath.IsAbs(dir) {
		dir = joinWD(e, dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usageErrorf("vectors: %v", err)
	}
	var readme bytes.Buffer
	fmt.Fprintf(&readme, "# Test vectors: %s on %s\n\n", lm.path, t.Name)
	fmt.Fprintf(&readme, "Inputs and expected outputs of the nodes target %s has no kernel for, computed by tfscan's reference kernels\n", t.Name)
	fmt.Fprintf(&readme, "(`tfscan vectors`; %s). Each `.npz` holds `input_<i>` and `output_<i>`; each `.json` the op, dtypes, attrs, shapes and node paths.\n\n", inputsNote(&f))
	if len(vecs) == 0 {
		readme.WriteString("No uncovered node ran: nothing to check.\n")
	}
	for i, v := range vecs {
		base := fmt.Sprintf("%03d_%s", i+1, fileSafe(v.Op))
		reason := string(reasons[firstNode(lm.graph, v.Nodes)])
		if err := writeVector(dir, base, v, t.Name, reason); err != nil {
			return usageErrorf("vectors: %v", err)
		}
		fmt.Fprintf(&readme, "- `%s` %s [%s] %s: in %s → out %s; %d node(s), e.g. `%s`\n", base, v.Op, strings.Join(v.DTypes, ","), reason,
			shapesText(v.InputShapes), shapesText(v.OutputShapes), len(v.Nodes), v.Nodes[0])
	}
	if len(missed) > 0 {
		fmt.Fprintf(&readme, "\nUncovered nodes that did not run on these inputs (no vector): %d, e.g. `%s`\n", len(missed), missed[0])
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), readme.Bytes(), 0o644); err != nil {
		return usageErrorf("vectors: %v", err)
	}
	fmt.Fprintf(e.stderr, "%d vector(s) for %d uncovered node(s) written to %s\n", len(vecs), len(reasons)-len(missed), *out)
	return nil
}

// check validates the flags that need no model.
func (f *parityFlags) check() error {
	if f.dim <= 0 {
		return usageErrorf("--dim must be positive")
	}
	if f.seed > 1<<32-1 {
		return usageErrorf("--seed must fit in 32 bits")
	}
	return nil
}

func inputsNote(f *parityFlags) string {
	if f.inputs != "" {
		return "inputs from " + f.inputs
	}
	return fmt.Sprintf("seeded inputs, --seed %d --dim %d", f.seed, f.dim)
}

func firstNode(g *graph.Graph, paths []string) *graph.Node {
	for _, n := range g.Nodes {
		if n.Path() == paths[0] {
			return n
		}
	}
	return nil
}

// fileSafe keeps letters, digits, '_' and '-' of an op name.
func fileSafe(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

func shapesText(shapes [][]int) string {
	parts := make([]string, len(shapes))
	for i, s := range shapes {
		parts[i] = strings.ReplaceAll(fmt.Sprint(s), " ", ",")
	}
	return strings.Join(parts, " ")
}

// vectorTensor describes one array of a vector in its JSON file.
type vectorTensor struct {
	Name  string `json:"name"`
	DType string `json:"dtype"`
	Shape []int  `json:"shape"`
	// InNPZ is false for a tensor .npy cannot hold (strings, resources,
	// dead outputs).
	InNPZ bool `json:"in_npz"`
}

type vectorFile struct {
	Op      string         `json:"op"`
	Target  string         `json:"target"`
	Reason  string         `json:"reason"`
	DTypes  []string       `json:"dtypes"`
	Attrs   map[string]any `json:"attrs"`
	Inputs  []vectorTensor `json:"inputs"`
	Outputs []vectorTensor `json:"outputs"`
	Nodes   []string       `json:"nodes"`
	NPZ     string         `json:"npz"`
}

func writeVector(dir, base string, v *parity.Vector, target, reason string) error {
	arrays := map[string]*kernels.Tensor{}
	vf := vectorFile{Op: v.Op, Target: target, Reason: reason, DTypes: v.DTypes, Attrs: v.Attrs, Nodes: v.Nodes, NPZ: base + ".npz",
		Inputs: []vectorTensor{}, Outputs: []vectorTensor{}}
	add := func(list *[]vectorTensor, name string, t *kernels.Tensor) {
		vt := vectorTensor{Name: name, DType: dtype.Name(t.DType), Shape: append([]int{}, t.Shape...)}
		if npz.WriteNPY(io.Discard, t) == nil {
			arrays[name] = t
			vt.InNPZ = true
		}
		*list = append(*list, vt)
	}
	for i, t := range v.Inputs {
		add(&vf.Inputs, fmt.Sprintf("input_%d", i), t)
	}
	for i, t := range v.Outputs {
		add(&vf.Outputs, fmt.Sprintf("output_%d", i), t)
	}
	if err := npz.Write(filepath.Join(dir, base+".npz"), arrays); err != nil {
		return err
	}
	js, err := json.MarshalIndent(vf, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, base+".json"), append(js, '\n'), 0o644)
}
