// Package config reads .tfscan.yaml, the per-repository settings of
// `tfscan check` (targets, thresholds, per-model overrides, ignore rules).
// Keys are the command's flag names with underscores; flags given on the
// command line override the file.
//
// Discovery: starting in the working directory and walking up, the first
// directory holding .tfscan.yaml wins; the walk stops at the repository root
// (the first directory holding .git) so that a file outside the repository is
// never picked up. --config FILE names a file explicitly.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/tfscan/tfscan/reports/gate"
)

// FileName is the configuration file tfscan looks for.
const FileName = ".tfscan.yaml"

// maxSize bounds what is read: a configuration file is small.
const maxSize = 1 << 20

// File is a parsed configuration file. Relative paths in it (registry,
// baseline) are already resolved against the file's directory.
type File struct {
	Path       string
	Targets    []string
	Registries []string
	Signature  string
	Jobs       int
	Baseline   string
	Formats    []string
	// From is the source the targets are compared with ("" when the file
	// does not say); Phases the counted phases.
	From   string
	Phases []string
	Policy gate.Policy
}

// Error is a configuration error with the file and line it is about.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Find returns the configuration file that applies in dir, or "" if none.
func Find(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, FileName)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return "", nil // repository root reached
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", nil
		}
		dir = parent
	}
}

// thresholdKeys are the keys a model override may hold.
var thresholdKeys = []string{"min_coverage", "max_fallback_nodes", "max_partitions", "max_transfer_bytes",
	"max_new_fallback_nodes", "fail_on"}

var topKeys = append([]string{"targets", "target", "registry", "signature", "jobs", "baseline", "format", "from", "phase",
	"overrides", "ignore"}, thresholdKeys...)

var ignoreKeys = []string{"op", "node", "target", "reason", "until"}

type thresholds struct {
	MinCoverage         *float64 `yaml:"min_coverage"`
	MaxFallbackNodes    *int     `yaml:"max_fallback_nodes"`
	MaxPartitions       *int     `yaml:"max_partitions"`
	MaxTransferBytes    *int64   `yaml:"max_transfer_bytes"`
	MaxNewFallbackNodes *int     `yaml:"max_new_fallback_nodes"`
	FailOn              strList  `yaml:"fail_on"`
}

type raw struct {
	thresholds `yaml:",inline"`
	Targets    strList `yaml:"targets"`
	Target     strList `yaml:"target"`
	Registry   strList `yaml:"registry"`
	Signature  string  `yaml:"signature"`
	Jobs       int     `yaml:"jobs"`
	Baseline   string  `yaml:"baseline"`
	Format     strList `yaml:"format"`
	From       string  `yaml:"from"`
	Phase      strList `yaml:"phase"`
	Overrides  []struct {
		Model      string `yaml:"model"`
		thresholds `yaml:",inline"`
	} `yaml:"overrides"`
	Ignore []struct {
		Op     string    `yaml:"op"`
		Node   string    `yaml:"node"`
		Target string    `yaml:"target"`
		Reason string    `yaml:"reason"`
		Until  yaml.Node `yaml:"until"`
	} `yaml:"ignore"`
}

// strList accepts a YAML list or a comma-separated string, like the flags.
type strList []string

func (s *strList) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		for _, p := range strings.Split(n.Value, ",") {
			if p = strings.TrimSpace(p); p != "" {
				*s = append(*s, p)
			}
		}
		return nil
	case yaml.SequenceNode:
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: want a string", c.Line)}}
			}
			*s = append(*s, c.Value)
		}
		return nil
	}
	return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: want a list of strings", n.Line)}}
}

// Load reads and checks a configuration file. Unknown keys, wrong types and
// invalid thresholds or ignore rules are errors naming the file and line.
func Load(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{File: path, Msg: err.Error()}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSize+1))
	if err != nil {
		return nil, &Error{File: path, Msg: err.Error()}
	}
	if len(data) > maxSize {
		return nil, &Error{File: path, Msg: "larger than 1 MiB; not a configuration file"}
	}
	return Parse(path, data)
}

