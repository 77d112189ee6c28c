package placement

import (
	"fmt"
	"strconv"
	"strings"
)

// devSpec is a parsed, possibly partial device name
// (DeviceNameUtils::ParsedName). The simulated machine is one task,
// /job:localhost/replica:0/task:0, as a local session or an eager context
// sees itself; job, replica and task still take part in matching, so a
// request for /job:worker matches no device, as in TensorFlow.
type devSpec struct {
	typ               string // as written: TF compares device types case-sensitively
	job               string
	raw               string // the NodeDef's device string, for messages
	id, replica, task int32
	has               devFields
}

// devFields says which fields of a devSpec are set.
type devFields uint8

const (
	hasJob devFields = 1 << iota
	hasReplica
	hasTask
	hasType
	hasID
)

// localJob is the job of the simulated devices (a local session's
// "/job:localhost/replica:0/task:0", device_mgr.cc / session.cc).
const localJob = "localhost"

func (d devSpec) hasType() bool { return d.has&hasType != 0 }
func (d devSpec) hasID() bool   { return d.has&hasID != 0 }

// empty is !DeviceNameUtils::HasSomeDetails.
func (d devSpec) empty() bool { return d.has == 0 }

// localSpec is the full name of local device type typ, id 0.
func localSpec(typ string) devSpec {
	return devSpec{typ: typ, job: localJob, has: hasJob | hasReplica | hasTask | hasType | hasID}
}

// String renders the spec like DeviceNameUtils::ParsedNameToString
// (tsl/util/device_name_utils.cc:241-255): only the fields that are set.
func (d devSpec) String() string {
	var b strings.Builder
	if d.has&hasJob != 0 {
		b.WriteString("/job:" + d.job)
	}
	if d.has&hasReplica != 0 {
		b.WriteString("/replica:" + strconv.Itoa(int(d.replica)))
	}
	if d.has&hasTask != 0 {
		b.WriteString("/task:" + strconv.Itoa(int(d.task)))
	}
	if d.hasType() {
		b.WriteString("/device:" + d.typ + ":")
		if d.hasID() {
			b.WriteString(strconv.Itoa(int(d.id)))
		} else {
			b.WriteString("*")
		}
	}
	return b.String()
}

// parseDevice is DeviceNameUtils::ParseFullName
// (tsl/util/device_name_utils.cc:115-170), the parser the placer applies to
// a NodeDef's device (colocation_graph.cc:201, 225): "/job:J/replica:R/
// task:T/device:TYPE:ID" with any field left out or "*", fields in any
// order, and the legacy "/cpu:N" and "/gpu:N". A local name without the
// leading slash ("GPU:0") is malformed here, and so is anything else it
// does not take; the placer then fails the node.
func parseDevice(s string) (devSpec, error) {
	d := devSpec{raw: s}
	if s == "" || s == "/" {
		return d, nil
	}
	rest, ok := s, true
	for rest != "" && ok {
		progress := false
		if r, found := strings.CutPrefix(rest, "/job:"); found {
			rest, ok = wildName(r, "/", &d.job, &d.has, hasJob)
			progress = true
		}
		if r, found := strings.CutPrefix(rest, "/replica:"); found && ok {
			rest, ok = wildNumber(r, &d.replica, &d.has, hasReplica)
			progress = true
		}
		if r, found := strings.CutPrefix(rest, "/task:"); found && ok {
			rest, ok = wildNumber(r, &d.task, &d.has, hasTask)
			progress = true
		}
		if r, found := strings.CutPrefix(rest, "/device:"); found && ok {
			rest, ok = wildName(r, "/:", &d.typ, &d.has, hasType)
			d.has &^= hasID
			if r, found := strings.CutPrefix(rest, ":"); found && ok {
				rest, ok = wildNumber(r, &d.id, &d.has, hasID)
			}
			progress = true
		}
		// The legacy names, upper-cased (device_name_utils.cc:150-169).
		for _, legacy := range []struct{ lower, upper, typ string }{{"/cpu:", "/CPU:", "CPU"}, {"/gpu:", "/GPU:", "GPU"}} {
			r, found := strings.CutPrefix(rest, legacy.lower)
			if !found {
				r, found = strings.CutPrefix(rest, legacy.upper)
			}
			if found && ok {
				d.typ, d.has = legacy.typ, d.has|hasType
				rest, ok = wildNumber(r, &d.id, &d.has, hasID)
				progress = true
			}
		}
		ok = ok && progress
	}
	if !ok {
		return devSpec{raw: s}, fmt.Errorf("malformed device specification %q", s)
	}
	return d, nil
}

// wildName consumes "*" (the field is left unset) or a name (consumeName)
// into *dst, and says in *has whether the field is set.
func wildName(s, stop string, dst *string, has *devFields, flag devFields) (string, bool) {
	*has &^= flag
	if r, ok := strings.CutPrefix(s, "*"); ok {
		return r, true
	}
	name, r, ok := consumeName(s, stop)
	if ok {
		*dst, *has = name, *has|flag
	}
	return r, ok
}

