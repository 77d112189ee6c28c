// Package scan is tfscan's application layer: the orchestrator behind
// `tfscan scan` and `tfscan check` (load → graph → coverage → placement →
// the report model), and what `inspect`, `run`, `parity`, `vectors` and
// `rewrite` do (Inspect, RunModel, Parity, Vectors, Rewrite). It and its
// siblings registry (`tfscan registry`) and explain import the domain
// packages for the command line; it prints nothing and knows nothing of
// flags or exit codes (its errors say which kind they are: UsageError,
// ModelError, InputError).
package scan

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	opdefpb "github.com/wamuir/graft/tensorflow/core/framework/op_def_go_proto"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/coverage/placement"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/graph/shape"
	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/savedmodel"
	"github.com/tfscan/tfscan/savedmodel/bundle"
	"github.com/tfscan/tfscan/security"
	"github.com/tfscan/tfscan/tflog"
	"github.com/tfscan/tfscan/training"
)

// Options select what to scan and against what.
type Options struct {
	// Paths are model files or directories; a directory that is not itself
	// a model is searched for models.
	Paths []string
	// Targets are built-in pack names or names of packs from Registries.
	Targets []string
	// Registries are --registry files: pack files or raw live dumps.
	Registries []string
	// Signature restricts the scan to what one signature needs.
	Signature string
	// Fetches are tensor or node names ("node:1", "node" for output 0) the
	// placement fetches instead of the signature's outputs or, without
	// signatures, the assumed outputs. A name a model lacks is that model's
	// error. They change the I/O copies only, not which nodes are scanned.
	Fetches []string
	// Tags select the MetaGraph of a SavedModel (default: "serve", else the first).
	Tags []string
	// Jobs is how many models are scanned at once; 0 means one per CPU.
	Jobs int
	// Progress, when set, is told after each model.
	Progress func(done, total int)
	// FailFast stops at the first model that cannot be scanned, in path
	// order, instead of scanning the rest.
	FailFast bool
	// Version is the tool version recorded in the report.
	Version string
	// Phases are the --phase values: the phases whose nodes coverage,
	// fallback, islands, wishlist, partitions and transfers count (see
	// graph.Phase); none means the step.
	Phases []string
	// From names the pack (built-in or from Registries) the model runs on
	// today; every target gets a Delta against it. "" or "none": no
	// comparison.
	From string
	// Stack are the stack settings (precision mode, stack options) for the
	// targets whose packs declare them.
	Stack coverage.StackSettings
	// AllNodes lists every node of every target in the report; by default
	// only those that need attention (reports.Target.NeedsAttention).
	AllNodes bool
	// Shard, when set, scans only that share of the models found
	// (ParseShard, inShard).
	Shard *reports.Shard
	// Cache, when set, is the --cache directory: a model whose files,
	// tool, packs and result-changing options are unchanged since a run
	// stored its results there is not scanned again (resultCache).
	// CacheDone, when set, is told what the cache did.
	Cache     string
	CacheDone func(CacheStats)

	// RewritePreview asks, per model and target, how many fallback nodes
	// `tfscan rewrite` would remove (check's mention of it).
	RewritePreview bool

	Placement PlacementOptions

	// onScan, when set, is handed each model's graph once it is built,
	// with the options its scan runs with (ScanModel).
	onScan func(*graph.Graph, Options)
	// decoded is the model Run decodes ahead (decodeAhead), nil for none.
	decoded *decodedAhead
	// reserved is the Scratch the scan of a model reserves while it builds
	// the graph (reserveAhead), nil for none.
	reserved *reservedScratch
	// listEvery makes a scan that lists the nodes needing attention list
	// every node first and keep those after, as --nodes all lists them,
	// instead of choosing them as it matches them (tests compare the
	// two).
	listEvery bool
	// checkpoint is the model's checkpoint index (scanModel opens it once
	// for every target's placement); checkpointNote, when it could not be
	// read, says so in every placement's warnings.
	checkpoint     *bundle.Reader
	checkpointNote string
	// devicesOnly asks a placement for the nodes' devices and the
	// transfers alone (placement.Options.DevicesOnly): what the --from
	// source's comparison reads of it.
	devicesOnly bool
	// beside is what a placement running at the same time as another
	// uses instead of the model's own (sharedAhead); nil for none.
	beside *besideState
	// oneAtATime makes each step of a scan's placements when it is
	// needed, one after the other: nothing shared is made ahead
	// (sharedAhead), and the source is not placed beside the target
	// where it would be (placesBeside); tests compare the two.
	oneAtATime bool
}

