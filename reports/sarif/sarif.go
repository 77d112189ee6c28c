// Package sarif writes a report as SARIF 2.1.0 for code scanning. It reads
// only the model.
package sarif

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/reports/internal/render"
)

// SARIFMaxResults caps the results of one run. GitHub code scanning accepts
// at most 25,000 results per run and shows 5,000; a model with more uncovered
// nodes than that is better read in the HTML report. The cap is reported in
// the run's invocation notifications.
const SARIFMaxResults = 5000

// SARIF 2.1.0 subset tfscan writes (OASIS SARIF v2.1.0, sarif-schema-2.1.0.json).
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool         `json:"tool"`
	Invocations []sarifInvocation `json:"invocations,omitempty"`
	Results     []sarifResult     `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string         `json:"id"`
	Name                 string         `json:"name"`
	ShortDescription     sarifText      `json:"shortDescription"`
	FullDescription      sarifText      `json:"fullDescription"`
	Help                 sarifText      `json:"help"`
	DefaultConfiguration sarifConfig    `json:"defaultConfiguration"`
	Properties           map[string]any `json:"properties"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifInvocation struct {
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level     string          `json:"level"`
	Message   sarifText       `json:"message"`
	Locations []sarifLocation `json:"locations,omitempty"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifText         `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Properties          map[string]any    `json:"properties,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical     `json:"physicalLocation"`
	LogicalLocations []sarifLogicalLoc `json:"logicalLocations,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifLogicalLoc struct {
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

// sarifFingerprintKey names tfscan's partial fingerprint; bump the suffix if
// what goes into it ever changes.
const sarifFingerprintKey = "tfscanNode/v1"

// WriteSARIF writes a SARIF 2.1.0 log for code scanning: one rule per reason
// code (see Rules for the stable ids), one result per uncovered node and
// target (covered_default nodes run without falling back and are not
// reported) and per security finding, located at the model file with the
// node path as logical location. Fingerprints hash the model file, target,
// node path, op and reason, so an alert survives unrelated changes. A model
// that could not be scanned is a TFS200 result at its path (code scanning
// shows results, not notifications) and also an error notification of the
// invocation, which then is not executionSuccessful.
func WriteSARIF(w io.Writer, r *reports.Report) error {
	r.Normalize()
	ruleIndex := map[string]int{}
	var rules []sarifRule
	for i, ru := range reports.Rules {
		ruleIndex[ru.ID] = i
		rules = append(rules, toSARIFRule(ru))
	}
	var results []sarifResult
	add := func(ru reports.Rule, m *reports.Model, nodePath, target, msg string, props map[string]any) {
		if _, ok := ruleIndex[ru.ID]; !ok {
			ruleIndex[ru.ID] = len(rules)
			rules = append(rules, toSARIFRule(ru))
		}
		results = append(results, sarifResult{
			RuleID:    ru.ID,
			RuleIndex: ruleIndex[ru.ID],
			Level:     ru.Level,
			Message:   sarifText{msg},
			Locations: []sarifLocation{{
				PhysicalLocation: sarifPhysical{sarifArtifact{fileURI(modelFile(m))}},
				LogicalLocations: []sarifLogicalLoc{{FullyQualifiedName: nodePath, Kind: "member"}},
			}},
			PartialFingerprints: map[string]string{sarifFingerprintKey: fingerprint(modelFile(m), target, nodePath, ru.Code)},
			Properties:          props,
		})
	}
	for _, m := range r.Models {
		for _, f := range m.Findings {
			add(reports.RuleFor(reports.KindUnsafeOp), m, f.Path, "", fmt.Sprintf("%s: op %s: %s", f.Path, f.Op, f.Message),
				map[string]any{"op": f.Op})
		}
		for _, t := range m.Targets {
			for _, n := range t.Nodes {
				if n.Reason == reports.ReasonCoveredLowerPrecision {
					ru := reports.RuleFor(n.Reason)
					add(ru, m, n.Path, t.Target,
						fmt.Sprintf("%s: op %s on target %s runs in %s: %s", n.Path, n.Op, t.Target, n.LoweredTo, strings.TrimSuffix(ru.Description, ".")),
						map[string]any{"op": n.Op, "target": t.Target, "dtypes": render.NonNil(n.DTypes), "lowered_to": n.LoweredTo})
				}
			}
			for _, n := range uncoveredNodes(t) {
				dt := ""
				if len(n.DTypes) > 0 {
					dt = " (" + strings.Join(n.DTypes, ", ") + ")"
				}
				ru := reports.RuleFor(n.Reason)
				add(ru, m, n.Path, t.Target,
					fmt.Sprintf("%s: op %s%s on target %s: %s %s", n.Path, n.Op, dt, t.Target, n.Reason, strings.TrimSuffix(ru.Description, ".")),
					map[string]any{"op": n.Op, "target": t.Target, "dtypes": render.NonNil(n.DTypes)})
			}
		}
	}
	var notes []sarifNotification
	var failed []sarifResult
	for _, e := range r.Errors {
		ru := reports.RuleFor(reports.KindModelError) // in Rules, so in ruleIndex
		file := e.File
		if file == "" {
			file = e.Path
		}
		loc := []sarifLocation{{PhysicalLocation: sarifPhysical{sarifArtifact{fileURI(file)}}}}
		failed = append(failed, sarifResult{
			RuleID: ru.ID, RuleIndex: ruleIndex[ru.ID], Level: ru.Level, Message: sarifText{e.Message}, Locations: loc,
			PartialFingerprints: map[string]string{sarifFingerprintKey: fingerprint(e.Path, ru.Code, e.Class)},
			Properties:          map[string]any{"class": e.Class},
		})
		notes = append(notes, sarifNotification{Level: "error", Message: sarifText{e.Message}, Locations: loc})
	}
	// First, so that the cap below never drops a model nobody checked.
	results = append(failed, results...)
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{Name: "tfscan", Version: r.Tool.Version,
			InformationURI: "https://github.com/tfscan/tfscan", Rules: rules}},
		Results: render.NonNil(results),
	}
	if len(results) > SARIFMaxResults {
		run.Results = results[:SARIFMaxResults]
		notes = append(notes, sarifNotification{
			Level:   "warning",
			Message: sarifText{fmt.Sprintf("%d results, only the first %d are included; see the JSON or HTML report", len(results), SARIFMaxResults)},
		})
	}
	if len(notes) > 0 {
		run.Invocations = []sarifInvocation{{ExecutionSuccessful: len(r.Errors) == 0, ToolExecutionNotifications: notes}}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs:    []sarifRun{run},
	})
}

