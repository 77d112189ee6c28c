package scan

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"

	"github.com/tfscan/tfscan/reports"
)

// recordOptions is what the report records of opts (reports.Options): the
// options that change results, files by their content so that runners with
// different checkouts agree.
func recordOptions(opts Options, ts *Targets, counted PhaseSet) (*reports.Options, error) {
	o := &reports.Options{
		From:            "none",
		Phases:          counted.Names(),
		Signature:       opts.Signature,
		Fetches:         slices.Clone(opts.Fetches),
		Tags:            slices.Clone(opts.Tags),
		NoPlacement:     opts.Placement.Disabled,
		NoSoftPlacement: opts.Placement.NoSoftPlacement,
		ClearDevices:    opts.Placement.ClearDevices,
		Precision:       opts.Placement.Precision,
		PrecisionMode:   opts.Stack.PrecisionMode,
		Nodes:           reports.NodesAttention,
	}
	if opts.AllNodes {
		o.Nodes = reports.NodesAll
	}
	if len(opts.Stack.Options) > 0 {
		o.StackOptions = maps.Clone(opts.Stack.Options)
	}
	for _, t := range ts.List {
		o.Targets = append(o.Targets, t.Name)
	}
	if ts.From != nil {
		o.From = ts.From.Name
	}
	if len(opts.Placement.Dims) > 0 {
		o.Dims = maps.Clone(opts.Placement.Dims)
	}
	for _, f := range opts.Registries {
		h, err := HashFile(f)
		if err != nil {
			return nil, &UsageError{fmt.Errorf("--registry %s: %w", f, err)}
		}
		o.Registries = append(o.Registries, h)
	}
	if f := opts.Placement.CompareLog; f != "" {
		h, err := HashFile(f)
		if err != nil {
			return nil, &UsageError{fmt.Errorf("--compare-log %s: %w", f, err)}
		}
		o.CompareLog = h
	}
	if s := opts.Shard; s != nil {
		o.Shard = &reports.Shard{Index: s.Index, Count: s.Count}
	}
	return o, nil
}

// HashFile is "sha256:HEX" of a file's content.
func HashFile(file string) (string, error) {
	f, err := os.Open(file)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}