// UsageError is a problem with what was asked (an unknown target, a bad
// registry file), as opposed to a model that cannot be read.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// ModelError is a model that could not be read or analysed.
type ModelError struct {
	Path string
	Err  error
}

func (e *ModelError) Error() string {
	var le *savedmodel.Error
	if errors.As(e.Err, &le) {
		return e.Err.Error() // already names the file
	}
	msg := e.Err.Error()
	if strings.HasPrefix(msg, e.Path) {
		return msg // names the file inside the model path already
	}
	return e.Path + ": " + msg
}
func (e *ModelError) Unwrap() error { return e.Err }

// Run scans every model against every target and returns the report, models
// sorted by path. A model that cannot be read or analysed does not stop the
// others: it becomes an entry of the report's Errors (its Message is the
// ModelError's one line), and the rest are scanned. With FailFast the scan
// stops at the first such model in path order: the report then holds the
// models before it and its error, whatever order the workers finished in.
// The error result is for what stops the whole run: a UsageError (before
// any model is read) or the context's error.
func Run(ctx context.Context, opts Options) (*reports.Report, error) {
	opts.decoded = decodeAhead(opts)
	defer opts.decoded.drop()
	readPacksAhead(opts)
	targets, err := ResolveTargets(opts.Targets, opts.Registries)
	if err != nil {
		return nil, err
	}
	counted, err := ParsePhases(opts.Phases)
	if err != nil {
		return nil, &UsageError{err}
	}
	if err := targets.SetFrom(opts.From); err != nil {
		return nil, err
	}
	if err := targets.ConfigureStacks(opts.Stack); err != nil {
		return nil, err
	}
	all, keys, failed, err := expandPaths(opts.Paths)
	if err != nil {
		return nil, err
	}
	paths := all[:0:0]
	for _, p := range all {
		if inShard(keys[p], opts.Shard) {
			paths = append(paths, p)
		}
	}
	recorded, err := recordOptions(opts, targets, counted)
	if err != nil {
		return nil, err
	}
	var rc *resultCache
	if opts.Cache != "" {
		if rc, err = newResultCache(opts.Cache, opts, recorded); err != nil {
			return nil, err
		}
	}
	log, err := readPlacementLog(opts.Placement.CompareLog)
	if err != nil {
		return nil, err
	}
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	models := make([]*reports.Model, len(paths))
	errs := make([]error, len(paths))
	// stop is the index of the first failed path in path order under
	// FailFast (len(paths) while none failed); paths after it are skipped.
	var stop atomic.Int64
	stop.Store(int64(len(paths)))
	fail := func(i int, err error) {
		errs[i] = err
		for opts.FailFast {
			cur := stop.Load()
			if int64(i) >= cur || stop.CompareAndSwap(cur, int64(i)) {
				return
			}
		}
	}
	skip := func(i int) bool { return opts.FailFast && int64(i) > stop.Load() }
	for i, p := range paths {
		if err := failed[p]; err != nil {
			fail(i, err)
		}
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		done int
	)
	work := make(chan int)
	for w := 0; w < min(jobs, len(paths)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if ctx.Err() != nil || skip(i) {
					continue
				}
				scanOne := func() (*reports.Model, error) { return scanModel(paths[i], targets, counted, opts, log) }
				var m *reports.Model
				var err error
				if rc != nil {
					m, err = rc.scan(paths[i], scanOne)
				} else {
					m, err = scanOne()
				}
				if err != nil {
					fail(i, err)
				}
				models[i] = m
				if opts.Progress != nil {
					mu.Lock()
					done++
					opts.Progress(done, len(paths))
					mu.Unlock()
				}
			}
		}()
	}
	for i := range paths {
		if skip(i) {
			break
		}
		if errs[i] == nil {
			work <- i
		}
	}
	close(work)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if rc != nil && opts.CacheDone != nil {
		opts.CacheDone(rc.stats())
	}
	rep := &reports.Report{
		SchemaVersion: reports.SchemaVersion,
		Tool:          reports.Tool{Name: "tfscan", Version: opts.Version},
		Options:       recorded,
		Models:        []*reports.Model{},
	}
	for i := range paths {
		if skip(i) {
			break
		}
		if errs[i] != nil {
			rep.Errors = append(rep.Errors, scanError(paths[i], errs[i]))
			continue
		}
		rep.Models = append(rep.Models, models[i])
	}
	return rep, nil
}