// Parse checks and decodes configuration data; path names it in errors and
// anchors relative paths.
func Parse(path string, data []byte) (*File, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return &File{Path: path}, nil // empty file
		}
		return nil, yamlError(path, err)
	}
	if len(doc.Content) == 0 {
		return &File{Path: path}, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, &Error{File: path, Line: root.Line, Msg: "want a mapping of settings"}
	}
	if err := checkKeys(path, root, topKeys, ""); err != nil {
		return nil, err
	}
	lines := map[string][]int{} // section → line of each entry
	for i := 0; i+1 < len(root.Content); i += 2 {
		key, val := root.Content[i].Value, root.Content[i+1]
		switch key {
		case "overrides", "ignore":
			if val.Kind != yaml.SequenceNode {
				return nil, &Error{File: path, Line: val.Line, Msg: key + ": want a list"}
			}
			allowed := append([]string{"model"}, thresholdKeys...)
			if key == "ignore" {
				allowed = ignoreKeys
			}
			for _, item := range val.Content {
				if item.Kind != yaml.MappingNode {
					return nil, &Error{File: path, Line: item.Line, Msg: key + ": each entry must be a mapping"}
				}
				if err := checkKeys(path, item, allowed, key+": "); err != nil {
					return nil, err
				}
				lines[key] = append(lines[key], item.Line)
			}
		}
	}
	var r raw
	if err := root.Decode(&r); err != nil {
		return nil, yamlError(path, err)
	}
	out := &File{Path: path, Signature: r.Signature, Jobs: r.Jobs, Formats: r.Format, From: r.From, Phases: r.Phase}
	if len(r.Target) > 0 && len(r.Targets) > 0 {
		return nil, &Error{File: path, Msg: "give targets or target, not both"}
	}
	out.Targets = append(r.Targets, r.Target...)
	if r.Jobs < 0 {
		return nil, &Error{File: path, Msg: "jobs must not be negative"}
	}
	dir := filepath.Dir(path)
	rel := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	for _, reg := range r.Registry {
		// a built-in pack name stays a name; a path is anchored at the file
		if strings.ContainsAny(reg, `/\`) || strings.HasSuffix(reg, ".pbtxt") || strings.HasSuffix(reg, ".json") || strings.HasSuffix(reg, ".yaml") {
			reg = rel(reg)
		}
		out.Registries = append(out.Registries, reg)
	}
	out.Baseline = rel(r.Baseline)
	out.Policy.Thresholds = r.thresholds.policy()
	for i, o := range r.Overrides {
		if o.Model == "" {
			return nil, &Error{File: path, Line: lines["overrides"][i], Msg: "overrides: each entry needs a model pattern"}
		}
		out.Policy.Overrides = append(out.Policy.Overrides, gate.Override{Model: o.Model, Thresholds: o.thresholds.policy()})
	}
	for i, ig := range r.Ignore {
		until := ""
		if ig.Until.Kind != 0 {
			until = ig.Until.Value
		}
		out.Policy.Ignore = append(out.Policy.Ignore, gate.IgnoreRule{
			Op: ig.Op, Node: ig.Node, Target: ig.Target, Reason: ig.Reason, Until: until,
			Source: fmt.Sprintf("%s:%d", filepath.Base(path), lines["ignore"][i]),
		})
	}
	if err := out.Policy.Validate(); err != nil {
		return nil, &Error{File: path, Msg: err.Error()}
	}
	return out, nil
}

func (t thresholds) policy() gate.Thresholds {
	return gate.Thresholds{MinCoverage: t.MinCoverage, MaxFallbackNodes: t.MaxFallbackNodes,
		MaxPartitions: t.MaxPartitions, MaxTransferBytes: t.MaxTransferBytes, MaxNewFallbackNodes: t.MaxNewFallbackNodes,
		FailOn: t.FailOn}
}

func checkKeys(path string, m *yaml.Node, allowed []string, prefix string) error {
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if !slices.Contains(allowed, k.Value) {
			return &Error{File: path, Line: k.Line, Msg: fmt.Sprintf("%sunknown key %q (known: %s)", prefix, k.Value, strings.Join(sorted(allowed), ", "))}
		}
		if seen[k.Value] {
			return &Error{File: path, Line: k.Line, Msg: fmt.Sprintf("%skey %q given twice", prefix, k.Value)}
		}
		seen[k.Value] = true
	}
	return nil
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// yamlError turns a yaml.v3 error ("yaml: line 3: ..." or a TypeError with
// "line 3: ..." entries) into an Error with the line.
func yamlError(path string, err error) error {
	msg := err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	line := 0
	if n, _ := fmt.Sscanf(msg, "line %d:", &line); n == 1 {
		if i := strings.Index(msg, ":"); i >= 0 {
			msg = strings.TrimSpace(msg[i+1:])
		}
	}
	return &Error{File: path, Line: line, Msg: msg}
}
