package registry

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/tfscan/tfscan/coverage"
)

// PackSummary is one row of `registry list`.
type PackSummary struct {
	Name            string   `json:"name"`
	Vendor          string   `json:"vendor"`
	DeviceType      string   `json:"device_type"`
	Mechanism       string   `json:"mechanism"`
	Kernels         int      `json:"kernels"`
	Ops             int      `json:"ops"`
	UnresolvedOps   int      `json:"unresolved_ops"`
	TFVersion       string   `json:"tf_version"`
	Source          string   `json:"source"`
	Method          string   `json:"method"`
	Date            string   `json:"date"`
	ConfidenceLevel string   `json:"confidence_level"`
	Confidence      string   `json:"confidence"`
	BuildFlags      []string `json:"build_flags,omitempty"`
	Base            string   `json:"base,omitempty"`
	NextStep        string   `json:"next_step"`
}

func summarize(p *coverage.Pack) PackSummary {
	s := PackSummary{
		Name: p.Name, Vendor: p.Vendor, DeviceType: p.DeviceType, Mechanism: string(p.Mechanism),
		Kernels: len(p.OwnKernels()), Ops: len(p.Ops()), UnresolvedOps: len(p.UnresolvedOps),
		TFVersion: p.TFVersion, Source: p.Source, Method: string(p.Method), Date: p.Date,
		ConfidenceLevel: string(p.ConfidenceLevel), Confidence: p.Confidence, BuildFlags: p.BuildFlags,
		NextStep: packNextStep(p),
	}
	if p.Derived != nil {
		s.Base = p.Derived.Base
	}
	return s
}

// packNextStep is what a user does with a pack: use it, or replace an
// estimate with a live dump.
func packNextStep(p *coverage.Pack) string {
	switch {
	case p.Name == coverage.DefaultPackName && p.DeviceType == coverage.DeviceDefault:
		return "none: the DEFAULT kernels every non-XLA target falls back to"
	case p.ConfidenceLevel == coverage.LevelHigh:
		return "--target " + p.Name
	case p.Mechanism == coverage.MechanismDerived:
		return "--target " + p.Name + " as an estimate; for exact results dump the stack (docs/registries.md#derived-packs)"
	}
	return "--target " + p.Name + " as an estimate (read its confidence note); a live dump of the stack gives exact results (docs/registries.md)"
}

// sortByConfidence orders packs high, medium, low (then unrated), by name
// within a level.
func sortByConfidence(rows []PackSummary) {
	slices.SortStableFunc(rows, func(a, b PackSummary) int {
		if d := coverage.Level(b.ConfidenceLevel).Rank() - coverage.Level(a.ConfidenceLevel).Rank(); d != 0 {
			return d
		}
		return strings.Compare(a.Name, b.Name)
	})
}

// DumpRequired is a stack without a pack, as `registry list` shows it.
type DumpRequired struct {
	coverage.DumpOnlyStack
	Mechanism string `json:"mechanism"`
	NextStep  string `json:"next_step"`
}

// List writes the built-in packs, most confident first, and the stacks
// that need a live dump: a table, or JSON when asJSON is set.
func List(w io.Writer, asJSON bool) error {
	packs, err := coverage.BuiltinPacks()
	if err != nil {
		return err
	}
	var rows []PackSummary
	for _, p := range packs {
		rows = append(rows, summarize(p))
	}
	sortByConfidence(rows)
	var dumps []DumpRequired
	for _, d := range coverage.DumpOnlyStacks() {
		dumps = append(dumps, DumpRequired{DumpOnlyStack: d, Mechanism: string(coverage.MechanismDumpRequired), NextStep: d.NextStep()})
	}
	if asJSON {
		return writeJSON(w, struct {
			Packs        []PackSummary  `json:"packs"`
			DumpRequired []DumpRequired `json:"dump_required"`
		}{rows, dumps})
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tVENDOR\tDEVICE\tMECHANISM\tCONFIDENCE\tOPS\tTF\tNEXT STEP")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", r.Name, r.Vendor, r.DeviceType, r.Mechanism, dash(r.ConfidenceLevel), r.Ops, dash(r.TFVersion), r.NextStep)
	}
	for _, d := range dumps {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t-\t-\t-\t%s\n", d.Name, d.Vendor, dash(d.DeviceType), d.Mechanism, "make a live dump ("+d.Steps+")")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nConfidence:")
	for _, r := range rows {
		fmt.Fprintf(w, "  %s: %s\n", r.Name, r.Confidence)
	}
	fmt.Fprintln(w, "\nDump required (no public kernel source and no evidence to derive one from):")
	for _, d := range dumps {
		fmt.Fprintf(w, "  %s: %s. Next: %s\n", d.Name, d.Note, d.NextStep)
	}
	return nil
}
