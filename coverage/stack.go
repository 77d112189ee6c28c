package coverage

import (
	"fmt"
	"slices"
	"strings"
)

// Stack is what a vendor stack does to a graph around the kernel lookup,
// as the registry extractor read it from the stack's own source: the
// precision modes of a graph-compiling stack, the options that change how
// it partitions a graph, and the graph optimizer that rewrites nodes before
// its kernels run. Every entry names the file and line (or the document) it
// comes from, so that a report can say why it predicts what it predicts.
// tfscan applies these declarations; it never switches on a pack's name.
type Stack struct {
	Precision *PrecisionModes `json:"precision,omitempty"`
	Options   []StackOption   `json:"options,omitempty"`
	Optimizer *Optimizer      `json:"optimizer,omitempty"`
}

// PrecisionModes are the values of a stack setting that decides in which
// dtype the stack's compiler runs float32 nodes (CANN's precision_mode).
type PrecisionModes struct {
	// Option is the stack's own name of the setting, e.g. "precision_mode".
	Option string `json:"option"`
	// Source is where the stack lists the values it accepts (file:line).
	Source string `json:"source"`
	// Default is the mode applied when the user sets none, with where that
	// is stated; empty when the default depends on the chip (ChipDefaults).
	Default       string `json:"default,omitempty"`
	DefaultSource string `json:"default_source,omitempty"`
	// ChipDefaults give the default per value of the option of kind "chip"
	// ("*" for every other chip), from the vendor's documentation.
	ChipDefaults []ChipDefault   `json:"chip_defaults,omitempty"`
	Modes        []PrecisionMode `json:"modes"`
	MatrixOps    []string        `json:"matrix_ops,omitempty"`
	MatrixSource string          `json:"matrix_source,omitempty"`
	Mixed        *MixedLists     `json:"mixed,omitempty"`
	// Error is how the stack reports a graph its compiler rejects, in its
	// own words, and where it says so.
	Error       string `json:"error,omitempty"`
	ErrorSource string `json:"error_source,omitempty"`
	// CompilerError is the compiler's own message for a node it finds no
	// kernel for (a template with %s for the node name, then the op), and
	// where it is printed.
	CompilerError       string `json:"compiler_error,omitempty"`
	CompilerErrorSource string `json:"compiler_error_source,omitempty"`
}

// MixedLists are a stack's own mixed-precision lists: ops whose
// precision it may reduce, and ops it keeps in float32.
type MixedLists struct {
	Reduce []string `json:"reduce"`
	Keep   []string `json:"keep"`
	Source string   `json:"source"`
}

// ChipDefault is the default precision mode on one chip.
type ChipDefault struct {
	Chip   string `json:"chip"`
	Mode   string `json:"mode"`
	Source string `json:"source"`
}

// PrecisionMode is one value of the precision setting and what it does to
// float32 nodes. Matrix applies to MatrixOps, Vector to every other op:
//
//	keep          float32 where a float32 kernel exists
//	lower         computed in LowerTo wherever a LowerTo kernel exists
//	lower_inputs  inputs in LowerTo, output in float32 (matrix ops only)
//	mixed         lowered when the op is in Mixed.Reduce, else kept
//
// Unsupported says what happens to a float32 node whose kernel has no
// float32 variant: "lower" runs it in LowerTo (float16 when LowerTo is
// empty), "error" makes the compiler reject the graph. A mode without
// Matrix is listed by the stack but has no semantics tfscan knows.
type PrecisionMode struct {
	Name        string `json:"name"`
	Source      string `json:"source"`
	LowerTo     string `json:"lower_to,omitempty"`
	Matrix      string `json:"matrix,omitempty"`
	Vector      string `json:"vector,omitempty"`
	Unsupported string `json:"unsupported,omitempty"`
	// Doc is where the semantics are documented.
	Doc string `json:"doc,omitempty"`
}

// Option kinds tfscan knows how to apply.
const (
	// OptionChip names the chip; it picks the chip's default precision mode.
	OptionChip = "chip"
	// OptionAdapter picks which framework adapter runs the graph; its
	// values are AdapterMixed (unsupported ops run on the host, every
	// supported cluster compiled) or AdapterSession (a session adapter whose
	// mix_compile option decides).
	OptionAdapter = "adapter"
	// OptionMixCompile is a session adapter's switch between one compiled
	// cluster ("false") and several with host partitions ("true").
	OptionMixCompile = "mix_compile"
)

