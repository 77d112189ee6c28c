// Package explain is the orchestrator behind `tfscan explain`: it reads a
// real run's log (tflog), scans the model for the target as `tfscan scan`
// does, and maps every message onto the model and onto what tfscan knows
// about it: the node, its prediction, the cause and the fixes. Like scan, it
// prints nothing and knows nothing of flags or exit codes.
package explain

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"sort"

	"github.com/tfscan/tfscan/cmd/tfscan/internal/scan"
	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/tflog"
)

// Options select the log, the model and the target.
type Options struct {
	// Log is a log file, or "-" for Stdin.
	Log   string
	Stdin io.Reader
	// Model is the model the log's run loaded; Target the target it ran on.
	Model  string
	Target string
	// Registries are --registry files (packs, dumps, learned packs).
	Registries []string
	Signature  string
	Tags       []string
	Version    string
	Placement  scan.PlacementOptions
	// Stack are the target stack's settings the run used (--precision-mode,
	// --stack-option); empty: the pack's defaults.
	Stack coverage.StackSettings
	// RewriteFixes names, for a node without a kernel, the `tfscan
	// rewrite` command lines that would make it run on the target, planned
	// with the settings above as rewrite plans (scan.Scanned.RewriteFixes);
	// each becomes a fix of kind reports.FixRewrite. Planning takes time,
	// so it is asked for.
	RewriteFixes bool
}

// LogError is a log that could not be read.
type LogError struct {
	Path string
	Err  error
}

func (e *LogError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *LogError) Unwrap() error { return e.Err }

// Log is a parsed log with its identity.
type Log struct {
	*tflog.Log
	Path   string
	SHA256 string
}

