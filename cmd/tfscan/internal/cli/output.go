package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/reports/format"
	"github.com/tfscan/tfscan/reports/table"
)

// outputSpec is one parsed --format value.
type outputSpec struct {
	format string
	file   string // "" is stdout
}

func parseFormat(v string) (outputSpec, error) {
	name, file, hasFile := strings.Cut(v, "=")
	if _, err := format.Writer(name); err != nil {
		return outputSpec{}, err
	}
	if hasFile && file == "" {
		return outputSpec{}, fmt.Errorf("--format %s=: empty file name", name)
	}
	return outputSpec{format: name, file: file}, nil
}

// parseFormats checks a list of --format values: each known, at most one
// going to stdout (two documents on one stream would be unreadable). No
// value means a table on stdout.
func parseFormats(values []string) ([]outputSpec, error) {
	if len(values) == 0 {
		values = []string{"table"}
	}
	var specs []outputSpec
	stdout := ""
	for _, v := range values {
		s, err := parseFormat(v)
		if err != nil {
			return nil, usageError(err)
		}
		if s.file == "" || s.file == "-" {
			s.file = ""
			if stdout != "" {
				return nil, usageErrorf("--format %s and --format %s both write to stdout; give one of them a file (FORMAT=FILE)", stdout, s.format)
			}
			stdout = s.format
		}
		specs = append(specs, s)
	}
	return specs, nil
}

// writeReports renders rep once per --format value: to stdout when no file
// is given, else to the file (relative to the working directory). stdout
// carries nothing but the report. A file is written under a temporary name
// beside it and renamed when complete, so a failing writer never leaves half
// a file (nor replaces the previous one).
func writeReports(e *env, formats []string, rep *reports.Report) error {
	specs, err := parseFormats(formats)
	if err != nil {
		return err
	}
	rep.Normalize()
	for _, s := range specs {
		w, _ := format.Writer(s.format)
		if s.format == "table" {
			w = table.TableWriter(tableOptions(e, s.file == ""))
		}
		render := func(out io.Writer) error {
			if err := w(out, rep); err != nil {
				return fmt.Errorf("rendering %s report: %w", s.format, err)
			}
			return nil
		}
		if s.file == "" {
			bw := bufio.NewWriterSize(e.stdout, 1<<16)
			if err := render(bw); err != nil {
				return err
			}
			if err := bw.Flush(); err != nil {
				return fmt.Errorf("writing %s report to stdout: %w", s.format, err)
			}
			continue
		}
		file := s.file
		if !filepath.IsAbs(file) {
			file = filepath.Join(e.wd, file)
		}
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			return usageErrorf("writing %s report: %v", s.format, err)
		}
		if err := writeFileAtomic(file, render); err != nil {
			return err
		}
	}
	return nil
}

// writeFileAtomic writes file through write: into a temporary file in the
// same directory, renamed over file once complete. A problem with the file
// itself (a directory that cannot be written) is a usage error; write's own
// error is returned as it is. On any error the temporary file is removed and
// file is left as it was.
func writeFileAtomic(file string, write func(io.Writer) error) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".tmp*")
	if err != nil {
		return usageErrorf("writing %s: %v", file, unwrapPath(err))
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriterSize(tmp, 1<<16)
	if err := write(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return usageErrorf("writing %s: %v", file, unwrapPath(err))
	}
	if err := tmp.Chmod(0o644); err != nil {
		return usageErrorf("writing %s: %v", file, unwrapPath(err))
	}
	if err := tmp.Close(); err != nil {
		return usageErrorf("writing %s: %v", file, unwrapPath(err))
	}
	if err := os.Rename(tmp.Name(), file); err != nil {
		return usageErrorf("writing %s: %v", file, unwrapPath(err))
	}
	return nil
}

// unwrapPath drops the path from an *fs.PathError or *os.LinkError, for
// messages that name the file already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

func isAbs(p string) bool { return filepath.IsAbs(p) }

// joinWD anchors a relative path at the command's working directory.
func joinWD(e *env, p string) string { return filepath.Join(e.wd, p) }
