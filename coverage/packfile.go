package coverage

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	avpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"
	opdefpb "github.com/wamuir/graft/tensorflow/core/framework/op_def_go_proto"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// PackFormat is the format tag written into every pack file, so that a later
// tfscan can tell an old layout from a new one.
const PackFormat = "tfscan-pack/v1"

// maxPackBytes bounds how much a pack or dump may expand to in memory. The
// largest real registry (TF CPU+GPU+DEFAULT) is a few MiB of JSON. A
// variable so that tests can lower it.
var maxPackBytes int64 = 256 << 20

// packHeader is the JSON layout of a pack file; kernels are kept raw so each
// one is read with protojson and written in a canonical compact form.
type packHeader struct {
	Format        string            `json:"format"`
	Name          string            `json:"name"`
	Vendor        string            `json:"vendor"`
	DeviceType    string            `json:"device_type"`
	Mechanism     Mechanism         `json:"mechanism"`
	TFVersion     string            `json:"tf_version"`
	Source        string            `json:"source"`
	Method        Method            `json:"method"`
	Date          string            `json:"date"`
	Confidence    string            `json:"confidence"`
	Level         Level             `json:"confidence_level,omitempty"`
	BuildFlags    []string          `json:"build_flags,omitempty"`
	Derived       *Derivation       `json:"derived,omitempty"`
	Newer         []string          `json:"ops_newer_than_stack,omitempty"`
	UnresolvedOps []string          `json:"unresolved_ops,omitempty"`
	Precision     string            `json:"precision,omitempty"`
	Complete      []CompleteOp      `json:"complete_ops,omitempty"`
	Stack         *Stack            `json:"stack,omitempty"`
	OpDefs        []json.RawMessage `json:"op_defs,omitempty"`
	Kernels       []json.RawMessage `json:"kernels"`
}

// ReadPack reads one pack file (JSON, optionally gzip-compressed) written by
// WritePack. It checks the provenance fields and every KernelDef.
func ReadPack(r io.Reader) (*Pack, error) {
	data, err := readAllMaybeGzip(r)
	if err != nil {
		return nil, err
	}
	return parsePack(data)
}

// parsePack decodes a pack file's JSON. The fast decoder (packfast.go) reads
// the packs WritePack writes; whatever it cannot promise to read exactly as
// parsePackProtojson does, bad packs included, is read by parsePackProtojson,
// so that results and error messages are those of the plain decode.
func parsePack(data []byte) (*Pack, error) {
	if p, ok := parsePackFast(data); ok {
		return p, nil
	}
	return parsePackProtojson(data)
}

// parsePackProtojson is the plain decode: encoding/json for the document,
// protojson for every KernelDef. It defines what parsePack returns.
func parsePackProtojson(data []byte) (*Pack, error) {
	var h packHeader
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return nil, fmt.Errorf("not a tfscan pack: %w", err)
	}
	p, err := h.pack()
	if err != nil {
		return nil, err
	}
	p.Kernels = make([]*kdpb.KernelDef, 0, len(h.Kernels))
	for i, raw := range h.Kernels {
		k := &kdpb.KernelDef{}
		if err := protojson.Unmarshal(raw, k); err != nil {
			return nil, fmt.Errorf("kernel %d: %w", i, err)
		}
		if err := checkKernel(k); err != nil {
			return nil, fmt.Errorf("kernel %d: %w", i, err)
		}
		p.Kernels = append(p.Kernels, k)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return p, nil
}

