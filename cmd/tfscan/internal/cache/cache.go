// Package cache is the on-disk store behind --cache DIR: opaque payloads
// under content-derived keys, each entry checksummed so that a truncated,
// corrupt or foreign file is never trusted, and written whole or not at all
// (a temporary file renamed into place), so that runners sharing a directory
// never see half an entry. What a key stands for is the caller's business
// (scan keys a model's results by its files, the tool and the options).
package cache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// header starts every entry: the format, the key, the payload's SHA-256 and
// its length, on one line.
const header = "tfscan-cache 1"

// maxEntry bounds what Get reads: an entry larger than this is not one of
// tfscan's.
const maxEntry = 1 << 30

// Dir is a cache directory.
type Dir struct{ root string }

// Open makes sure dir exists and can be written, before anything is scanned:
// a cache that cannot store anything would silently make every run a full
// one.
func Open(dir string) (*Dir, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("--cache %s: cannot create the cache directory: %v", dir, unwrap(err))
	}
	f, err := os.CreateTemp(dir, ".probe*")
	if err != nil {
		return nil, fmt.Errorf("--cache %s: the cache directory is not writable: %v", dir, unwrap(err))
	}
	f.Close()
	os.Remove(f.Name())
	return &Dir{root: dir}, nil
}

// Key turns the parts that identify an entry into its key, a hex SHA-256.
func Key(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		// length-prefixed, so that parts cannot run into each other
		fmt.Fprintf(h, "%d:", len(p))
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func (d *Dir) path(key string) string {
	return filepath.Join(d.root, key[:2], key)
}

// Get returns the payload stored under key. A missing entry, and one that
// is not exactly what Put wrote for this key (truncated, altered, another
// format), is a miss: the caller computes the result again and Puts it,
// which replaces the bad entry.
func (d *Dir) Get(key string) ([]byte, bool) {
	if len(key) < 2 {
		return nil, false
	}
	f, err := os.Open(d.path(key))
	if err != nil {
		return nil, false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxEntry+1))
	if err != nil || len(b) > maxEntry {
		return nil, false
	}
	line, payload, ok := bytes.Cut(b, []byte("\n"))
	if !ok {
		return nil, false
	}
	sum := sha256.Sum256(payload)
	want := header + " " + key + " " + hex.EncodeToString(sum[:]) + " " + strconv.Itoa(len(payload))
	if string(line) != want {
		return nil, false
	}
	return payload, true
}

// Put stores payload under key, replacing any entry there.
func (d *Dir) Put(key string, payload []byte) (err error) {
	if len(key) < 2 {
		return errors.New("cache: empty key")
	}
	file := d.path(key)
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), ".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	sum := sha256.Sum256(payload)
	if _, err := fmt.Fprintf(tmp, "%s %s %s %d\n", header, key, hex.EncodeToString(sum[:]), len(payload)); err != nil {
		return err
	}
	if _, err := tmp.Write(payload); err != nil {
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), file)
}

func unwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
