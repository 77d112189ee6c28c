package scan

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
	"github.com/tfscan/tfscan/parity"
)

// VectorsOptions are what `tfscan vectors` captures: the model and its
// inputs, the one target, and the directory (Dir as given, DirPath
// resolved).
type VectorsOptions struct {
	Load         LoadOptions
	Target       Target
	Dir, DirPath string
}

// Vectors is `tfscan vectors PATH --target T -o DIR`: for
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
// It returns how many vectors it wrote, for how many uncovered nodes.
func Vectors(ctx context.Context, o VectorsOptions) (vectors, nodes int, err error) {
	t := o.Target
	lm, err := loadForRun(o.Load)
	if err != nil {
		return 0, 0, err
	}
	reasons := map[*graph.Node]coverage.Reason{}
	for _, n := range lm.graph.Nodes {
		if r := t.Index.Match(n).Reason; !r.Covered() {
			reasons[n] = r
		}
	}
	vecs, missed, err := parity.CaptureVectors(ctx, lm.pm, func(n *graph.Node) bool { _, ok := reasons[n]; return ok }, 0)
	if err != nil {
		return 0, 0, runError(lm.path, err)
	}
	dir := o.DirPath
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, 0, usageErrorf("vectors: %v", err)
	}
	var readme bytes.Buffer
	fmt.Fprintf(&readme, "# Test vectors: %s on %s\n\n", lm.path, t.Name)
	fmt.Fprintf(&readme, "Inputs and expected outputs of the nodes target %s has no kernel for, computed by tfscan's reference kernels\n", t.Name)
	fmt.Fprintf(&readme, "(`tfscan vectors`; %s). Each `.npz` holds `input_<i>` and `output_<i>`; each `.json` the op, dtypes, attrs, shapes and node paths.\n\n", inputsNote(o.Load))
	if len(vecs) == 0 {
		readme.WriteString("No uncovered node ran: nothing to check.\n")
	}
	for i, v := range vecs {
		base := fmt.Sprintf("%03d_%s", i+1, fileSafe(v.Op))
		reason := string(reasons[firstNode(lm.graph, v.Nodes)])
		if err := writeVector(dir, base, v, t.Name, reason); err != nil {
			return 0, 0, usageErrorf("vectors: %v", err)
		}
		fmt.Fprintf(&readme, "- `%s` %s [%s] %s: in %s → out %s; %d node(s), e.g. `%s`\n", base, v.Op, strings.Join(v.DTypes, ","), reason,
			shapesText(v.InputShapes), shapesText(v.OutputShapes), len(v.Nodes), v.Nodes[0])
	}
	if len(missed) > 0 {
		fmt.Fprintf(&readme, "\nUncovered nodes that did not run on these inputs (no vector): %d, e.g. `%s`\n", len(missed), missed[0])
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), readme.Bytes(), 0o644); err != nil {
		return 0, 0, usageErrorf("vectors: %v", err)
	}
	return len(vecs), len(reasons) - len(missed), nil
}

func inputsNote(f LoadOptions) string {
	if f.Inputs != "" {
		return "inputs from " + f.Inputs
	}
	return fmt.Sprintf("seeded inputs, --seed %d --dim %d", f.Seed, f.Dim)
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
