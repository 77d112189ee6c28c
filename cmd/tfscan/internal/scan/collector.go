package scan

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// The collector while a model is loaded and scanned (or inspected).
//
// A load makes the model and little else: the decoder and the graph's
// build keep nearly everything they allocate. Under Go's default pacing
// the heap's goal doubles with what each collection finds live, so
// loading a model of a million nodes (about 535 MB built) runs nine
// collections that free next to nothing, and each of the later ones reads
// the large arrays the build has allocated but not yet written (the node
// store, the name index), which maps their pages before the build writes
// them and costs a page fault again. A scan then allocates about as much
// again, most of it kept until the report is made.
//
// So while models are loaded and scanned the collector's first
// collection is deferred, as cmd/compile's startheap.go sets a starting
// heap: the pacing is set so that the heap's goal is what the heap holds
// when a model begins plus the load's allowance, and once the model is
// loaded scanHeadroom times what the heap holds (the goal GOGC=200 would
// set after a collection then), whichever is more. The allowance is
// loadPerByte times the model's files, between minLoadAllowance and
// maxLoadAllowance: a load that makes a million nodes of a 78 MB file
// holds about 535 MB, and what garbage a load makes is of the order of
// its file; a larger load is collected once on its way, and what garbage
// a load keeps beyond the default pacing's stays under the larger bound.
// Should the heap reach the goal, the collection it starts is the first,
// and from then on the collector is paced at scanGCPercent; when the last
// model ends, the pacing found is restored. A GOGC set in the environment
// is the user's choice and is left as it is; a GOMEMLIMIT bounds the heap
// under either pacing.
const (
	loadPerByte      = 8
	minLoadAllowance = 256 << 20
	maxLoadAllowance = 1 << 30
	scanHeadroom     = 3
	// scanGCPercent is the pacing after a first collection (see above).
	scanGCPercent = 200
)

// pacing counts the models in flight (Run scans several at once) and
// keeps the pacing they found, restored when the last one ends.
var pacing pacingState

type pacingState struct {
	sync.Mutex
	running int
	// deferred: no collection has run since the first model began.
	deferred bool
	// window counts the times a first model began, so that a watch for
	// a collection armed in an earlier one does nothing.
	window int
	was    int
	// goal is the heap's goal set for the deferral.
	goal uint64
}

// modelPacing is one model's part of the pacing (paceModel).
type modelPacing struct{ on bool }

// paceModel defers the collector's first collection while the model at
// path is loaded (see above) and returns its part, whose loaded and end
// say when the model is loaded and when it is done with.
func paceModel(path string) *modelPacing {
	if os.Getenv("GOGC") != "" {
		return &modelPacing{}
	}
	pacing.Lock()
	defer pacing.Unlock()
	if pacing.running == 0 {
		pacing.window++
		pacing.was = debug.SetGCPercent(scanGCPercent)
		pacing.deferred, pacing.goal = true, 0
		window := pacing.window
		afterCollection(func() { paced(window) })
	}
	pacing.running++
	if pacing.deferred {
		pacing.raiseGoal(heapHeld() + min(max(minLoadAllowance, loadPerByte*modelBytes(path)), maxLoadAllowance))
	}
	return &modelPacing{on: true}
}

// modelBytes is the size of the model file at path, or of the files
// directly in the directory path (a SavedModel's saved_model.pb, beside
// the variables/ a load does not read); 0 where they cannot be read.
func modelBytes(path string) uint64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	if !fi.IsDir() {
		return uint64(fi.Size())
	}
	entries, _ := os.ReadDir(path)
	var n uint64
	for _, e := range entries {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
			n += uint64(info.Size())
		}
	}
	return n
}

// loaded raises the deferral's goal to scanHeadroom times the heap held
// now that the model is loaded, when that is more.
func (p *modelPacing) loaded() {
	if !p.on {
		return
	}
	pacing.Lock()
	defer pacing.Unlock()
	if pacing.deferred {
		pacing.raiseGoal(scanHeadroom * heapHeld())
	}
}

// allow raises the deferral's goal by bytes the model's part allocates
// while it loads besides what the load makes (reserveAhead).
func (p *modelPacing) allow(bytes uint64) {
	if !p.on {
		return
	}
	pacing.Lock()
	defer pacing.Unlock()
	if pacing.deferred {
		pacing.raiseGoal(pacing.goal + bytes)
	}
}

// end ends the model's part; the last one restores the pacing found.
func (p *modelPacing) end() {
	if !p.on {
		return
	}
	p.on = false
	pacing.Lock()
	defer pacing.Unlock()
	if pacing.running--; pacing.running == 0 {
		pacing.deferred = false
		debug.SetGCPercent(pacing.was)
	}
}

// raiseGoal sets the pacing whose heap goal is goal, when that is more
// than the goal set. The runtime's goal is what the last collection found
// live times one plus the percentage, or, before a first collection, a
// minimum that grows with the percentage: the percentage worked out from
// the former is scaled once by the goal it gives. The caller holds the
// lock.
func (pc *pacingState) raiseGoal(goal uint64) {
	if goal <= pc.goal {
		return
	}
	pc.goal = goal
	live := max(heapLive(), 1<<20)
	percent := uint64(scanGCPercent)
	if q := goal * 100 / live; q > 100+percent {
		percent = q - 100
	}
	debug.SetGCPercent(int(percent))
	if got := heapGoal(); got > goal {
		debug.SetGCPercent(int(max(scanGCPercent, percent*goal/got)))
	}
}

// paced ends the deferral of window after a collection has run in it.
func paced(window int) {
	pacing.Lock()
	defer pacing.Unlock()
	if pacing.window != window || !pacing.deferred {
		return
	}
	pacing.deferred = false
	debug.SetGCPercent(scanGCPercent)
}

// afterCollection calls fn once a collection has run: fn is the finalizer
// of an object nothing references (as cmd/compile's startheap.go watches
// its collections).
func afterCollection(fn func()) {
	type sentinel [32]byte // too large for the tiny allocator, which shares blocks
	runtime.SetFinalizer(new(sentinel), func(*sentinel) { fn() })
}

// heapHeld is what the heap's objects take now, live or not yet swept;
// heapLive what the last collection found live; heapGoal the collector's
// goal for the heap.
func heapHeld() uint64 { return readMetric("/memory/classes/heap/objects:bytes") }
func heapLive() uint64 { return readMetric("/gc/heap/live:bytes") }
func heapGoal() uint64 { return readMetric("/gc/heap/goal:bytes") }

func readMetric(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
