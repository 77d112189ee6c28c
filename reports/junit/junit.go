// Package junit writes a report as JUnit XML, one test case per model and
// target. It reads only the model.
package junit

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/reports/internal/render"
)

// JUnit XML as read by GitLab, Jenkins and the GitHub test-report actions.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr,omitempty"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr,omitempty"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Error     *junitFailure `xml:"error,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes one test suite per model and one test case per (model,
// target). A case fails with the gate's failures for that model and target;
// without a gate (plain scan) every case passes and carries the coverage
// summary. Model-wide failures (security findings) get a "model" case in the
// model's suite; failures that name no scanned model go to a "gate" case. A
// model that could not be scanned gets a suite of its own with one errored
// "scan" case (an <error>, not a <failure>: the model was not tested).
func WriteJUnit(w io.Writer, r *reports.Report) error {
	r.Normalize()
	type key struct{ model, target string }
	fails := map[key][]reports.GateFailure{}
	var global []reports.GateFailure
	known := map[key]bool{}
	for _, m := range r.Models {
		known[key{m.Path, ""}] = true // model-wide failures (security findings)
		for _, t := range m.Targets {
			known[key{m.Path, t.Target}] = true
		}
	}
	if r.Gate != nil {
		for _, f := range r.Gate.Failures {
			k := key{f.Model, f.Target}
			if known[k] {
				fails[k] = append(fails[k], f)
			} else {
				global = append(global, f)
			}
		}
	}
	out := junitSuites{Name: "tfscan"}
	for _, m := range r.Models {
		s := junitSuite{Name: m.Path}
		for _, t := range m.Targets {
			total, covered := t.CountedNodes()
			c := junitCase{Name: t.Target, Classname: m.Path,
				SystemOut: fmt.Sprintf("coverage %s (%d/%d nodes), %d fallback node(s), %d uncovered group(s)",
					render.FormatCoverage(t), covered, total, t.FallbackNodes(), len(t.Uncovered))}
			if fs := fails[key{m.Path, t.Target}]; len(fs) > 0 {
				c.Failure = failureOf(fs)
				s.Failures++
			} else if r := t.Refused(); r != "" {
				c.Failure = &junitFailure{Message: "TensorFlow refuses to place the model: " + r, Type: "placement_error", Text: t.Placement.Error}
				s.Failures++
			}
			s.Cases = append(s.Cases, c)
			s.Tests++
		}
		if fs := fails[key{m.Path, ""}]; len(fs) > 0 {
			s.Cases = append(s.Cases, junitCase{Name: "model", Classname: m.Path, Failure: failureOf(fs)})
			s.Tests++
			s.Failures++
		}
		out.Suites = append(out.Suites, s)
	}
	for _, e := range r.Errors {
		out.Suites = append(out.Suites, junitSuite{Name: e.Path, Tests: 1, Errors: 1,
			Cases: []junitCase{{Name: "scan", Classname: e.Path, Error: &junitFailure{Message: e.Message, Type: e.Class, Text: e.Message}}}})
	}
	if len(global) > 0 {
		out.Suites = append(out.Suites, junitSuite{Name: "gate", Tests: 1, Failures: 1,
			Cases: []junitCase{{Name: "gate", Classname: "tfscan", Failure: failureOf(global)}}})
	}
	for _, s := range out.Suites {
		out.Tests += s.Tests
		out.Failures += s.Failures
		out.Errors += s.Errors
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func failureOf(fs []reports.GateFailure) *junitFailure {
	var lines []string
	for _, f := range fs {
		lines = append(lines, f.Rule+": "+f.Message)
	}
	msg := lines[0]
	if len(lines) > 1 {
		msg = fmt.Sprintf("%s (and %d more)", msg, len(lines)-1)
	}
	return &junitFailure{Message: msg, Type: "gate", Text: strings.Join(lines, "\n")}
}
