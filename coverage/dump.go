package coverage

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"
	opdefpb "github.com/wamuir/graft/tensorflow/core/framework/op_def_go_proto"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"

	"github.com/tfscan/tfscan/graph"
)

// DumpHeader is what tools/dump_registry.py records about the install a
// live dump came from: comment lines "# key: value" at the top of a text
// dump, a "tfscan_dump" object in a JSON dump, or FILE.meta.json next to a
// binary dump.
type DumpHeader struct {
	TFVersion string   `json:"tf_version,omitempty"`
	Host      string   `json:"host,omitempty"`
	Plugins   []string `json:"plugins,omitempty"`
	Date      string   `json:"date,omitempty"`
	// DeviceTypes are the device types the install registers: those of
	// its kernels and of the physical devices TensorFlow found.
	DeviceTypes []string `json:"device_types,omitempty"`
	// Packages are "name==version" of the distributions that provide
	// TensorFlow and the loaded plugins (a vendor build shows its local
	// version, e.g. tensorflow==2.6.5+corex.3.1.0).
	Packages []string `json:"packages,omitempty"`
	// Wheels are the file names of the wheels those distributions were
	// installed from, rebuilt from their WHEEL tags.
	Wheels []string `json:"wheels,omitempty"`
	// Kernels and OpDefs are how many of each the script wrote: a dump
	// that holds fewer is truncated. Zero when the header does not say.
	Kernels int `json:"kernels,omitempty"`
	OpDefs  int `json:"op_defs,omitempty"`
}

// Dump is a parsed live dump: TensorFlow's KernelList from
// get_all_registered_kernels() plus its header.
type Dump struct {
	Header  DumpHeader
	Kernels []*kdpb.KernelDef
	// OpDefs are the install's registered ops (TF_GetAllOpList), when the
	// dump carries them.
	OpDefs []*opdefpb.OpDef
}

// opListMarker separates the KernelList from the OpList in a text dump.
const opListMarker = "# tfscan: op_list"

