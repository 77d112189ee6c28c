package reports

import (
	"reflect"
	"slices"
	"strings"
)

// Options are the scan options that change what a report says, recorded in
// the report so that reports can be told apart without rerunning anything:
// `tfscan merge` combines only reports scanned the same way, `tfscan check
// --results` gates results knowing how they were scanned, and the result
// cache keys entries by them. Options that change only how a run goes
// (-j, the progress bar, --format) are not here.
type Options struct {
	// Targets are the --target names, in the order of the report's columns.
	Targets []string `json:"targets"`
	// Registries are the content hashes ("sha256:HEX") of the --registry
	// files, in the order given (a later file's pack wins on a name).
	Registries []string `json:"registries,omitempty"`
	// From is the --from source, "none" when no source was compared.
	From string `json:"from"`
	// Phases are the phases the figures count.
	Phases []string `json:"phases"`
	// Signature, Fetches and Tags are --signature, --fetch and --tags.
	Signature string   `json:"signature,omitempty"`
	Fetches   []string `json:"fetches,omitempty"`
	Tags      []string `json:"tags,omitempty"`
	// NoPlacement, NoSoftPlacement, ClearDevices, Precision and Dims are
	// the placement simulation's options (--no-placement,
	// --no-soft-placement, --clear-devices, --precision, --dim).
	NoPlacement     bool             `json:"no_placement,omitempty"`
	NoSoftPlacement bool             `json:"no_soft_placement,omitempty"`
	ClearDevices    bool             `json:"clear_devices,omitempty"`
	Precision       string           `json:"precision,omitempty"`
	Dims            map[string]int64 `json:"dims,omitempty"`
	// PrecisionMode and StackOptions are --precision-mode and
	// --stack-option, the settings of the targets' stacks.
	PrecisionMode string            `json:"precision_mode,omitempty"`
	StackOptions  map[string]string `json:"stack_options,omitempty"`
	// CompareLog is the content hash of the --compare-log file.
	CompareLog string `json:"compare_log,omitempty"`
	// Nodes is which nodes Target.Nodes lists: "attention" (those that
	// need it, Target.NeedsAttention) or "all".
	Nodes string `json:"nodes"`
	// Shard is the share of the models found that this run scanned
	// (--shard); absent when it scanned them all, and in a merged report.
	Shard *Shard `json:"shard,omitempty"`
}

// Shard is one of Count shares of the models found, numbered from 1.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// SameResults tells whether two runs with these options give the same result
// for the same model: every option but the shard is equal.
func (o *Options) SameResults(p *Options) bool {
	if o == nil || p == nil {
		return o == p
	}
	a, b := *o, *p
	a.Shard, b.Shard = nil, nil
	a.normalize()
	b.normalize()
	return reflect.DeepEqual(a, b)
}

// normalize makes empty lists and maps compare equal to absent ones.
func (o *Options) normalize() {
	if len(o.Registries) == 0 {
		o.Registries = nil
	}
	if len(o.Fetches) == 0 {
		o.Fetches = nil
	}
	if len(o.Tags) == 0 {
		o.Tags = nil
	}
	if len(o.Dims) == 0 {
		o.Dims = nil
	}
	if len(o.StackOptions) == 0 {
		o.StackOptions = nil
	}
	o.Targets = nonNil(o.Targets)
	o.Phases = nonNil(o.Phases)
}

// Differences names the options that differ between o and p, for the
// message that refuses to combine their reports.
func (o *Options) Differences(p *Options) []string {
	var out []string
	if o == nil || p == nil {
		return []string{"options (one report does not record them)"}
	}
	a, b := *o, *p
	a.normalize()
	b.normalize()
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	for i := range va.NumField() {
		f := va.Type().Field(i)
		if f.Name == "Shard" || reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}
