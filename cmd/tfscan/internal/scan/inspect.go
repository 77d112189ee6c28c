package scan

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/tfscan/tfscan/dtype"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/savedmodel"
)

// NewInspectModel summarises a built graph: what `tfscan inspect` reports
// of a model before any target is considered.
func NewInspectModel(g *graph.Graph) *reports.InspectModel {
	m := &reports.InspectModel{
		Path:        g.Model.Path,
		File:        g.Model.File,
		Format:      string(g.Model.Format),
		GraphNodes:  g.TopLevel,
		Functions:   len(g.Functions),
		OpTypes:     []string{},
		UnknownOps:  []string{},
		Signatures:  []reports.InspectSignature{},
		MetaGraphs:  []reports.InspectMetaGraph{},
		OpHistogram: []reports.OpCount{},
		Diagnostics: []reports.InspectDiagnostic{},
	}
	if g.Ops != nil {
		m.OpDefs = "TensorFlow " + g.Ops.TFVersion
	}
	m.FunctionNodes = len(g.Nodes) - g.TopLevel
	counts := map[string]*reports.OpCount{}
	unknown := map[string]bool{}
	for _, n := range g.Nodes {
		c := counts[n.Op]
		if c == nil {
			c = &reports.OpCount{Op: n.Op}
			counts[n.Op] = c
		}
		c.Count++
		if n.Reachable {
			c.Reachable++
			m.ReachableNodes++
		}
		if n.Unknown {
			unknown[n.Op] = true
		}
	}
	for op, c := range counts {
		m.OpTypes = append(m.OpTypes, op)
		m.OpHistogram = append(m.OpHistogram, *c)
	}
	for op := range unknown {
		m.UnknownOps = append(m.UnknownOps, op)
	}
	for _, mg := range g.Model.MetaGraphs {
		tags := mg.Tags
		if tags == nil {
			tags = []string{}
		}
		im := reports.InspectMetaGraph{Tags: tags, Signatures: []string{}, Selected: mg == g.MetaGraph}
		for _, s := range mg.Signatures {
			im.Signatures = append(im.Signatures, s.Key)
		}
		m.MetaGraphs = append(m.MetaGraphs, im)
	}
	for _, s := range g.Signatures {
		m.Signatures = append(m.Signatures, reports.InspectSignature{
			Key: s.Key, Method: s.Method, Inputs: inspectTensors(s.Inputs), Outputs: inspectTensors(s.Outputs),
		})
	}
	for _, d := range g.Diagnostics {
		m.Diagnostics = append(m.Diagnostics, reports.InspectDiagnostic{Kind: d.Kind, Path: d.Path, Message: d.Message, Fatal: d.Fatal})
	}
	if r := g.Model.RestoredDTypes; len(r) > 0 {
		// Not a problem TensorFlow has: what tfscan's TF.js loader changed.
		m.Diagnostics = append(m.Diagnostics, reports.InspectDiagnostic{Kind: "tfjs_narrowed_weights", Path: r[0].Node, Message: savedmodel.RestoredDTypesNote(r)})
	}
	m.Normalize()
	return m
}

func inspectTensors(ts []*savedmodel.TensorInfo) []reports.InspectTensor {
	out := []reports.InspectTensor{}
	for _, t := range ts {
		it := reports.InspectTensor{Key: t.Key, Name: t.Name, DType: dtype.Name(t.DType)}
		if !t.UnknownRank {
			it.Shape = append([]int64{}, t.Shape...)
		}
		out = append(out, it)
	}
	return out
}

// inspectModel summarises one model. A graph TensorFlow refuses is
// summarised too, and returned with its error.
func inspectModel(path string, tags []string, onInspect func(*graph.Graph)) (*reports.InspectModel, error) {
	defer paceModel(path).end()
	m, err := savedmodel.Load(path)
	if err != nil {
		return nil, err
	}
	mg, err := graph.SelectMetaGraph(m, tags)
	if err != nil {
		return nil, err
	}
	g, err := graph.Build(m, mg)
	if onInspect != nil && g != nil {
		onInspect(g)
	}
	if ie := (*graph.InvalidGraphError)(nil); errors.As(err, &ie) {
		return NewInspectModel(g), err
	}
	if err != nil {
		var se *savedmodel.Error
		if errors.As(err, &se) {
			return nil, err
		}
		return nil, &savedmodel.Error{File: m.File, Err: err}
	}
	return NewInspectModel(g), nil
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

// InspectOptions are what `tfscan inspect` reads: paths as given on the
// command line, resolved against WD; FailFast stops at the first model
// that cannot be read.
type InspectOptions struct {
	Paths    []string
	WD       string
	Tags     []string
	FailFast bool

	// onInspect, when set, is handed each model's graph once it is built
	// (tests).
	onInspect func(*graph.Graph)
}

// Inspect summarises every model under the paths, before any target. A
// directory that is not itself a model is searched for models. A model that
// cannot be read is listed in the report's errors, and the others are still
// inspected (unless FailFast). A model TensorFlow would refuse to load
// (graph.InvalidGraphError) is listed with every problem, and is also one
// of the errors. Paths are reported in the user's terms.
func Inspect(ctx context.Context, o InspectOptions) (*reports.InspectReport, error) {
	rep := &reports.InspectReport{SchemaVersion: reports.InspectSchemaVersion, Models: []*reports.InspectModel{}}
	failed := func(path string, err error) {
		rep.Errors = append(rep.Errors, reports.ScanError{Path: path, Message: err.Error(), Class: reports.ErrorClassModel})
	}
paths:
	for _, p := range o.Paths {
		if o.FailFast && len(rep.Errors) > 0 {
			break
		}
		found, err := savedmodel.Discover(inspectAbs(o.WD, p))
		if err == nil && len(found) == 0 {
			err = savedmodel.NoModelError(inspectAbs(o.WD, p))
		}
		if err != nil {
			failed(p, inspectRelErr(o.WD, p, err))
			continue
		}
		for _, f := range found {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			im, err := inspectModel(f, o.Tags, o.onInspect)
			if err != nil {
				failed(inspectRel(o.WD, p, f), inspectRelErr(o.WD, p, err))
			}
			if im != nil {
				im.Path = inspectRel(o.WD, p, f)
				if im.File != "" {
					// the file in the user's terms too, so the report does
					// not depend on where the checkout lives
					im.File = inspectRel(o.WD, p, im.File)
				}
				rep.Models = append(rep.Models, im)
			}
			if err != nil && o.FailFast {
				break paths
			}
		}
	}
	return rep, nil
}