func toSARIFRule(ru reports.Rule) sarifRule {
	return sarifRule{
		ID: ru.ID, Name: ru.Name,
		ShortDescription:     sarifText{ru.Description},
		FullDescription:      sarifText{ru.Description + " (reason code " + ru.Code + ")"},
		Help:                 sarifText{ru.Help},
		DefaultConfiguration: sarifConfig{ru.Level},
		Properties:           map[string]any{"reason_code": ru.Code, "tags": []string{"tfscan", "portability"}},
	}
}

// uncoveredNodes are the nodes of t that do not run on the target. When the
// scan did not list nodes, the example nodes of the uncovered groups stand in.
func uncoveredNodes(t *reports.Target) []reports.NodeResult {
	var out []reports.NodeResult
	if len(t.Nodes) > 0 {
		for _, n := range t.Nodes {
			if !reports.IsCovered(n.Reason) {
				out = append(out, n)
			}
		}
		return out
	}
	for _, u := range t.Uncovered {
		for _, p := range u.Nodes {
			out = append(out, reports.NodeResult{Path: p, Op: u.Op, DTypes: u.DTypes, Reason: u.Reason})
		}
	}
	return out
}

// modelFile is the file a model's results point at.
func modelFile(m *reports.Model) string {
	if m.File != "" {
		return m.File
	}
	return m.Path
}

// fileURI turns a path into a SARIF artifact URI: relative paths stay
// relative (code scanning resolves them against the checkout), absolute ones
// become file:// URIs.
func fileURI(p string) string {
	p = filepath.ToSlash(p)
	if strings.HasPrefix(p, "/") {
		return (&url.URL{Scheme: "file", Path: p}).String()
	}
	return (&url.URL{Path: strings.TrimPrefix(p, "./")}).String()
}

func fingerprint(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:16])
}
