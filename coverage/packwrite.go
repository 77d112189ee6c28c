package coverage

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// PackPathError is a pack that cannot be written where it was asked to be:
// the pack is invalid or the path cannot be created. Commands report it as
// their caller's mistake (a usage error), unlike a write that fails midway.
type PackPathError struct{ Err error }

func (e *PackPathError) Error() string { return e.Err.Error() }
func (e *PackPathError) Unwrap() error { return e.Err }

// WritePackFile validates p and writes it to path, gzip-compressed when the
// name ends in .gz, creating the folders above it.
func WritePackFile(path string, p *Pack) error {
	if err := p.Validate(); err != nil {
		return &PackPathError{err}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return &PackPathError{err}
	}
	f, err := os.Create(path)
	if err != nil {
		return &PackPathError{err}
	}
	if strings.HasSuffix(path, ".gz") {
		err = WritePackGzip(f, p)
	} else {
		err = WritePack(f, p)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
