package scan

import (
	"os"
	"runtime/debug"
	"sync"
)

// scanGCPercent is the collector's pacing (GOGC) while a loaded model is
// scanned. The model stays live for the whole scan, and the scan
// allocates about as much again, most of it kept until the report is
// made. Under the default pacing (100) the heap's goal is twice what was
// live at the collection last made while the model was being loaded, so
// a scan crosses it once: that collection marks the whole model again to
// free the little the scan has let go by then, and a scan's pages are
// touched fresh either way. At 200 the goal is three times that, which
// the scans docs/performance.md measures stay under: less CPU for a
// somewhat higher peak heap (the figures are there).
const scanGCPercent = 200

// pacing counts the scans running (Run scans several models at once)
// and keeps the pacing they found, restored when the last one ends.
var pacing struct {
	sync.Mutex
	running, was int
}

// paceScan sets scanGCPercent for a scan and returns what ends it. A
// GOGC set in the environment is the user's choice and is left as it is
// (GOMEMLIMIT bounds the heap under either pacing).
func paceScan() (end func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	pacing.Lock()
	if pacing.running == 0 {
		pacing.was = debug.SetGCPercent(scanGCPercent)
	}
	pacing.running++
	pacing.Unlock()
	return func() {
		pacing.Lock()
		if pacing.running--; pacing.running == 0 {
			debug.SetGCPercent(pacing.was)
		}
		pacing.Unlock()
	}
}