// DeviceTypes lists the device types in the dump, sorted.
func (d *Dump) DeviceTypes() []string {
	var out []string
	for _, k := range d.Kernels {
		out = append(out, k.GetDeviceType())
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// ImportOptions name the pack a dump becomes. Empty fields fall back to the
// dump header.
type ImportOptions struct {
	Name       string
	Vendor     string
	DeviceType string // which device's kernels; may be empty when the dump has one accelerator type
	Source     string // overrides "live dump from <host/stack>"
	Date       string
	TFVersion  string
}

// LoadRegistryFile reads a --registry file: a tfscan pack (JSON, plain or
// gzip) or a raw live dump (a KernelList as binary proto, text proto or
// protojson). A dump gives one pack per device type in it, named by the
// device type (e.g. "XPU"); every non-DEFAULT pack also carries the dump's
// DEFAULT kernels, the exact fallback set of that install. Errors name path.
func LoadRegistryFile(path string) ([]*Pack, error) {
	data, err := readFileLimited(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if isPackJSON(data) {
		p, err := parsePack(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return []*Pack{p}, nil
	}
	d, err := parseDump(path, data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var packs []*Pack
	for _, dt := range d.DeviceTypes() {
		p, err := d.Pack(ImportOptions{Name: dt, DeviceType: dt})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		packs = append(packs, p)
	}
	return packs, nil
}

// ReadDumpFile reads a live dump (not a pack) from path.
func ReadDumpFile(path string) (*Dump, error) {
	data, err := readFileLimited(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if isPackJSON(data) {
		return nil, fmt.Errorf("%s: this is already a tfscan pack, not a live dump", path)
	}
	d, err := parseDump(path, data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

// Pack turns the dump into one pack with method live_dump: the kernels of
// opts.DeviceType plus the DEFAULT kernels.
func (d *Dump) Pack(opts ImportOptions) (*Pack, error) {
	dt := opts.DeviceType
	types := d.DeviceTypes()
	if dt == "" {
		var accel []string
		for _, t := range types {
			if t != "CPU" && t != DeviceDefault {
				accel = append(accel, t)
			}
		}
		if len(accel) != 1 {
			return nil, fmt.Errorf("dump has device types %s; choose one with --device-type", strings.Join(types, ", "))
		}
		dt = accel[0]
	}
	if !slices.Contains(types, dt) {
		return nil, fmt.Errorf("dump has no kernels for device type %q (it has %s)", dt, strings.Join(types, ", "))
	}
	var ks []*kdpb.KernelDef
	for _, k := range d.Kernels {
		// The CPU kernels of the vendor's own TensorFlow build are the
		// fallback device placement uses for this target (HostKernels).
		host := k.GetDeviceType() == DeviceCPU && dt != DeviceDefault
		if k.GetDeviceType() == dt || k.GetDeviceType() == DeviceDefault || host {
			ks = append(ks, proto.Clone(k).(*kdpb.KernelDef))
		}
	}
	// OpDefs that tfscan's embedded TF 2.15 OpDefs lack: the vendor's
	// custom ops.
	var defs []*opdefpb.OpDef
	known := graph.Default()
	for _, op := range d.OpDefs {
		if known.Lookup(op.GetName()) == nil {
			defs = append(defs, op)
		}
	}
	h := d.Header
	p := &Pack{
		Name:       firstNonEmpty(opts.Name, dt),
		Vendor:     opts.Vendor,
		DeviceType: dt,
		Mechanism:  MechanismKernel,
		TFVersion:  firstNonEmpty(opts.TFVersion, h.TFVersion),
		Source:     firstNonEmpty(opts.Source, h.source()),
		Method:     MethodLiveDump,
		Date:       firstNonEmpty(opts.Date, h.Date),
		Confidence: "TensorFlow's own registry (get_all_registered_kernels) on the install that made the dump, DEFAULT and CPU kernels included",
		Kernels:    SortKernels(ks),
		OpDefs:     defs,

		ConfidenceLevel: LevelHigh,
	}
	return p, p.Validate()
}

func (h DumpHeader) source() string {
	var parts []string
	if h.Host != "" {
		parts = append(parts, "host "+h.Host)
	}
	if h.TFVersion != "" {
		parts = append(parts, "TensorFlow "+h.TFVersion)
	}
	if len(h.Plugins) > 0 {
		parts = append(parts, "plugins "+strings.Join(h.Plugins, ", "))
	}
	if len(h.Packages) > 0 {
		parts = append(parts, "packages "+strings.Join(h.Packages, ", "))
	}
	if len(parts) == 0 {
		return "live dump from an unrecorded host/stack"
	}
	return "live dump from " + strings.Join(parts, "; ")
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

func readFileLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAllMaybeGzip(f)
}

// isPackJSON reports whether data is a JSON object with the pack format key.
func isPackJSON(data []byte) bool {
	t := bytes.TrimLeft(data, " \t\r\n")
	if len(t) == 0 || t[0] != '{' {
		return false
	}
	var probe struct {
		Format *string `json:"format"`
	}
	return json.Unmarshal(t, &probe) == nil && probe.Format != nil
}

// parseDump recognises the three KernelList encodings. path is used only to
// find a binary dump's FILE.meta.json sidecar.
func parseDump(path string, data []byte) (*Dump, error) {
	d := &Dump{}
	list := &kdpb.KernelList{}
	t := bytes.TrimLeft(data, " \t\r\n")
	switch {
	case len(t) == 0:
		return nil, errors.New("empty file: neither a tfscan pack nor a KernelList dump")
	case t[0] == '{':
		var top map[string]json.RawMessage
		if err := json.Unmarshal(t, &top); err != nil {
			return nil, fmt.Errorf("not a tfscan pack or KernelList JSON: %w", err)
		}
		if raw, ok := top["tfscan_dump"]; ok {
			if err := json.Unmarshal(raw, &d.Header); err != nil {
				return nil, fmt.Errorf("bad tfscan_dump header: %w", err)
			}
			delete(top, "tfscan_dump")
		}
		if raw, ok := top["op_list"]; ok {
			ops := &opdefpb.OpList{}
			if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(raw, ops); err != nil {
				return nil, fmt.Errorf("bad op_list: %w", err)
			}
			d.OpDefs = ops.GetOp()
			delete(top, "op_list")
		}
		rest, _ := json.Marshal(top)
		if err := protojson.Unmarshal(rest, list); err != nil {
			return nil, fmt.Errorf("not a KernelList in JSON form: %w", err)
		}
	case isText(data):
		d.Header = parseTextHeader(data)
		kernels, opList, _ := bytes.Cut(data, []byte("\n"+opListMarker+"\n"))
		if err := prototext.Unmarshal(kernels, list); err != nil {
			return nil, fmt.Errorf("not a KernelList in text form: %w", err)
		}
		if len(opList) > 0 {
			ops := &opdefpb.OpList{}
			if err := (prototext.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(opList, ops); err != nil {
				return nil, fmt.Errorf("the OpList after %q: %w", opListMarker, err)
			}
			d.OpDefs = ops.GetOp()
		}
	default:
		if err := proto.Unmarshal(data, list); err != nil {
			return nil, fmt.Errorf("not a KernelList in binary form: %w", err)
		}
		if meta, err := os.ReadFile(path + ".meta.json"); err == nil {
			if err := json.Unmarshal(meta, &d.Header); err != nil {
				return nil, fmt.Errorf("%s.meta.json: %w", path, err)
			}
		}
		if raw, err := readFileLimited(path + ".ops.pb"); err == nil {
			ops := &opdefpb.OpList{}
			if err := proto.Unmarshal(raw, ops); err != nil {
				return nil, fmt.Errorf("%s.ops.pb: %w", path, err)
			}
			d.OpDefs = ops.GetOp()
		}
	}
	if len(list.GetKernel()) == 0 {
		return nil, errors.New("KernelList has no kernels")
	}
	if h := d.Header; h.Kernels > 0 && len(list.GetKernel()) != h.Kernels || h.OpDefs > 0 && len(d.OpDefs) != h.OpDefs {
		return nil, fmt.Errorf("truncated dump: its header says %d kernels and %d OpDefs, the file holds %d and %d",
			h.Kernels, h.OpDefs, len(list.GetKernel()), len(d.OpDefs))
	}
	for i, k := range list.GetKernel() {
		if err := checkKernel(k); err != nil {
			return nil, fmt.Errorf("kernel %d: %w", i, err)
		}
	}
	d.Kernels = list.GetKernel()
	return d, nil
}

// isText is a cheap test for text proto: valid UTF-8 with no NUL bytes in
// the first 4 KiB. Binary KernelLists start with field 1 tag 0x0a followed
// by varint lengths and nearly always contain bytes that fail this.
func isText(data []byte) bool {
	head := data[:min(len(data), 4096)]
	if bytes.IndexByte(head, 0) >= 0 {
		return false
	}
	for len(head) > 0 {
		r, size := utf8.DecodeRune(head)
		if r == utf8.RuneError && size == 1 {
			// A multi-byte rune cut at the 4 KiB boundary is fine.
			return len(head) < utf8.UTFMax && len(data) > 4096
		}
		if r < 0x20 && r != '\n' && r != '\r' && r != '\t' {
			return false
		}
		head = head[size:]
	}
	return true
}

// parseTextHeader reads "# key: value" comment lines before the first
// non-comment line of a text dump.
func parseTextHeader(data []byte) DumpHeader {
	var h DumpHeader
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if !strings.HasPrefix(line, "#") {
			break
		}
		key, val, ok := strings.Cut(strings.TrimSpace(strings.TrimPrefix(line, "#")), ":")
		if !ok {
			continue
		}
		val = strings.TrimSpace(val)
		switch strings.TrimSpace(key) {
		case "tf_version":
			h.TFVersion = val
		case "host":
			h.Host = val
		case "date":
			h.Date = val
		case "plugins":
			h.Plugins = splitList(val)
		case "device_types":
			h.DeviceTypes = splitList(val)
		case "packages":
			h.Packages = splitList(val)
		case "wheels":
			h.Wheels = splitList(val)
		case "kernels":
			h.Kernels, _ = strconv.Atoi(val)
		case "op_defs":
			h.OpDefs, _ = strconv.Atoi(val)
		}
	}
	return h
}

// splitList reads a header's comma-separated list ("none" is empty).
func splitList(val string) []string {
	var out []string
	for _, p := range strings.Split(val, ",") {
		if p = strings.TrimSpace(p); p != "" && p != "none" {
			out = append(out, p)
		}
	}
	return out
}
