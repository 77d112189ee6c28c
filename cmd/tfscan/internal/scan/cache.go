package scan

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/tfscan/tfscan/cmd/tfscan/internal/cache"
	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/savedmodel"
)

// CacheStats is what --cache did in one run.
type CacheStats struct {
	// Hits are the models whose results came from the cache; Scanned the
	// models scanned (and stored) instead.
	Hits, Scanned int
	// WriteErrors counts results that could not be stored, and Err is the
	// first such error: the run's results are right, the next run rescans.
	WriteErrors int
	Err         error
}

// resultCache keys each model's results by everything that decides them:
// the content of the model's files (savedmodel.Files, by their paths
// relative to the model, so that a model moved or checked out elsewhere
// still hits), tfscan itself (its version and the hash of its executable,
// so that a rebuilt development binary never reuses an older one's
// results), the content of every pack the scan matches against, and the
// options that change results (reports.Options, the shard aside). Models
// that cannot be scanned are not cached: they are scanned again.
type resultCache struct {
	dir *cache.Dir
	run []byte // the part of every key shared by the run

	hits, scanned, writeErrs atomic.Int64
	firstErr                 atomic.Pointer[error]
}

// newResultCache opens the cache directory (a UsageError when it cannot be
// written) and computes the run's part of the keys.
func newResultCache(dir string, opts Options, recorded *reports.Options) (*resultCache, error) {
	d, err := cache.Open(dir)
	if err != nil {
		return nil, &UsageError{err}
	}
	// The built-in packs are files embedded in tfscan, keyed by their
	// bytes; packs from --registry files (learned packs included) by the
	// files' content, which the recorded options hold.
	builtin, err := coverage.BuiltinHashes()
	if err != nil {
		return nil, err
	}
	o := *recorded
	o.Shard = nil
	run, err := json.Marshal(struct {
		Tool       string
		Executable string
		Builtin    map[string]string
		Options    reports.Options
		// check's rewrite preview adds a figure a scan does not have.
		RewritePreview bool
	}{opts.Version, executableHash(), builtin, o, opts.RewritePreview})
	if err != nil {
		return nil, err
	}
	return &resultCache{dir: d, run: run}, nil
}

// scan returns the cached results of the model at path, or runs do and
// stores what it returns.
func (c *resultCache) scan(path string, do func() (*reports.Model, error)) (*reports.Model, error) {
	key := c.key(path)
	if key != "" {
		if b, ok := c.dir.Get(key); ok {
			if m, err := unrebase(b, path); err == nil {
				c.hits.Add(1)
				return m, nil
			}
		}
	}
	m, err := do()
	if err != nil || key == "" {
		return m, err
	}
	c.scanned.Add(1)
	b, err := rebase(m)
	if err == nil {
		err = c.dir.Put(key, b)
	}
	if err != nil {
		c.writeErrs.Add(1)
		c.firstErr.CompareAndSwap(nil, &err)
	}
	return m, nil
}

// stats are the run's hits and misses.
func (c *resultCache) stats() CacheStats {
	s := CacheStats{Hits: int(c.hits.Load()), Scanned: int(c.scanned.Load()), WriteErrors: int(c.writeErrs.Load())}
	if e := c.firstErr.Load(); e != nil {
		s.Err = *e
	}
	return s
}

// key is the model's cache key, "" when its files cannot be told (then it
// is scanned and not cached; the scan says what is wrong).
func (c *resultCache) key(path string) string {
	files := modelFiles(path)
	if len(files) == 0 {
		return ""
	}
	// The report names the model's file relative to its path; a model given
	// as its directory and as its file must not share entries.
	base, form := path, "dir"
	if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
		base, form = filepath.Dir(path), "file"
	}
	parts := [][]byte{c.run, []byte(form)}
	for _, f := range files {
		rel, err := filepath.Rel(base, f)
		if err != nil {
			return ""
		}
		parts = append(parts, []byte(filepath.ToSlash(rel)), []byte(contentHash(f)))
	}
	return cache.Key(parts...)
}

// modelFiles are the files Load(path) reads: savedmodel.Files, or, for a
// directory holding one model file (Load's fallback), that file's.
func modelFiles(path string) []string {
	if files := savedmodel.Files(path); files != nil {
		return files
	}
	if found, err := savedmodel.Discover(path); err == nil && len(found) == 1 {
		return savedmodel.Files(found[0])
	}
	return nil
}

// contentHash is the hex SHA-256 of a file, or a marker saying why there is
// none (a missing file is part of what decides a result too).
func contentHash(file string) string {
	f, err := os.Open(file)
	if err != nil {
		return "unreadable"
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "unreadable"
	}
	return hex.EncodeToString(h.Sum(nil))
}

// cachedModel is a model's results as stored: without its path, and its
// file relative to the path, so that the same model found elsewhere
// reuses them.
type cachedModel struct {
	File  string         `json:"file"`
	Model *reports.Model `json:"model"`
}

func rebase(m *reports.Model) ([]byte, error) {
	c := *m
	file, err := filepath.Rel(m.Path, m.File)
	if m.File == m.Path {
		file = ""
	} else if err != nil || !filepath.IsLocal(file) {
		return nil, fmt.Errorf("cache: model file %s is not under %s", m.File, m.Path)
	}
	c.Path, c.File = "", ""
	return json.Marshal(cachedModel{File: file, Model: &c})
}

func unrebase(b []byte, path string) (*reports.Model, error) {
	var c cachedModel
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, err
	}
	if c.Model == nil {
		return nil, errors.New("cache: entry without a model")
	}
	m := c.Model
	m.Path, m.File = path, path
	if c.File != "" {
		m.File = filepath.Join(path, c.File)
	}
	return m, nil
}

// executableHash identifies the running tfscan build: the SHA-256 of its
// executable, else (no executable to read) its module build information.
var executableHash = sync.OnceValue(func() string {
	if exe, err := os.Executable(); err == nil {
		if h := contentHash(exe); h != "unreadable" {
			return h
		}
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		return bi.String()
	}
	return ""
})