// ReadLog reads and parses a log file ("-" is stdin), hashing the bytes as
// they stream by.
func ReadLog(path string, stdin io.Reader) (*Log, error) {
	var r io.Reader = stdin
	if path != "-" {
		st, err := os.Stat(path)
		if err != nil {
			return nil, &LogError{path, bare(err)}
		}
		if st.IsDir() {
			return nil, &LogError{path, errors.New("is a directory, not a log file")}
		}
		f, err := os.Open(path)
		if err != nil {
			return nil, &LogError{path, bare(err)}
		}
		defer f.Close()
		r = f
	}
	if r == nil {
		return nil, &LogError{path, errors.New("no standard input")}
	}
	h := sha256.New()
	l, err := tflog.Parse(io.TeeReader(r, h))
	if err != nil {
		return nil, &LogError{path, err}
	}
	// Parse may stop before EOF on a bad gzip stream only with an error;
	// drain what is left so the hash is the file's.
	if _, err := io.Copy(h, r); err != nil {
		return nil, &LogError{path, err}
	}
	name := path
	if path == "-" {
		name = "stdin"
	}
	return &Log{Log: l, Path: name, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// bare drops the path an *fs.PathError repeats (LogError names the file).
func bare(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Run explains log against the model on the target.
func Run(ctx context.Context, log *Log, opts Options) (*reports.ExplainReport, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ts, err := scan.ResolveTargets([]string{opts.Target}, opts.Registries)
	if err != nil {
		return nil, err
	}
	if err := ts.ConfigureStacks(opts.Stack); err != nil {
		return nil, err
	}
	sm, err := scan.ScanModel(opts.Model, ts, scan.Options{
		Targets: []string{opts.Target}, Signature: opts.Signature, Tags: opts.Tags,
		Version: opts.Version, Placement: opts.Placement, Stack: opts.Stack,
	})
	if err != nil {
		return nil, err
	}
	rm, g := sm.Model, sm.Graph
	if len(rm.Targets) != 1 {
		return nil, fmt.Errorf("internal error: %d target results for one target", len(rm.Targets))
	}
	x := newExplainer(g, rm.Targets[0], opts)
	if opts.RewriteFixes {
		x.rewriteFixes = sm.RewriteFixes
	}
	rep := &reports.ExplainReport{
		SchemaVersion: reports.ExplainSchemaVersion,
		Tool:          reports.Tool{Name: "tfscan", Version: opts.Version},
		Log: reports.ExplainLog{Path: log.Path, SHA256: log.SHA256, Lines: log.Lines,
			CutLines: log.CutLines, UnparsedAt: log.UnparsedLines, Dropped: log.Dropped},
		Model:         opts.Model,
		Target:        opts.Target,
		Registry:      rm.Targets[0].Registry,
		Explanations:  []reports.Explanation{},
		UnparsedLines: log.Unparsed,
	}
	var all []reports.Explanation
	merged := map[string]int{}
	add := func(e reports.Explanation) {
		key := e.MessageKind + "\x00" + e.Node + "\x00" + e.LoggedNode + "\x00" + e.Op
		if i, ok := merged[key]; ok && e.Node+e.LoggedNode+e.Op != "" {
			all[i].Count += e.Count
			return
		}
		merged[key] = len(all)
		all = append(all, e)
	}
	for _, m := range log.Messages {
		add(x.message(m))
	}
	for _, p := range log.Placements {
		if e, ok := x.placement(p, false, &rep.Summary); ok {
			add(e)
		}
	}
	for _, p := range log.Eager {
		if e, ok := x.placement(p, true, &rep.Summary); ok {
			add(e)
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Line < all[j].Line })
	for _, e := range all {
		rep.Summary.Messages++
		if e.Found != nil && !*e.Found {
			rep.Summary.NotFound++
		}
		switch {
		case e.Agrees == nil:
			rep.Summary.Unassessed++
		case *e.Agrees:
			rep.Summary.Agree++
		default:
			rep.Summary.Disagree++
		}
		if e.Fixes == nil {
			e.Fixes = []reports.Fix{}
		}
		if e.DTypes == nil {
			e.DTypes = []string{}
		}
		rep.Explanations = append(rep.Explanations, e)
	}
	return rep, nil
}

// explainer holds what one model's scan says, indexed for the messages.
type explainer struct {
	g       *graph.Graph
	rt      *reports.Target
	opts    Options
	devType string
	byName  map[string][]*graph.Node
	byOp    map[string][]*graph.Node
	path    map[*graph.Node]string
	result  map[string]*reports.NodeResult
	// groups are the uncovered groups by op and dtypes, for Supported.
	groups map[string]*reports.Uncovered
	// rewriteFixes, when set, names the rewrites that fix a node
	// (Options.RewriteFixes).
	rewriteFixes func(*graph.Node) []reports.Fix
}

func newExplainer(g *graph.Graph, rt *reports.Target, opts Options) *explainer {
	x := &explainer{g: g, rt: rt, opts: opts, devType: rt.Registry.DeviceType,
		byName: map[string][]*graph.Node{}, byOp: map[string][]*graph.Node{},
		path: map[*graph.Node]string{}, result: map[string]*reports.NodeResult{},
		groups: map[string]*reports.Uncovered{}}
	for i := range rt.Nodes {
		x.result[rt.Nodes[i].Path] = &rt.Nodes[i]
	}
	for _, n := range g.Nodes {
		p := n.Path()
		if _, scanned := x.result[p]; !scanned {
			continue // outside the scanned signature
		}
		x.path[n] = p
		x.byName[n.Name] = append(x.byName[n.Name], n)
		x.byOp[n.Op] = append(x.byOp[n.Op], n)
	}
	for _, ns := range x.byName {
		x.order(ns)
	}
	for _, ns := range x.byOp {
		x.order(ns)
	}
	for i := range rt.Uncovered {
		u := &rt.Uncovered[i]
		x.groups[groupKey(u.Op, u.DTypes)] = u
	}
	return x
}

func groupKey(op string, dtypes []string) string {
	return op + "\x00" + fmt.Sprint(dtypes)
}

// order puts the nodes a message most likely means first: reachable ones,
// then top-level ones, then by path.
func (x *explainer) order(ns []*graph.Node) {
	sort.SliceStable(ns, func(i, j int) bool {
		a, b := ns[i], ns[j]
		if a.Reachable != b.Reachable {
			return a.Reachable
		}
		if (a.Func == nil) != (b.Func == nil) {
			return a.Func == nil
		}
		return x.path[a] < x.path[b]
	})
}

// maxOtherNodes bounds Explanation.OtherNodes.
const maxOtherNodes = 5

// setNodes fills the node fields of e from the matched nodes (best first).
func (x *explainer) setNodes(e *reports.Explanation, ns []*graph.Node) {
	found := len(ns) > 0
	e.Found = &found
	if !found {
		return
	}
	e.Node = x.path[ns[0]]
	if e.LoggedNode == ns[0].Name || e.LoggedNode == e.Node {
		e.LoggedNode = ""
	}
	e.Op = ns[0].Op
	e.DTypes = ns[0].DTypes()
	if len(ns) > 1 {
		e.NodesMatched = len(ns)
		for _, n := range ns[1:min(len(ns), 1+maxOtherNodes)] {
			e.OtherNodes = append(e.OtherNodes, x.path[n])
		}
	}
	r := x.result[e.Node]
	p := &reports.ExplainPrediction{Reason: r.Reason, Device: r.Device, Phase: r.Phase}
	if u := x.groups[groupKey(r.Op, r.DTypes)]; u != nil && u.Reason == r.Reason {
		p.Supported = u.Supported
	}
	if len(r.Reasons) > 0 {
		p.Detail = r.Reasons[0]
	}
	e.Prediction = p
}

// covered says whether a coverage reason means the node runs on the target
// (covered, covered_default, function_call, and any later covered_* kind).
func covered(reason string) bool {
	return reason == "function_call" || len(reason) >= 7 && reason[:7] == "covered"
}

// anyUncovered says whether any of ns is predicted without a kernel on the
// target.
func (x *explainer) anyUncovered(ns []*graph.Node) bool {
	return slices.ContainsFunc(ns, func(n *graph.Node) bool { return !covered(x.result[x.path[n]].Reason) })
}

func boolPtr(b bool) *bool { return &b }