// scanError is the report's entry for a model that could not be scanned.
func scanError(path string, err error) reports.ScanError {
	e := reports.ScanError{Path: path, Message: err.Error(), Class: reports.ErrorClassModel}
	var se *savedmodel.Error
	if errors.As(err, &se) && se.File != path {
		e.File = se.File
	}
	return e
}

// Target is a resolved --target: its pack indexed for matching.
type Target struct {
	Name  string
	Index *coverage.Index
	// Host is the CPU of the target's own TensorFlow build when its pack
	// records one (a live dump); nil means TF 2.15's built-in cpu pack.
	Host *coverage.Index
}

// Targets bundles the resolved targets with the source they are compared
// with (--from) and the packs placement needs: the CPU that soft placement
// falls back to, and the GPU a model comes from (for fusion awareness).
// Those two are indexed only when placement runs, each once.
type Targets struct {
	List []Target
	// From is the source the model runs on today; nil with --from none.
	From      *Target
	defaults  *coverage.Pack
	fromFiles map[string]*coverage.Pack
	// learned are the packs learned from logs, merged over the targets'
	// packs and the host CPU's (not over the source's).
	learned     []*coverage.Pack
	cpu, source func() (*coverage.Index, error)
	// opDefs are the vendor OpDefs the targets' packs carry (live dumps).
	opDefs []*opdefpb.OpDef
}

// CPU is the built-in cpu pack, indexed.
func (ts *Targets) CPU() (*coverage.Index, error) {
	return ts.cpu()
}

// CPUFor is the CPU that soft placement falls back to on target t: the
// target's own TensorFlow build's CPU when its pack records it (a live
// dump), otherwise the built-in cpu pack.
func (ts *Targets) CPUFor(t Target) (*coverage.Index, error) {
	if t.Host != nil {
		return t.Host, nil
	}
	return ts.CPU()
}

// OpDefs are the extra OpDefs the targets' packs carry for ops tfscan's
// embedded TensorFlow OpDefs lack (vendor custom ops from live dumps).
func (ts *Targets) OpDefs() []*opdefpb.OpDef { return ts.opDefs }

// Source is the GPU a model is assumed to come from, indexed: the --from
// pack, else the built-in cuda pack.
func (ts *Targets) Source() (*coverage.Index, error) {
	if ts.From != nil {
		return ts.From.Index, nil
	}
	return ts.source()
}

// SetFrom resolves the source the targets are compared with, like a
// target; "" and "none" mean no comparison.
func (ts *Targets) SetFrom(name string) error {
	if name == "" || name == "none" {
		ts.From = nil
		return nil
	}
	p, err := ts.pack(name, "--from")
	if err != nil {
		return err
	}
	ts.From = &Target{Name: name, Index: coverage.NewIndex(p, ts.defaults)}
	return nil
}

// pack finds a pack by name: from the registry files first (a pack file by
// its name, a raw dump by its device type), then the built-in packs. what
// names the flag in errors.
func (ts *Targets) pack(name, what string) (*coverage.Pack, error) {
	if p := ts.fromFiles[name]; p != nil {
		return p, nil
	}
	if i := slices.IndexFunc(ts.learned, func(l *coverage.Pack) bool { return l.Name == name }); i >= 0 {
		return nil, &UsageError{fmt.Errorf("%s %q is a pack learned from a log (%s): it corrects a target's pack rather than being one; name the target it corrects with --target and keep it in --registry", what, name, ts.learned[i].Source)}
	}
	p, err := coverage.BuiltinPackLazy(name)
	if err == nil {
		return p, nil
	}
	for _, d := range coverage.DumpOnlyStacks() {
		if d.Name == name {
			return nil, &UsageError{fmt.Errorf("%s %q (%s) has no public kernel registry: %s", what, name, d.Vendor, d.NextStep())}
		}
	}
	return nil, &UsageError{fmt.Errorf("unknown %s %q: %v (built-in packs: %s; or pass --registry FILE)", what, name, err, strings.Join(builtinNames(), ", "))}
}

