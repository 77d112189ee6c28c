// Package security finds the ops that make loading or running a model
// unsafe for an untrusted file: ops that read or write files or call back
// into Python. tfscan itself never executes a model while scanning; these
// findings say what TensorFlow would do if someone did.
package security

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/internal/lastfew"
)

// Finding is one unsafe op.
type Finding struct {
	Node    *graph.Node
	Op      string
	Path    string
	Message string
}

// unsafeOps are always reported. saved_model_cli scan denylists WriteFile,
// ReadFile and PrintV2 (tensorflow/python/tools/saved_model_cli.py,
// _OP_DENYLIST); tfscan adds the Python callbacks and file globbing, and
// walks every function body, which saved_model_cli does too since 2.x but
// only by op name.
var unsafeOps = map[string]string{
	"ReadFile":                "reads a file from the host file system",
	"WriteFile":               "writes a file on the host file system",
	"MatchingFiles":           "lists files on the host file system",
	"PyFunc":                  "calls back into Python (arbitrary code)",
	"PyFuncStateless":         "calls back into Python (arbitrary code)",
	"EagerPyFunc":             "calls back into Python (arbitrary code)",
	"ImmutableConst":          "maps a file from the host file system into memory",
	"WriteSummary":            "writes summaries to the file system",
	"CreateSummaryFileWriter": "creates a file writer on the host file system",
}

// checkpointOps touch the file system too, but every saver uses them: they
// are reported only outside the model's saver (the closure of the
// MetaGraphDef's saver_def tensors, called functions included).
var checkpointOps = map[string]bool{
	"Save": true, "SaveV2": true, "SaveSlices": true,
	"Restore": true, "RestoreV2": true, "RestoreSlice": true,
	"MergeV2Checkpoints": true,
}

// Scan returns the unsafe-op findings of g in path order.
func Scan(g *graph.Graph) []Finding {
	if !g.HasAnyOp(mayBeUnsafe) {
		return nil // a graph without any such op is not walked
	}
	saver := saverNodes(g)
	var out []Finding
	// Whether an op can be unsafe is looked up in the maps only when it
	// is not one of the last few ops.
	var recent lastfew.Cache[string, bool]
	for _, n := range g.Nodes {
		may, ok := recent.Get(n.Op)
		if !ok {
			may = mayBeUnsafe(n.Op)
			recent.Put(n.Op, may)
		}
		if !may {
			continue
		}
		switch {
		case unsafeOps[n.Op] != "":
			out = append(out, Finding{Node: n, Op: n.Op, Path: n.Path(), Message: n.Op + " " + unsafeOps[n.Op]})
		case n.Op == "PrintV2" && printsToFile(n):
			out = append(out, Finding{Node: n, Op: n.Op, Path: n.Path(), Message: "PrintV2 writes to a file (" + string(n.Attrs["output_stream"].GetS()) + ")"})
		case checkpointOps[n.Op] && !saver[n]:
			out = append(out, Finding{Node: n, Op: n.Op, Path: n.Path(), Message: fmt.Sprintf("%s reads or writes checkpoint files outside the model's saver", n.Op)})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// mayBeUnsafe tells whether a node of op can be a finding.
func mayBeUnsafe(op string) bool {
	return unsafeOps[op] != "" || op == "PrintV2" || checkpointOps[op]
}

// printsToFile: PrintV2's output_stream is "stderr", "stdout", "log(...)" or
// "file://PATH" (tensorflow/core/kernels/logging_ops.cc).
func printsToFile(n *graph.Node) bool {
	return strings.HasPrefix(string(n.Attrs["output_stream"].GetS()), "file://")
}

// saverNodes is the set of nodes the saver_def needs: its save tensor and
// restore op in the top-level graph, through data and control inputs, and
// every node of the functions they call (TF2 models save through
// __inference__traced_save/_restore functions).
func saverNodes(g *graph.Graph) map[*graph.Node]bool {
	if g.MetaGraph == nil || g.MetaGraph.Def.GetSaverDef() == nil {
		return nil
	}
	sd := g.MetaGraph.Def.GetSaverDef()
	byName := map[string]*graph.Node{}
	for _, n := range g.Nodes[:g.TopLevel] {
		byName[n.Name] = n
	}
	var roots []*graph.Node
	for _, t := range []string{sd.GetSaveTensorName(), sd.GetRestoreOpName(), sd.GetFilenameTensorName()} {
		name, _, _ := graph.ParseTensorName(t)
		if n := byName[name]; n != nil {
			roots = append(roots, n)
		}
	}
	return graph.Closure(roots)
}
