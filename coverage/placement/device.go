package placement

import (
	"fmt"
	"strconv"
	"strings"
)

// devSpec is a parsed, possibly partial device name. Only type and id matter
// on the one-machine device set tfscan simulates; job, replica and task are
// kept for messages.
type devSpec struct {
	typ   string // upper case; "" = unspecified
	id    int
	hasID bool
	raw   string
}

func (d devSpec) empty() bool { return d.typ == "" && !d.hasID }

// String renders the spec the way DeviceNameUtils::ParsedNameToString does
// for a local device.
func (d devSpec) String() string {
	var b strings.Builder
	b.WriteString("/job:localhost/replica:0/task:0")
	if d.typ != "" {
		b.WriteString("/device:")
		b.WriteString(d.typ)
		b.WriteString(":")
		if d.hasID {
			b.WriteString(strconv.Itoa(d.id))
		} else {
			b.WriteString("*")
		}
	}
	return b.String()
}

// parseDevice parses the forms TensorFlow accepts
// (tsl/util/device_name_utils.cc: ParseFullName and the legacy "/cpu:0").
func parseDevice(s string) (devSpec, error) {
	d := devSpec{raw: s}
	s = strings.TrimSpace(s)
	if s == "" {
		return d, nil
	}
	parts := strings.Split(strings.TrimPrefix(s, "/"), "/")
	for _, p := range parts {
		if p == "" {
			continue
		}
		key, val, ok := strings.Cut(p, ":")
		switch strings.ToLower(key) {
		case "job", "replica", "task":
			continue
		case "device":
			t, id, _ := strings.Cut(val, ":")
			d.typ = strings.ToUpper(t)
			if id != "" && id != "*" {
				n, err := strconv.Atoi(id)
				if err != nil || n < 0 {
					return d, fmt.Errorf("bad device id in %q", s)
				}
				d.id, d.hasID = n, true
			}
		default:
			if !ok {
				// "CPU:0" without a leading slash splits as key CPU, val 0 above;
				// a bare word is not a device.
				return d, fmt.Errorf("bad device specification %q", s)
			}
			// legacy "/cpu:0", "/gpu:1" and bare "GPU:0"
			if val == "*" {
				d.typ = strings.ToUpper(key)
				continue
			}
			n, err := strconv.Atoi(val)
			if err != nil || n < 0 {
				return d, fmt.Errorf("bad device specification %q", s)
			}
			d.typ, d.id, d.hasID = strings.ToUpper(key), n, true
		}
	}
	if d.typ == "*" {
		d.typ = ""
	}
	return d, nil
}

// mergeSpecs merges two requested specs field-wise like
// DeviceNameUtils::MergeDevNames (tsl/util/device_name_utils.cc:344-434).
// Under soft placement a type conflict clears type and id and an id
// conflict clears the id; otherwise a conflict is an error.
func mergeSpecs(a, b devSpec, soft bool) (devSpec, error) {
	out := a
	if b.typ != "" {
		if a.typ != "" && a.typ != b.typ {
			if !soft {
				return a, fmt.Errorf("Cannot merge devices with incompatible types: '%s' and '%s'", specName(a), specName(b))
			}
			return devSpec{}, nil
		}
		out.typ = b.typ
	}
	if b.hasID {
		if a.hasID && a.id != b.id {
			if !soft {
				return a, fmt.Errorf("Cannot merge devices with incompatible ids: '%s' and '%s'", specName(a), specName(b))
			}
			out.hasID, out.id = false, 0
			return out, nil
		}
		out.hasID, out.id = true, b.id
	}
	return out, nil
}

func specName(d devSpec) string {
	if d.raw != "" {
		return d.raw
	}
	return d.String()
}

// typePriority is DeviceFactory::DevicePriority for the device types tfscan
// knows (tensorflow/core/framework/device_factory.cc:70-79): GPU 210
// (gpu_device_factory.cc:77), CPU 70 in a GPU build (gpu_device_factory.cc:146),
// and every other type 220, the PluggableDevice priority
// (pluggable_device_plugin_init.cc:61-64). XLA JIT device types are not
// placement devices in TF at all (their priority would be 50,
// device_factory.h:146-149, and MaybeExcludeXlaDevices drops them); tfscan
// simulates an XLA or graph-offload target as an accelerator whose kernels
// are its op registry, so it ranks it like a pluggable device.
func typePriority(t string) int {
	switch t {
	case "GPU":
		return 210
	case "CPU":
		return 70
	default:
		return 220
	}
}

// fullName is the full local device name TF prints.
func fullName(dev string) string {
	return "/job:localhost/replica:0/task:0/device:" + dev
}
