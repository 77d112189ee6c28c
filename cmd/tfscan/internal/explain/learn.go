package explain

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/tflog"
)

// LearnPack turns the kernel lists of the log's messages into a learned pack
// (coverage.LearnFromLog), named after the log and sourced to its name and
// hash. devType is the target's device type; "" takes the accelerator the
// log names (the first in name order when it names several, CPU when none).
func LearnPack(log *Log, devType string, mech coverage.Mechanism) (*coverage.Pack, []coverage.Unlearned) {
	base := filepath.Base(log.Path)
	if devType == "" {
		devType = logAccelerator(log.Log)
	}
	return coverage.LearnFromLog(log.Log, coverage.LearnOptions{
		Name:       "learned-" + packName(strings.TrimSuffix(base, filepath.Ext(base))),
		DeviceType: devType,
		Mechanism:  mech,
		Source:     "log " + base + " sha256:" + log.SHA256,
	})
}

// packName keeps a name usable as a pack name (coverage.CheckPackName).
func packName(s string) string {
	s = strings.Map(func(r rune) rune {
		if strings.ContainsRune(" \t\n/\\,", r) {
			return '-'
		}
		return r
	}, s)
	if s == "" {
		return "log"
	}
	return s
}

// logAccelerator is the log's accelerator: the first, in name order, of the
// non-CPU device types the process had, as the log shows them (a message's
// registered devices, the device whose kernel lookup failed, the device a
// placement line names); CPU when it shows only the CPU. A log that shows
// none falls back to the device types of its kernel lines. The kernel
// lines alone list every registration of the binary (a CPU-only run of the
// Linux wheel prints GPU kernels, and XLA's *_JIT compilation types, which
// are no devices), so they decide only when nothing else tells.
func logAccelerator(l *tflog.Log) string {
	var process, listed []string
	add := func(to *[]string, t string) {
		t, _, _ = strings.Cut(t, ":")
		if t != "" && t != coverage.DeviceDefault && !strings.HasSuffix(t, "_JIT") {
			*to = append(*to, t)
		}
	}
	for _, m := range l.Messages {
		for _, d := range m.RegisteredDevices {
			add(&process, d)
		}
		switch m.Kind {
		case tflog.KindExplicitDevice, tflog.KindNoRegisteredKernel, tflog.KindSoftPlacementResources:
			add(&process, m.Device)
		}
		for _, k := range m.Kernels {
			add(&listed, k.DeviceType)
		}
	}
	for _, p := range l.Placements {
		add(&process, p.Device)
	}
	for _, p := range l.Eager {
		add(&process, p.Device)
	}
	types := process
	if len(types) == 0 {
		types = listed
	}
	types = slices.DeleteFunc(types, func(t string) bool { return t == "CPU" })
	if len(types) == 0 {
		return "CPU"
	}
	slices.Sort(types)
	return types[0]
}