// pack checks the format tag and returns the pack the header describes, its
// OpDefs decoded and no kernels yet.
func (h *packHeader) pack() (*Pack, error) {
	if h.Format != PackFormat {
		return nil, fmt.Errorf("not a tfscan pack: format is %q, want %q", h.Format, PackFormat)
	}
	p := &Pack{
		Name: h.Name, Vendor: h.Vendor, DeviceType: h.DeviceType, Mechanism: h.Mechanism,
		TFVersion: h.TFVersion, Source: h.Source, Method: h.Method, Date: h.Date,
		Confidence: h.Confidence, UnresolvedOps: h.UnresolvedOps, Precision: h.Precision,
		Complete:        h.Complete,
		Stack:           h.Stack,
		ConfidenceLevel: h.Level, BuildFlags: h.BuildFlags, Derived: h.Derived, NewerThanStack: h.Newer,
	}
	if p.ConfidenceLevel == "" && p.Method == MethodLiveDump {
		// Packs imported before confidence_level existed.
		p.ConfidenceLevel = LevelHigh
	}
	for i, raw := range h.OpDefs {
		d := &opdefpb.OpDef{}
		if err := protojson.Unmarshal(raw, d); err != nil {
			return nil, fmt.Errorf("op_defs %d: %w", i, err)
		}
		if d.GetName() == "" {
			return nil, fmt.Errorf("op_defs %d: OpDef has no name", i)
		}
		p.OpDefs = append(p.OpDefs, d)
	}
	return p, nil
}

// Validate reports the first missing or impossible provenance field: a pack
// whose origin is unknown cannot be trusted in a report.
func (p *Pack) Validate() error {
	if err := CheckPackName(p.Name); err != nil {
		return err
	}
	switch {
	case p.DeviceType == "":
		return fmt.Errorf("pack %q has no device_type", p.Name)
	case p.Source == "":
		return fmt.Errorf("pack %q has no source", p.Name)
	}
	switch p.Mechanism {
	case MechanismKernel, MechanismGraphOffload, MechanismXLACluster:
	case MechanismDerived:
		d := p.Derived
		switch {
		case d == nil || d.Base == "":
			return fmt.Errorf("derived pack %q does not name its base pack", p.Name)
		case d.Rule == "" || len(d.Evidence) == 0:
			return fmt.Errorf("derived pack %q needs a rule and evidence", p.Name)
		case d.BaseMechanism != MechanismKernel && d.BaseMechanism != MechanismXLACluster && d.BaseMechanism != MechanismGraphOffload:
			return fmt.Errorf("derived pack %q: unknown base mechanism %q", p.Name, d.BaseMechanism)
		}
	default:
		return fmt.Errorf("pack %q: unknown mechanism %q", p.Name, p.Mechanism)
	}
	if p.Mechanism != MechanismDerived && p.Derived != nil {
		return fmt.Errorf("pack %q has a derivation but mechanism %q", p.Name, p.Mechanism)
	}
	switch p.ConfidenceLevel {
	case "", LevelHigh, LevelMedium, LevelLow:
	default:
		return fmt.Errorf("pack %q: confidence_level must be high, medium or low, not %q", p.Name, p.ConfidenceLevel)
	}
	switch p.Method {
	case MethodSourceExtraction, MethodLiveDump, MethodDocumentation, MethodLearnedFromLog, MethodDerived:
	default:
		return fmt.Errorf("pack %q: unknown method %q", p.Name, p.Method)
	}
	if err := p.Stack.validate(p.Name); err != nil {
		return err
	}
	return p.checkLearned()
}

// CheckPackName rejects names that cannot be used as --target values or
// file names.
func CheckPackName(name string) error {
	switch {
	case name == "":
		return errors.New("pack has no name")
	case strings.ContainsAny(name, " \t\n/\\,"):
		return fmt.Errorf("pack name %q has spaces, commas or slashes", name)
	}
	return nil
}

// checkKernel rejects KernelDefs TensorFlow itself could never register.
func checkKernel(k *kdpb.KernelDef) error {
	if k.GetOp() == "" {
		return errors.New("kernel has no op")
	}
	if k.GetDeviceType() == "" {
		return fmt.Errorf("kernel for op %q has no device_type", k.GetOp())
	}
	for _, c := range k.GetConstraint() {
		if c.GetName() == "" {
			return fmt.Errorf("kernel for op %q has a constraint without an attr name", k.GetOp())
		}
	}
	return nil
}