// withFrom is the targets and, when it is none of them, the source: every
// pack the nodes are matched against.
func (ts *Targets) withFrom() []Target {
	if ts.From == nil || ts.fromTarget() >= 0 {
		return ts.List
	}
	return append(ts.List[:len(ts.List):len(ts.List)], *ts.From)
}

// fromTarget is the index of the target that is also the source, or -1.
func (ts *Targets) fromTarget() int {
	for i, t := range ts.List {
		if ts.From != nil && t.Name == ts.From.Name {
			return i
		}
	}
	return -1
}

// ResolveTargets turns target names into indexed packs: packs from registry
// files first (a pack file by its name, a raw dump by its device type),
// then the built-in packs.
func ResolveTargets(names, registryFiles []string) (*Targets, error) {
	if len(names) == 0 {
		return nil, &UsageError{errors.New("no --target given (see 'tfscan registry list')")}
	}
	defaults, err := coverage.BuiltinPackLazy("default")
	if err != nil {
		return nil, err
	}
	fromFiles := map[string]*coverage.Pack{}
	// Learned packs (tfscan explain --learn-registry) are corrections merged
	// over every target's pack and over the host CPU's, never targets.
	var learned []*coverage.Pack
	for _, f := range registryFiles {
		packs, err := coverage.LoadRegistryFile(f)
		if err != nil {
			return nil, &UsageError{err}
		}
		for _, p := range packs {
			if p.Method == coverage.MethodLearnedFromLog {
				learned = append(learned, p)
				continue
			}
			fromFiles[p.Name] = p
		}
	}
	ts := &Targets{defaults: defaults, fromFiles: fromFiles, learned: learned}
	seen := map[string]bool{}
	for _, name := range names {
		if seen[name] {
			continue
		}
		seen[name] = true
		p, err := ts.pack(name, "target")
		if err != nil {
			return nil, err
		}
		p = coverage.MergeLearned(p, learned, defaults)
		t := Target{Name: name, Index: coverage.NewIndex(p, defaults)}
		if hp := p.HostPack(); hp != nil {
			t.Host = coverage.NewIndex(coverage.MergeLearned(hp, learned, defaults), defaults)
		}
		ts.opDefs = append(ts.opDefs, p.OpDefs...)
		ts.List = append(ts.List, t)
	}
	ts.cpu = sync.OnceValues(func() (*coverage.Index, error) {
		cpu, err := coverage.BuiltinPackLazy("cpu")
		if err != nil {
			return nil, err
		}
		return coverage.NewIndex(coverage.MergeLearned(cpu, learned, defaults), defaults), nil
	})
	ts.source = sync.OnceValues(func() (*coverage.Index, error) {
		cuda, err := coverage.BuiltinPackLazy("cuda")
		if err != nil {
			return nil, err
		}
		return coverage.NewIndex(cuda, defaults), nil
	})
	// The packs' own stack defaults; ConfigureStacks applies user settings.
	if err := ts.ConfigureStacks(coverage.StackSettings{}); err != nil {
		return nil, err
	}
	return ts, nil
}

func builtinNames() []string {
	packs, err := coverage.BuiltinPacks()
	if err != nil {
		return nil
	}
	var names []string
	for _, p := range packs {
		if p.Name != "default" {
			names = append(names, p.Name)
		}
	}
	return names
}

// ExpandPaths replaces each directory that is not itself a model by the
// models found under it. The result is sorted and free of duplicates. A path
// that does not exist, or a directory without models, is in the result too,
// with its ModelError in failed, so that the other paths are still scanned;
// only an empty list is an error (a UsageError).
func ExpandPaths(paths []string) (found []string, failed map[string]error, err error) {
	found, _, failed, err = expandPaths(paths)
	return found, failed, err
}

// expandPaths is ExpandPaths that also returns each path's shard key
// (shardKey, from the first path given that finds it).
func expandPaths(paths []string) (found []string, keys map[string]string, failed map[string]error, err error) {
	if len(paths) == 0 {
		return nil, nil, nil, &UsageError{errors.New("no model path given")}
	}
	keys = map[string]string{}
	failed = map[string]error{}
	add := func(root, p string) {
		if _, ok := keys[p]; !ok {
			keys[p] = shardKey(root, p)
		}
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			add(p, p)
			failed[p] = &ModelError{Path: p, Err: errors.New("no such file or directory")}
			continue
		}
		if !st.IsDir() {
			add(p, p)
			continue
		}
		models, err := savedmodel.Discover(p)
		if err == nil && len(models) == 0 {
			err = savedmodel.NoModelError(p)
		}
		if err != nil {
			add(p, p)
			failed[p] = &ModelError{Path: p, Err: err}
			continue
		}
		for _, f := range models {
			add(p, f)
		}
	}
	found = make([]string, 0, len(keys))
	for p := range keys {
		found = append(found, p)
	}
	sort.Strings(found)
	return found, keys, failed, nil
}