// wildNumber is wildName for a number (consumeNumber).
func wildNumber(s string, dst *int32, has *devFields, flag devFields) (string, bool) {
	*has &^= flag
	if r, ok := strings.CutPrefix(s, "*"); ok {
		return r, true
	}
	v, r, ok := consumeNumber(s)
	if ok {
		*dst, *has = v, *has|flag
	}
	return r, ok
}

// consumeName takes a job name or device type: a letter, then letters,
// digits and underscores up to one of stop (ConsumePrefix,
// device_name_utils.cc:38-50).
func consumeName(s, stop string) (string, string, bool) {
	if s == "" || !isAlpha(s[0]) {
		return "", s, false
	}
	end := strings.IndexAny(s, stop)
	if end < 0 {
		end = len(s)
	}
	for i := 0; i < end; i++ {
		if c := s[i]; !isAlpha(c) && !(c >= '0' && c <= '9') && c != '_' {
			return "", s, false
		}
	}
	return s[:end], s[end:], true
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// consumeNumber is str_util::ConsumeLeadingDigits (uint64 with an overflow
// check) stored into ParsedName's int field.
func consumeNumber(s string) (int32, string, bool) {
	var v uint64
	i := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		nv := v*10 + uint64(s[i]-'0')
		if nv/8 < v {
			return 0, s, false
		}
		v = nv
	}
	if i == 0 {
		return 0, s, false
	}
	return int32(uint32(v)), s[i:], true
}

// mergeSpecs merges b into a field-wise like DeviceNameUtils::MergeDevNames
// (tsl/util/device_name_utils.cc:344-434). A job, replica or task conflict is
// always an error; under soft placement a type conflict clears type and id
// and an id conflict clears the id; otherwise they are errors too. The
// messages print a and b as ParsedNameToString does.
func mergeSpecs(a, b devSpec, soft bool) (devSpec, error) {
	out := a
	for _, f := range []struct {
		flag    devFields
		what    string
		differs bool
	}{{hasJob, "jobs", a.job != b.job}, {hasReplica, "replicas", a.replica != b.replica}, {hasTask, "tasks", a.task != b.task}} {
		if b.has&f.flag == 0 {
			continue
		}
		if a.has&f.flag != 0 && f.differs {
			return a, fmt.Errorf("Cannot merge devices with incompatible %s: '%s' and '%s'", f.what, a, b)
		}
		out.has |= f.flag
	}
	out.job, out.replica, out.task = pick(b.has&hasJob != 0, b.job, a.job), pick(b.has&hasReplica != 0, b.replica, a.replica), pick(b.has&hasTask != 0, b.task, a.task)
	if b.hasType() {
		if a.hasType() && a.typ != b.typ {
			if !soft {
				return a, fmt.Errorf("Cannot merge devices with incompatible types: '%s' and '%s'", a, b)
			}
			out.has &^= hasType | hasID
			out.typ, out.id = "", 0
			return out, nil
		}
		out.typ, out.has = b.typ, out.has|hasType
	}
	if b.hasID() {
		if a.hasID() && a.id != b.id {
			if !soft {
				return a, fmt.Errorf("Cannot merge devices with incompatible ids: '%s' and '%s'", a, b)
			}
			out.has &^= hasID
			out.id = 0
			return out, nil
		}
		out.id, out.has = b.id, out.has|hasID
	}
	return out, nil
}

func pick[T any](cond bool, a, b T) T {
	if cond {
		return a
	}
	return b
}

// compatible is DeviceNameUtils::AreCompatibleDevNames: no field set on
// both sides differs.
func compatible(a, b devSpec) bool {
	both := a.has & b.has
	return !(both&hasJob != 0 && a.job != b.job ||
		both&hasReplica != 0 && a.replica != b.replica ||
		both&hasTask != 0 && a.task != b.task ||
		both&hasType != 0 && a.typ != b.typ ||
		both&hasID != 0 && a.id != b.id)
}

// specialize is DeviceNameUtils::EnsureSpecification: every field set in
// less is copied into d.
func (d devSpec) specialize(less devSpec) devSpec {
	if less.has&hasJob != 0 {
		d.job = less.job
	}
	if less.has&hasReplica != 0 {
		d.replica = less.replica
	}
	if less.has&hasTask != 0 {
		d.task = less.task
	}
	if less.hasType() {
		d.typ = less.typ
	}
	if less.hasID() {
		d.id = less.id
	}
	d.has |= less.has
	return d
}

// relax drops the type and the id unless told to keep them, as soft
// placement does (colocation_graph.cc:583-605).
func (d devSpec) relax(keepType, keepID bool) devSpec {
	if !keepType {
		d.has &^= hasType
		d.typ = ""
	}
	if !keepID {
		d.has &^= hasID
		d.id = 0
	}
	return d
}

// sameAs is ParsedName's operator== (every field and whether it is set).
func (d devSpec) sameAs(o devSpec) bool {
	return d.has == o.has && compatible(d, o)
}

// matchesLocal is DeviceNameUtils::IsCompleteSpecification of the pattern
// against the local device of type typ (id 0): the DeviceSet lookup
// FindMatchingDevices does (device_set.cc:45-60).
func (d devSpec) matchesLocal(typ string) bool {
	if d.has == 0 {
		return true // most nodes request nothing
	}
	return compatible(d, localSpec(typ))
}

// specName renders a spec for a message: the NodeDef's string when there
// is one.
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