// WritePack writes p as one deterministic JSON document: provenance fields
// first, then one canonical compact line per KernelDef, kernels sorted (see
// SortKernels). The same pack always gives the same bytes. WritePack sorts
// p.Kernels in place.
func WritePack(w io.Writer, p *Pack) error {
	if err := p.Validate(); err != nil {
		return err
	}
	p.Kernels = SortKernels(p.Kernels)
	bw := bufio.NewWriter(w)
	field := func(key string, v any, comma bool) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(bw, "  %q: %s", key, b)
		if comma {
			bw.WriteString(",")
		}
		bw.WriteString("\n")
	}
	bw.WriteString("{\n")
	field("format", PackFormat, true)
	field("name", p.Name, true)
	field("vendor", p.Vendor, true)
	field("device_type", p.DeviceType, true)
	field("mechanism", p.Mechanism, true)
	field("tf_version", p.TFVersion, true)
	field("source", p.Source, true)
	field("method", p.Method, true)
	field("date", p.Date, true)
	field("confidence", p.Confidence, true)
	if p.ConfidenceLevel != "" {
		field("confidence_level", p.ConfidenceLevel, true)
	}
	if len(p.BuildFlags) > 0 {
		field("build_flags", p.BuildFlags, true)
	}
	if p.Derived != nil {
		field("derived", p.Derived, true)
	}
	if len(p.NewerThanStack) > 0 {
		field("ops_newer_than_stack", p.NewerThanStack, true)
	}
	if len(p.UnresolvedOps) > 0 {
		ops := slices.Clone(p.UnresolvedOps)
		slices.Sort(ops)
		field("unresolved_ops", slices.Compact(ops), true)
	}
	if p.Precision != "" {
		field("precision", p.Precision, true)
	}
	if len(p.Complete) > 0 {
		field("complete_ops", p.Complete, true)
	}
	if p.Stack != nil {
		// Indented: the declarations are read by people checking provenance.
		b, err := json.MarshalIndent(p.Stack, "  ", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(bw, "  %q: %s,\n", "stack", b)
	}
	if len(p.OpDefs) > 0 {
		defs := slices.Clone(p.OpDefs)
		slices.SortFunc(defs, func(a, b *opdefpb.OpDef) int { return strings.Compare(a.GetName(), b.GetName()) })
		bw.WriteString("  \"op_defs\": [")
		for i, d := range defs {
			line, err := canonicalJSON(d)
			if err != nil {
				return fmt.Errorf("op_defs %q: %w", d.GetName(), err)
			}
			if i > 0 {
				bw.WriteString(",")
			}
			bw.WriteString("\n    ")
			bw.Write(line)
		}
		bw.WriteString("\n  ],\n")
	}
	bw.WriteString("  \"kernels\": [")
	for i, k := range p.Kernels {
		line, err := canonicalJSON(k)
		if err != nil {
			return fmt.Errorf("kernel for op %q: %w", k.GetOp(), err)
		}
		if i > 0 {
			bw.WriteString(",")
		}
		bw.WriteString("\n    ")
		bw.Write(line)
	}
	if len(p.Kernels) > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteString("]\n}\n")
	return bw.Flush()
}

// WritePackGzip writes p like WritePack, gzip-compressed with a fixed header
// (no name, no time) so the compressed bytes are reproducible too.
func WritePackGzip(w io.Writer, p *Pack) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	if err := WritePack(zw, p); err != nil {
		return err
	}
	return zw.Close()
}

