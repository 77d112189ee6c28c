package cli

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/tfscan/tfscan/cmd/tfscan/internal/scan"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/reports/jsonout"
	"github.com/tfscan/tfscan/reports/table"
	"github.com/tfscan/tfscan/savedmodel"
)

// runInspect implements `tfscan inspect PATH... [--format table|json]
// [--tags serve,gpu]`: what each model holds, before any target. A
// directory that is not itself a model is searched for models. A model that
// cannot be read is listed in the report's errors (and on stderr), the
// others are still inspected, and the command exits 3; --fail-fast stops at
// the first.
// A model TensorFlow would refuse to load (graph.InvalidGraphError) is
// listed with every problem, and is also one of the errors.
func runInspect(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("inspect", e.stderr)
	format := fs.String("format", "table", "output format: table or json")
	failFast := fs.Bool("fail-fast", false, "stop at the first model that cannot be read")
	var tags listFlag
	fs.Var(&tags, "tags", "meta graph tags to inspect (default: the one tagged serve, else the first)")
	paths, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if *format != "table" && *format != "json" {
		return usageErrorf("inspect: unknown --format %q (want table or json)", *format)
	}
	if len(paths) == 0 {
		return usageErrorf("inspect: no model path given (tfscan inspect PATH... [--format table|json])")
	}
	rep := &reports.InspectReport{SchemaVersion: reports.InspectSchemaVersion, Models: []*reports.InspectModel{}}
	failed := func(path string, err error) {
		rep.Errors = append(rep.Errors, reports.ScanError{Path: path, Message: err.Error(), Class: reports.ErrorClassModel})
	}
paths:
	for _, p := range paths {
		if *failFast && len(rep.Errors) > 0 {
			break
		}
		found, err := savedmodel.Discover(inspectAbs(e.wd, p))
		if err == nil && len(found) == 0 {
			err = savedmodel.NoModelError(inspectAbs(e.wd, p))
		}
		if err != nil {
			failed(p, inspectRelErr(e.wd, p, err))
			continue
		}
		for _, f := range found {
			if err := ctx.Err(); err != nil {
				return err
			}
			im, err := inspectModel(f, tags)
			if err != nil {
				failed(inspectRel(e.wd, p, f), inspectRelErr(e.wd, p, err))
			}
			if im != nil {
				im.Path = inspectRel(e.wd, p, f)
				if im.File != "" {
					// the file in the user's terms too, so the report does
					// not depend on where the checkout lives
					im.File = inspectRel(e.wd, p, im.File)
				}
				rep.Models = append(rep.Models, im)
			}
			if err != nil && *failFast {
				break paths
			}
		}
	}
	write := table.WriteInspectTable
	if *format == "json" {
		write = jsonout.WriteInspectJSON
	}
	if err := write(e.stdout, rep); err != nil {
		return err
	}
	return reportErrors(e, rep.Errors)
}

// inspectModel summarises one model. A graph TensorFlow refuses is
// summarised too, and returned with its error.
func inspectModel(path string, tags []string) (*reports.InspectModel, error) {
	m, err := savedmodel.Load(path)
	if err != nil {
		return nil, err
	}
	mg, err := graph.SelectMetaGraph(m, tags)
	if err != nil {
		return nil, err
	}
	g, err := graph.Build(m, mg)
	if ie := (*graph.InvalidGraphError)(nil); errors.As(err, &ie) {
		return scan.NewInspectModel(g), err
	}
	if err != nil {
		var se *savedmodel.Error
		if errors.As(err, &se) {
			return nil, err
		}
		return nil, &savedmodel.Error{File: m.File, Err: err}
	}
	return scan.NewInspectModel(g), nil
}

// inspectAbs resolves a path given on the command line against the working
// directory the CLI was started in.
func inspectAbs(wd, p string) string {
	if filepath.IsAbs(p) || wd == "" {
		return p
	}
	return filepath.Join(wd, p)
}

// inspectRel reports a model found under the user's path arg in the user's terms:
// arg itself, or arg joined with the part below it.
func inspectRel(wd, arg, found string) string {
	base := inspectAbs(wd, arg)
	if found == base {
		return arg
	}
	if r, err := filepath.Rel(base, found); err == nil {
		return filepath.Join(arg, r)
	}
	return found
}

// inspectRelErr names the file of a read error the way the user named it
// (relative to the path argument), as `tfscan scan` does, instead of the
// absolute path the model was opened with.
func inspectRelErr(wd, arg string, err error) error {
	var se *savedmodel.Error
	if !errors.As(err, &se) || filepath.IsAbs(arg) || wd == "" {
		return err
	}
	rel := inspectRel(wd, arg, se.File)
	if filepath.IsAbs(rel) {
		return err
	}
	if error(se) == err {
		return &savedmodel.Error{File: rel, Err: se.Err}
	}
	return &relError{msg: strings.Replace(err.Error(), se.File, rel, 1), err: err}
}

// relError is an error whose message names a file relative to the user's
// path; Unwrap keeps the original for errors.Is/As.
type relError struct {
	msg string
	err error
}

func (e *relError) Error() string { return e.msg }
func (e *relError) Unwrap() error { return e.err }
