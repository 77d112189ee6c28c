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

// logAccelerator is the first non-CPU, non-DEFAULT device type the log's
// messages name.
func logAccelerator(l *tflog.Log) string {
	var types []string
	add := func(t string) {
		t, _, _ = strings.Cut(t, ":")
		if t != "" && t != "CPU" && t != coverage.DeviceDefault {
			types = append(types, t)
		}
	}
	for _, m := range l.Messages {
		for _, d := range m.RegisteredDevices {
			add(d)
		}
		for _, k := range m.Kernels {
			add(k.DeviceType)
		}
		add(m.Device)
	}
	if len(types) == 0 {
		return "CPU"
	}
	slices.Sort(types)
	return types[0]
}