// Load reads one model and builds the graph of the selected MetaGraph.
func Load(path string, tags []string) (*savedmodel.Model, *graph.Graph, error) {
	return LoadWith(path, tags, nil)
}

// LoadWith is Load with extra OpDefs for ops that neither the model nor
// tfscan's embedded registry knows (graph.BuildWith).
func LoadWith(path string, tags []string, extra []*opdefpb.OpDef) (*savedmodel.Model, *graph.Graph, error) {
	m, err := decodeModel(path)
	if err != nil {
		return nil, nil, err
	}
	return buildModel(path, m, tags, extra)
}

// decodeModel reads the model at path (LoadWith's first half), which
// needs no target.
func decodeModel(path string) (*savedmodel.Model, error) {
	m, err := savedmodel.Load(path)
	if errors.Is(err, savedmodel.ErrNoModel) {
		// A directory holding one model file (a GraphDef, a .meta) is
		// that model; with several the user must name one.
		if found, derr := savedmodel.Discover(path); derr == nil && len(found) == 1 {
			m, err = savedmodel.Load(found[0])
		} else if len(found) > 1 {
			err = fmt.Errorf("%s holds %d models (%s, ...): name one of them", path, len(found), found[0])
		}
	}
	if err != nil {
		return nil, &ModelError{Path: path, Err: err}
	}
	return m, nil
}

// buildModel builds the graph of m's selected MetaGraph (LoadWith's second
// half).
func buildModel(path string, m *savedmodel.Model, tags []string, extra []*opdefpb.OpDef) (*savedmodel.Model, *graph.Graph, error) {
	mg, err := graph.SelectMetaGraph(m, tags)
	if err != nil {
		return nil, nil, &ModelError{Path: path, Err: err}
	}
	g, err := graph.BuildWith(m, mg, extra)
	if err != nil {
		return nil, nil, &ModelError{Path: path, Err: err}
	}
	return m, g, nil
}

// targetOrder is the order scanModel computes n targets in: the one that
// is the --from source first (first < 0: none is), then the others.
func targetOrder(n, first int) []int {
	order := make([]int, 0, n)
	if first >= 0 {
		order = append(order, first)
	}
	for i := range n {
		if i != first {
			order = append(order, i)
		}
	}
	return order
}

func scanModel(path string, ts *Targets, counted PhaseSet, opts Options, log *tflog.Log) (*reports.Model, error) {
	m, pace, ok, err := opts.decoded.take(path)
	if !ok {
		pace = paceModel(path)
		m, err = decodeModel(path)
	}
	defer pace.end()
	if err != nil {
		return nil, err
	}
	if _, beside, ok := sharesAhead(ts, opts); ok {
		opts.reserved = reserveAhead(m, beside, pace)
	}
	m, g, err := buildModel(path, m, opts.Tags, ts.OpDefs())
	if err != nil {
		return nil, err
	}
	pace.loaded()
	return scanLoaded(path, m, g, ts, counted, opts, log)
}

