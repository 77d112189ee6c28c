package savedmodel

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// NoModelError is the error for a directory in which Discover found no
// model. It wraps ErrNoModel and, when the directory holds a file named like
// a model (.pb, .pbtxt, .meta or model.json), says why the first such file
// is not one: a folder holding one broken model should not read as an
// empty folder.
func NoModelError(dir string) error {
	var cand string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != dir && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		switch strings.ToLower(filepath.Ext(p)) {
		case ".pb", ".pbtxt", ".meta":
		default:
			if d.Name() != tfjsModelJSON {
				return nil
			}
		}
		cand = p
		return filepath.SkipAll
	})
	if cand == "" {
		return &Error{File: dir, Err: ErrNoModel}
	}
	_, err := Load(cand)
	if err == nil {
		// Discover judged it by a cheaper sniff; Load is the authority.
		return &Error{File: dir, Err: ErrNoModel}
	}
	name, rerr := filepath.Rel(dir, cand)
	if rerr != nil {
		name = cand
	}
	var se *Error
	why := err
	if errors.As(err, &se) && (se.File == cand || strings.HasPrefix(se.File, cand+string(filepath.Separator))) {
		if rel, rerr := filepath.Rel(dir, se.File); rerr == nil {
			name = rel
		}
		why = se.Err
	}
	return &Error{File: dir, Err: fmt.Errorf("%w (%s: %v)", ErrNoModel, name, why)}
}