// StackOption is one setting of a stack that changes a prediction.
type StackOption struct {
	Name string `json:"name"`
	// Kind is how tfscan applies it (OptionChip, OptionAdapter, OptionMixCompile).
	Kind   string   `json:"kind"`
	Values []string `json:"values"`
	// ValueSources say where each value's behaviour is (file:line), in
	// Values order.
	ValueSources []string `json:"value_sources,omitempty"`
	// ValueKinds, for an OptionAdapter, say what each value is
	// (AdapterMixed or AdapterSession), in Values order.
	ValueKinds []string `json:"value_kinds,omitempty"`
	Default    string   `json:"default"`
	Source     string   `json:"source"`
	// Applies names the adapter value (OptionAdapter) this option belongs to.
	Applies string `json:"applies,omitempty"`
}

// What the values of an OptionAdapter are (StackOption.ValueKinds).
const (
	AdapterMixed   = "mixed"
	AdapterSession = "session"
)

// Optimizer is the graph optimizer a vendor stack runs on the nodes placed
// on its device, and the fusions tfscan read from it.
type Optimizer struct {
	Name   string `json:"name"`
	Source string `json:"source"`
	// Modelled is false when tfscan could not read the optimizer's
	// rewrites; Note says why, and fusion predictions ignore it.
	Modelled bool      `json:"modelled"`
	Note     string    `json:"note,omitempty"`
	Fusions  []Rewrite `json:"fusions,omitempty"`
}

// Rewrite is one fusion: a chain of single-consumer nodes, producer first
// (each step lists the ops accepted there), replaced by one fused op.
type Rewrite struct {
	Chain [][]string `json:"chain"`
	Fused string     `json:"fused"`
	// DTypes, when set, are the only dtypes the optimizer fuses.
	DTypes []string `json:"dtypes,omitempty"`
	Source string   `json:"source"`
}

// validate rejects declarations tfscan could not apply.
func (st *Stack) validate(pack string) error {
	if st == nil {
		return nil
	}
	if pm := st.Precision; pm != nil {
		if pm.Option == "" || len(pm.Modes) == 0 {
			return fmt.Errorf("pack %q: stack precision needs an option name and modes", pack)
		}
		for _, m := range pm.Modes {
			if m.Name == "" {
				return fmt.Errorf("pack %q: a precision mode has no name", pack)
			}
			if m.Matrix == "" {
				continue
			}
			if !slices.Contains([]string{"keep", "lower", "lower_inputs", "mixed"}, m.Matrix) ||
				!slices.Contains([]string{"keep", "lower", "mixed"}, m.Vector) ||
				!slices.Contains([]string{"lower", "error"}, m.Unsupported) ||
				!slices.Contains([]string{"", "float16", "bfloat16"}, m.LowerTo) {
				return fmt.Errorf("pack %q: precision mode %q has unknown semantics", pack, m.Name)
			}
		}
		if d := pm.Default; d != "" && pm.mode(d) == nil {
			return fmt.Errorf("pack %q: default precision mode %q is not one of its modes", pack, d)
		}
		for _, c := range pm.ChipDefaults {
			if pm.mode(c.Mode) == nil {
				return fmt.Errorf("pack %q: chip %s defaults to precision mode %q, which is not one of its modes", pack, c.Chip, c.Mode)
			}
		}
	}
	for _, o := range st.Options {
		switch o.Kind {
		case OptionChip, OptionAdapter, OptionMixCompile:
		default:
			return fmt.Errorf("pack %q: stack option %q has unknown kind %q", pack, o.Name, o.Kind)
		}
		if o.Name == "" || !slices.Contains(o.Values, o.Default) {
			return fmt.Errorf("pack %q: stack option %q: default %q is not one of its values", pack, o.Name, o.Default)
		}
		if o.Kind == OptionAdapter {
			if len(o.ValueKinds) != len(o.Values) {
				return fmt.Errorf("pack %q: stack option %q needs one value kind per value", pack, o.Name)
			}
			for _, k := range o.ValueKinds {
				if k != AdapterMixed && k != AdapterSession {
					return fmt.Errorf("pack %q: stack option %q: unknown value kind %q", pack, o.Name, k)
				}
			}
		}
		if o.Kind == OptionMixCompile && !slices.Equal(slices.Sorted(slices.Values(o.Values)), []string{"false", "true"}) {
			return fmt.Errorf("pack %q: stack option %q takes true and false", pack, o.Name)
		}
	}
	if op := st.Optimizer; op != nil {
		for _, f := range op.Fusions {
			if len(f.Chain) < 2 || f.Fused == "" {
				return fmt.Errorf("pack %q: optimizer fusion %q needs a chain of two ops or more", pack, f.Fused)
			}
		}
	}
	return nil
}