// scanLoaded scans the loaded model m, whose selected meta graph is g.
func scanLoaded(path string, m *savedmodel.Model, g *graph.Graph, ts *Targets, counted PhaseSet, opts Options, log *tflog.Log) (*reports.Model, error) {
	if !opts.Placement.Disabled {
		// A checkpoint that cannot be read only costs the sizes of what is
		// restored from it: the scan goes on and every placement says so.
		var err error
		if opts.checkpoint, err = shape.OpenCheckpoint(m.VariablesPrefix); err != nil {
			opts.checkpointNote = fmt.Sprintf("checkpoint not read (%v): what the model restores from it has no size", err)
		}
	}
	if opts.onScan != nil {
		opts.onScan(g, opts)
	}
	scope, err := signatureScope(g, opts.Signature)
	if err != nil {
		return nil, &ModelError{Path: path, Err: err}
	}
	rm := &reports.Model{
		Path:      path,
		File:      m.File,
		Format:    string(m.Format),
		Signature: opts.Signature,
		Findings:  []reports.Finding{},
	}
	fetches, err := resolveFetches(g, opts.Fetches)
	if err != nil {
		return nil, &ModelError{Path: path, Err: err}
	}
	if fetches == nil && len(g.Signatures) == 0 {
		for _, n := range g.PossibleOutputs() {
			rm.AssumedOutputs = append(rm.AssumedOutputs, n.Name)
		}
	}
	listed := !opts.AllNodes && !opts.listEvery
	fromIdx := ts.fromTarget()
	var ahead *aheadShapes
	// shared is what every placement shares, made ahead: the flattened
	// graph while the nodes are keyed, the CPU's lookups and the training
	// parts while the shapes and phases are worked out. beside: the source
	// is placed beside the target.
	var shared *sharedAhead
	first, beside, sharing := sharesAhead(ts, opts)
	if sharing {
		shared = flattenAhead(g, first, opts, fetches)
	} else if !opts.Placement.Disabled {
		ahead = inferAhead(g, opts)
	}
	for _, f := range security.Scan(g) {
		if scope == nil || scope[f.Node] {
			rm.Findings = append(rm.Findings, reports.Finding{Kind: "unsafe_op", Op: f.Op, Path: f.Path, Message: f.Message})
		}
	}
	nodes := PrepareNodes(g, scope, ts.withFrom())
	nodes.ahead = ahead
	if shared != nil {
		// The shapes here, the parts on shared's goroutine (sharedAhead).
		shared.prepare(g, nodes, first, ts, opts, fetches)
		nodes.shapesFor(g, shapeOptions(opts))
	}
	nodes.WithPhases(g.Phases(opts.Signature), counted)
	shared.partsOf(g)
	// What is shared is made before any placement, which reads it, and
	// before any reading: its lookups fill the nodes' matches in too.
	if err := shared.wait(); err != nil {
		return nil, &ModelError{Path: path, Err: err}
	}
	if shared == nil {
		nodes.WithParts(training.Parts(g))
	} else {
		nodes.WithParts(shared.parts)
	}
	// The source comes first, since every target's delta reads it; what
	// the deltas need of it is taken (a source), and each target is
	// finished (its delta, the nodes it lists) before the next is
	// computed. The source costs one more coverage and placement (no
	// wishlist), shared by every target; none when it is one of the
	// targets.
	//
	// A report that lists only the nodes needing attention (the default)
	// never lists every node: each target is placed first, and which
	// nodes need attention is known as they are matched (listed). With
	// --nodes all every node is listed, and at most one whole list at a
	// time is alive.
	var src *source
	var spare []reports.NodeResult // the array of the last whole list, reused
	// placed is the placement of the first target, made beside the
	// source's (placesBeside); nil for none.
	var placed *placement.Result
	// rb reads each placement behind the next one (readsBehind); nil
	// reads it at once.
	var rb *readBehind
	if readsBehind(ts, fromIdx, beside, listed, opts) {
		if ixs, ok := placedIndexes(ts, len(nodes.compiled(g)) > 0); ok {
			nodes.settle(ixs)
			rb = &readBehind{}
		}
	}
	// failed is err as the scan returns it, once the reading in flight,
	// if any, is done.
	failed := func(err error) error {
		_ = rb.done()
		return &ModelError{Path: path, Err: err}
	}
	if fromIdx < 0 && ts.From != nil {
		if listed {
			sopts := opts
			sopts.devicesOnly = true
			var err error
			if beside {
				src, placed, err = shared.placeBeside(g, nodes, *ts.From, ts.List[0], ts, sopts, opts, fetches)
			} else {
				var res *placement.Result
				if res, err = place(g, nodes, *ts.From, ts, sopts, fetches, true); err == nil {
					err = rb.read(res, func() error {
						src = sourceFrom(nodes, *ts.From, placeNodes(nodes, res))
						return nil
					})
				}
			}
			if err != nil {
				return nil, failed(err)
			}
		} else {
			st, sat := coverageInto(nodes, *ts.From, nil, nil)
			if err := simulateSource(st, sat, g, nodes, *ts.From, ts, opts, fetches); err != nil {
				return nil, &ModelError{Path: path, Err: err}
			}
			src = sourceOf(nodes, st, sat)
			spare = st.Nodes[:0]
			clear(st.Nodes)
		}
	}
	// finish adds to target i's report rt, whose nodes are those at
	// positions at of nodes, what every target's has besides its coverage
	// and placement, and keeps it; it returns the array of rt's whole
	// list when rt keeps only part of it.
	finish := func(i int, rt *reports.Target, at []int32) ([]reports.NodeResult, error) {
		t := ts.List[i]
		if opts.RewritePreview && !opts.Placement.Disabled {
			n, err := rewritePreview(context.Background(), m, g, ts, t, counted, opts)
			if err != nil {
				return nil, fmt.Errorf("rewrite preview for %s: %w", t.Name, err)
			}
			rt.RewriteRemovesFallback = &n
		}
		if src != nil {
			applyDelta(rt, src, nodes, at)
		}
		applyTraining(rt, t, nodes, at)
		applyCollectives(rt, t, g, nodes)
		if err := applyXLA(rt, t, g, nodes); err != nil {
			return nil, err
		}
		var whole []reports.NodeResult
		if !opts.AllNodes {
			whole = rt.KeepAttention(rm.Findings)
		}
		rm.Targets[i] = rt
		return whole, nil
	}
	rm.Targets = make([]*reports.Target, len(ts.List))
	for _, i := range targetOrder(len(ts.List), fromIdx) {
		t := ts.List[i]
		if listed {
			res := placed
			if res == nil {
				var err error
				if res, err = place(g, nodes, t, ts, opts, fetches, false); err != nil {
					return nil, failed(err)
				}
			}
			placed = nil
			err := rb.read(res, func() error {
				pl := placeNodes(nodes, res)
				if i == fromIdx {
					src = sourceFrom(nodes, t, pl)
				}
				rt, at := coverageInto(nodes, t, nil, attentionKeep(nodes, t, pl, src, rm.Findings))
				applyPlacementAt(rt, pl, nodes, at)
				compareLog(rt, res, log)
				_, err := finish(i, rt, at)
				return err
			})
			if err != nil {
				return nil, failed(err)
			}
			continue
		}
		rt, at := coverageInto(nodes, t, spare, nil)
		spare = nil
		if err := simulate(rt, at, g, nodes, t, ts, opts, fetches, log); err != nil {
			return nil, &ModelError{Path: path, Err: err}
		}
		if i == fromIdx {
			src = sourceOf(nodes, rt, at)
		}
		var err error
		if spare, err = finish(i, rt, at); err != nil {
			return nil, &ModelError{Path: path, Err: err}
		}
	}
	if err := rb.done(); err != nil {
		return nil, &ModelError{Path: path, Err: err}
	}
	return rm, nil
}