// canonicalJSON is protojson with proto field names, with the
// deliberately unstable whitespace of protojson removed.
func canonicalJSON(m proto.Message) ([]byte, error) {
	b, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(m)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// NormalizeKernel puts one KernelDef in canonical form without changing what
// it matches: constraints sorted by attr name, allowed values sorted and
// deduplicated, host-memory args sorted and deduplicated. TensorFlow checks
// every constraint and treats host_memory_arg as a set, so order carries no
// meaning.
func NormalizeKernel(k *kdpb.KernelDef) {
	slices.SortFunc(k.Constraint, func(a, b *kdpb.KernelDef_AttrConstraint) int {
		return strings.Compare(a.GetName(), b.GetName())
	})
	for _, c := range k.Constraint {
		l := c.GetAllowedValues().GetList()
		if l == nil {
			continue
		}
		slices.Sort(l.Type)
		l.Type = slices.Compact(l.Type)
		slices.Sort(l.I)
		l.I = slices.Compact(l.I)
		slices.SortFunc(l.S, bytes.Compare)
		l.S = slices.CompactFunc(l.S, bytes.Equal)
	}
	slices.Sort(k.HostMemoryArg)
	k.HostMemoryArg = slices.Compact(k.HostMemoryArg)
}

// SortKernels normalizes every kernel, sorts them by (op, device_type,
// label, priority, constraints, host memory) and drops exact duplicates
// (the same registration reached twice through overlapping type macros).
func SortKernels(ks []*kdpb.KernelDef) []*kdpb.KernelDef {
	for _, k := range ks {
		NormalizeKernel(k)
	}
	slices.SortStableFunc(ks, compareKernels)
	return slices.CompactFunc(ks, func(a, b *kdpb.KernelDef) bool { return proto.Equal(a, b) })
}

func compareKernels(a, b *kdpb.KernelDef) int {
	if c := strings.Compare(a.GetOp(), b.GetOp()); c != 0 {
		return c
	}
	if c := strings.Compare(a.GetDeviceType(), b.GetDeviceType()); c != 0 {
		return c
	}
	if c := strings.Compare(a.GetLabel(), b.GetLabel()); c != 0 {
		return c
	}
	if a.GetPriority() != b.GetPriority() {
		if a.GetPriority() < b.GetPriority() {
			return -1
		}
		return 1
	}
	if c := strings.Compare(constraintKey(a), constraintKey(b)); c != 0 {
		return c
	}
	return strings.Compare(strings.Join(a.GetHostMemoryArg(), ","), strings.Join(b.GetHostMemoryArg(), ","))
}

// constraintKey renders a kernel's constraints as a sortable string.
func constraintKey(k *kdpb.KernelDef) string {
	var sb strings.Builder
	for _, c := range k.GetConstraint() {
		sb.WriteString(c.GetName())
		sb.WriteString("=")
		sb.WriteString(allowedString(c.GetAllowedValues()))
		sb.WriteString(";")
	}
	return sb.String()
}

func allowedString(v *avpb.AttrValue) string {
	l := v.GetList()
	if l == nil {
		return ""
	}
	var parts []string
	for _, t := range l.GetType() {
		parts = append(parts, fmt.Sprintf("%03d", int(t)))
	}
	for _, i := range l.GetI() {
		parts = append(parts, fmt.Sprintf("i%d", i))
	}
	for _, s := range l.GetS() {
		parts = append(parts, "s"+string(s))
	}
	for _, b := range l.GetB() {
		parts = append(parts, fmt.Sprintf("b%t", b))
	}
	return strings.Join(parts, ",")
}

// readAllMaybeGzip reads r, gunzipping when the data starts with the gzip
// magic, and refuses anything that expands past maxPackBytes.
func readAllMaybeGzip(r io.Reader) ([]byte, error) {
	br := bufio.NewReader(r)
	magic, _ := br.Peek(2)
	var src io.Reader = br
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("bad gzip data: %w", err)
		}
		defer zr.Close()
		src = zr
	}
	data, err := io.ReadAll(io.LimitReader(src, maxPackBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading: %w", err)
	}
	if int64(len(data)) > maxPackBytes {
		return nil, fmt.Errorf("larger than %d MiB", maxPackBytes>>20)
	}
	return data, nil
}
