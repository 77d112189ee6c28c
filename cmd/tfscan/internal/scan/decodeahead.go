package scan

import "github.com/tfscan/tfscan/savedmodel"

// decodedAhead is the model of a scan of one model path, decoded
// (decodeModel) on a goroutine of its own from the start of Run, while
// the scan reads its packs and resolves its targets: building the graph
// needs the targets' OpDefs, decoding the file nothing of them, so the
// build starts as soon as the targets are known rather than after a
// decoding that waited for them. The model's pacing (paceModel) starts
// with the decoding.
type decodedAhead struct {
	path string
	pace *modelPacing
	done func() // started's wait
	m    *savedmodel.Model
	err  error
	// taken: scanModel took the model (and its pacing).
	taken bool
}

// decodeAhead starts decoding the one model a scan with opts names; nil
// when it names several, or caches its results (a cached model is not
// read).
func decodeAhead(opts Options) *decodedAhead {
	if len(opts.Paths) != 1 || opts.Cache != "" {
		return nil
	}
	a := &decodedAhead{path: opts.Paths[0]}
	a.pace = paceModel(a.path)
	a.done = started(func() { a.m, a.err = decodeModel(a.path) })
	return a
}

// take is the model decoded ahead and its pacing, once decoded, when path
// is the path it decoded; ok false otherwise (a directory the scan found
// models in, or a nil a).
func (a *decodedAhead) take(path string) (m *savedmodel.Model, pace *modelPacing, ok bool, err error) {
	if a == nil || a.taken || path != a.path {
		return nil, nil, false, nil
	}
	a.taken = true
	a.done()
	return a.m, a.pace, true, a.err
}

// drop ends the pacing of a decoding that no scan took once it is done,
// without waiting for it: a scan that stops early (a target that does not
// resolve) returns at once, whatever the size of its model. Run calls it
// once its scans are done.
func (a *decodedAhead) drop() {
	if a == nil || a.taken {
		return
	}
	go func() {
		a.done()
		a.pace.end()
	}()
}