// resolveFetches finds each --fetch name in g's top-level graph, as
// Session::Run would (graph.ResolveFetch); nil when none was given.
func resolveFetches(g *graph.Graph, names []string) ([]graph.Tensor, error) {
	if len(names) == 0 {
		return nil, nil
	}
	out := make([]graph.Tensor, 0, len(names))
	for _, name := range names {
		t, err := g.ResolveFetch(name)
		if err != nil {
			return nil, fmt.Errorf("--fetch %s: %w", name, err)
		}
		out = append(out, t)
	}
	return out, nil
}

// signatureScope returns the nodes one signature needs, or nil for the whole
// model.
func signatureScope(g *graph.Graph, key string) (map[*graph.Node]bool, error) {
	if key == "" {
		return nil, nil
	}
	var sig *savedmodel.Signature
	var keys []string
	for _, s := range g.Signatures {
		keys = append(keys, s.Key)
		if s.Key == key {
			sig = s
		}
	}
	if sig == nil {
		if len(keys) == 0 {
			return nil, fmt.Errorf("no signature %q: the model has no signatures; leave out --signature", key)
		}
		sort.Strings(keys)
		return nil, fmt.Errorf("no signature %q (signatures: %s)", key, strings.Join(keys, ", "))
	}
	byName := map[string]*graph.Node{}
	for _, n := range g.Nodes[:g.TopLevel] {
		byName[n.Name] = n
	}
	var roots []*graph.Node
	for _, o := range sig.Outputs {
		name, _, _ := strings.Cut(o.Name, ":")
		if n := byName[name]; n != nil {
			roots = append(roots, n)
		}
	}
	return graph.Closure(roots), nil
}
