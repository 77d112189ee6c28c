package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tfscan/tfscan/reports"
)

// outputSpec is one parsed --format value.
type outputSpec struct {
	format string
	file   string // "" is stdout
}

func parseFormat(v string) (outputSpec, error) {
	name, file, hasFile := strings.Cut(v, "=")
	if _, err := reports.Writer(name); err != nil {
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
// carries nothing but the report. Every report is rendered in memory first,
// so a failing writer never leaves half a file.
func writeReports(e *env, formats []string, rep *reports.Report) error {
	specs, err := parseFormats(formats)
	if err != nil {
		return err
	}
	rep.Normalize()
	for _, s := range specs {
		w, _ := reports.Writer(s.format)
		if s.format == "table" {
			w = reports.TableWriter(tableOptions(e, s.file == ""))
		}
		var buf bytes.Buffer
		if err := w(&buf, rep); err != nil {
			return fmt.Errorf("rendering %s report: %w", s.format, err)
		}
		if s.file == "" {
			if _, err := e.stdout.Write(buf.Bytes()); err != nil {
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
		if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
			return usageErrorf("writing %s report: %v", s.format, err)
		}
	}
	return nil
}

func isAbs(p string) bool { return filepath.IsAbs(p) }

// joinWD anchors a relative path at the command's working directory.
func joinWD(e *env, p string) string { return filepath.Join(e.wd, p) }
