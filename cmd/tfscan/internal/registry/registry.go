// Package registry is the application layer behind `tfscan registry`: it
// lists, shows, compares, imports, checks, derives and audits kernel
// registry packs. Its functions take plain option structs, write what they
// show to an io.Writer and say by the type of their error which kind of
// failure it is (UsageError, InputError, GateError); flags, the choice of
// output and exit codes belong to the command line.
package registry

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
)

// UsageError is a problem with what was asked: an unknown pack, a bad
// flag value, a pack file path that cannot be written.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// InputError is a pack, dump, op history or source tree that could not be
// read, or that does not hold what the command needs.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// GateError is a check that ran and failed: a built-in pack disagrees with
// a live registry, or an audit finds registrations in no pack.
type GateError struct{ Err error }

func (e *GateError) Error() string { return e.Err.Error() }
func (e *GateError) Unwrap() error { return e.Err }

func usageErrorf(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

func inputError(err error) error { return &InputError{Err: err} }

func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// abs resolves p against dir, the working directory of the command.
func abs(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