func (pm *PrecisionModes) mode(name string) *PrecisionMode {
	for i := range pm.Modes {
		if pm.Modes[i].Name == name {
			return &pm.Modes[i]
		}
	}
	return nil
}

// ModeNames lists the precision modes, in the stack's order.
func (pm *PrecisionModes) ModeNames() []string {
	var out []string
	for _, m := range pm.Modes {
		out = append(out, m.Name)
	}
	return out
}

// option finds the first option of a kind.
func (st *Stack) option(kind string) *StackOption {
	for i := range st.Options {
		if st.Options[i].Kind == kind {
			return &st.Options[i]
		}
	}
	return nil
}

// StackSettings are what the user chose for a stack: a precision mode and
// option values by option name. Empty means the stack's defaults.
type StackSettings struct {
	PrecisionMode string
	Options       map[string]string
}

// StackConfig is a pack's stack declarations resolved against the user's
// settings: the precision mode that applies and why, and the option values.
type StackConfig struct {
	Mode *PrecisionMode
	// ModeWhy says where the mode came from: the user, the stack's
	// default, or the chip's documented default.
	ModeWhy string
	// Options are every declared option's value, by name; OptionWhy says
	// which were assumed.
	Options   map[string]string
	OptionWhy []string
	// Mixed is true when unsupported ops become host partitions next to
	// any number of compiled clusters; false for a session adapter without
	// mix_compile, which keeps one compiled cluster.
	Mixed bool
	// MixedSource is the file:line behind Mixed.
	MixedSource string

	stack  *Stack
	matrix map[string]bool
	reduce map[string]bool
}

// Stack returns the declarations the config was resolved from.
func (c *StackConfig) Stack() *Stack { return c.stack }

// ResolveStack applies the user's settings to the pack's stack
// declarations. A setting the pack does not declare is an error; so is a
// mode the stack lists but tfscan has no semantics for. It returns nil, nil
// for a pack without declarations.
func (p *Pack) ResolveStack(s StackSettings) (*StackConfig, error) {
	st := p.Stack
	if s.PrecisionMode != "" && (st == nil || st.Precision == nil) {
		return nil, fmt.Errorf("target %s: its pack declares no precision modes", p.Name)
	}
	if st == nil {
		for k := range s.Options {
			return nil, fmt.Errorf("target %s: its pack declares no stack option %q", p.Name, k)
		}
		return nil, nil
	}
	c := &StackConfig{stack: st, Options: map[string]string{}, Mixed: true}
	for k, v := range s.Options {
		i := slices.IndexFunc(st.Options, func(o StackOption) bool { return o.Name == k })
		if i < 0 {
			return nil, fmt.Errorf("target %s: no stack option %q (options: %s)", p.Name, k, strings.Join(optionNames(st), ", "))
		}
		if !slices.Contains(st.Options[i].Values, v) {
			return nil, fmt.Errorf("target %s: stack option %s=%s: want one of %s", p.Name, k, v, strings.Join(st.Options[i].Values, ", "))
		}
		c.Options[k] = v
	}
	// An option that belongs to one adapter selects that adapter.
	adapter := st.option(OptionAdapter)
	for _, o := range st.Options {
		if _, set := s.Options[o.Name]; set && o.Applies != "" && adapter != nil {
			if v, set := s.Options[adapter.Name]; set && v != o.Applies {
				return nil, fmt.Errorf("target %s: stack option %s applies to %s=%s, not %s", p.Name, o.Name, adapter.Name, o.Applies, v)
			}
			if _, set := c.Options[adapter.Name]; !set {
				c.Options[adapter.Name] = o.Applies
				c.OptionWhy = append(c.OptionWhy, fmt.Sprintf("%s=%s (implied by %s)", adapter.Name, o.Applies, o.Name))
			}
		}
	}
	for _, o := range st.Options {
		if _, set := c.Options[o.Name]; !set {
			c.Options[o.Name] = o.Default
			c.OptionWhy = append(c.OptionWhy, fmt.Sprintf("%s=%s (default)", o.Name, o.Default))
		}
	}
	// Options of another adapter do not apply.
	for _, o := range st.Options {
		if o.Applies != "" && adapter != nil && c.Options[adapter.Name] != o.Applies {
			delete(c.Options, o.Name)
			c.OptionWhy = slices.DeleteFunc(c.OptionWhy, func(w string) bool { return strings.HasPrefix(w, o.Name+"=") })
		}
	}
	// Partitioning: a session adapter without mix_compile keeps one cluster.
	if adapter != nil {
		i := slices.Index(adapter.Values, c.Options[adapter.Name])
		c.MixedSource = at(adapter.ValueSources, i)
		if at(adapter.ValueKinds, i) == AdapterSession {
			if mc := st.option(OptionMixCompile); mc != nil {
				c.Mixed = c.Options[mc.Name] == "true"
				c.MixedSource = at(mc.ValueSources, slices.Index(mc.Values, c.Options[mc.Name]))
			}
		}
	}
	if pm := st.Precision; pm != nil {
		name, why := s.PrecisionMode, "set by --precision-mode"
		if name == "" {
			name, why = pm.defaultFor(st, c.Options)
		}
		if name != "" {
			m := pm.mode(name)
			if m == nil {
				return nil, fmt.Errorf("target %s: unknown %s %q (modes: %s)", p.Name, pm.Option, name, strings.Join(pm.ModeNames(), ", "))
			}
			if m.Matrix == "" {
				return nil, fmt.Errorf("target %s: %s %q is listed by the stack (%s) but tfscan has no documented semantics for it", p.Name, pm.Option, name, m.Source)
			}
			c.Mode, c.ModeWhy = m, why
		}
		c.matrix = toSet(pm.MatrixOps)
		if pm.Mixed != nil {
			c.reduce = toSet(pm.Mixed.Reduce)
		}
	}
	return c, nil
}

func at(xs []string, i int) string {
	if i < 0 || i >= len(xs) {
		return ""
	}
	return xs[i]
}

// defaultFor is the mode applied without --precision-mode, and why.
func (pm *PrecisionModes) defaultFor(st *Stack, opts map[string]string) (string, string) {
	if pm.Default != "" {
		return pm.Default, "the stack's default (" + pm.DefaultSource + ")"
	}
	if st == nil {
		return "", ""
	}
	chip := st.option(OptionChip)
	if chip == nil {
		return "", ""
	}
	v := opts[chip.Name]
	for _, d := range pm.ChipDefaults {
		if d.Chip == v {
			return d.Mode, fmt.Sprintf("the adapter sets none (%s), and this is the documented default on %s=%s (%s)", pm.Source, chip.Name, v, d.Source)
		}
	}
	for _, d := range pm.ChipDefaults {
		if d.Chip == "*" {
			return d.Mode, fmt.Sprintf("the adapter sets none (%s), and this is the documented default on %s=%s (%s)", pm.Source, chip.Name, v, d.Source)
		}
	}
	return "", ""
}

func optionNames(st *Stack) []string {
	var out []string
	for _, o := range st.Options {
		out = append(out, o.Name)
	}
	return out
}

func toSet(xs []string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// Assumed summarises the settings a prediction rests on, for a report:
// "precision_mode=allow_fp32_to_fp16 (the documented default on soc=...); ...".
func (c *StackConfig) Assumed() string {
	if c == nil {
		return ""
	}
	var parts []string
	if c.Mode != nil {
		parts = append(parts, fmt.Sprintf("%s=%s (%s)", c.stack.Precision.Option, c.Mode.Name, c.ModeWhy))
	}
	parts = append(parts, c.OptionWhy...)
	return strings.Join(parts, "; ")
}

// ErrorMessage is the error the stack raises for a node its precision mode
// rejects, in the stack's words where the pack names them (the adapter's
// prefix, the compiler's message), followed by detail (Match.StackError).
func (c *StackConfig) ErrorMessage(path, op, detail string) string {
	var b strings.Builder
	if c != nil && c.stack.Precision != nil {
		pm := c.stack.Precision
		if pm.Error != "" {
			fmt.Fprintf(&b, "%s (%s) ", pm.Error, pm.ErrorSource)
		}
		if strings.Count(pm.CompilerError, "%s") == 2 {
			fmt.Fprintf(&b, pm.CompilerError+" (%s) ", path, op, pm.CompilerErrorSource)
		}
	}
	b.WriteString(path + ": " + detail)
	return b.String()
}
