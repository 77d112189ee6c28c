package coverage

import (
	"bufio"
	_ "embed"
	"fmt"
	"slices"
	"strings"

	kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"
	"google.golang.org/protobuf/proto"
)

// BinaryCheck names a built-in pack that is compared kernel by kernel with
// the registry of a real binary, dumped by tools/dump_registry.py. This
// table is the one place that says which packs are checked and against
// what; `tfscan registry show` prints it.
type BinaryCheck struct {
	Pack       string `json:"pack"`
	DeviceType string `json:"device_type"`
	// TFVersion is the TensorFlow the binary is or runs on.
	TFVersion string `json:"tf_version"`
	// Wheel is the file name of the wheel whose registry the pack is
	// compared with, SHA256 its digest.
	Wheel  string `json:"wheel"`
	SHA256 string `json:"sha256"`
	// Conformance: compared on every run of conformance/registries_test.go
	// (the wheel tools/tf/requirements.lock pins), which fails on any
	// difference checked_differences.txt does not explain. Otherwise the
	// pack was compared once, in the setting Setting describes, and
	// docs/registries.md holds the result.
	Conformance bool   `json:"conformance"`
	Setting     string `json:"setting,omitempty"`
}

// linuxWheel is the Linux x86-64 TensorFlow 2.15.0 wheel the lock installs
// on Python 3.11.
const (
	linuxWheel       = "tensorflow-2.15.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
	linuxWheelSHA256 = "dee8ec2b2c6c942ae65d25746e53cdc475e82d5fcbbb3009ce47f5963d69ebfc"
)

var binaryChecks = []BinaryCheck{
	{Pack: "cpu", DeviceType: DeviceCPU, TFVersion: "2.15.0", Wheel: linuxWheel, SHA256: linuxWheelSHA256, Conformance: true},
	{Pack: "cuda", DeviceType: "GPU", TFVersion: "2.15.0", Wheel: linuxWheel, SHA256: linuxWheelSHA256, Conformance: true},
	{Pack: DefaultPackName, DeviceType: DeviceDefault, TFVersion: "2.15.0", Wheel: linuxWheel, SHA256: linuxWheelSHA256, Conformance: true},
	{Pack: "xla", DeviceType: "XLA_GPU_JIT", TFVersion: "2.15.0", Wheel: linuxWheel, SHA256: linuxWheelSHA256,
		Setting: "the pinned wheel after one tf.function(jit_compile=True) call, which makes XlaOpRegistry::RegisterCompilationKernels register the XLA JIT kernels"},
	{Pack: "intel-xpu", DeviceType: "XPU", TFVersion: "2.15.1",
		Wheel:   "intel_extension_for_tensorflow_lib-2.15.0.3.2-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
		SHA256:  "aea3a014db095b0d7641d90e46658a6b3477efc65479a1dd034ea04df71eaaae",
		Setting: "intel-extension-for-tensorflow[xpu] 2.15.0.3 on tensorflow 2.15.1, oneAPI 2025.0 runtime from PyPI, Level Zero loader and OpenCL ICD loader from Debian 12, no Intel GPU"},
	{Pack: "rocm", DeviceType: "GPU", TFVersion: "2.14.0",
		Wheel:   "tensorflow_rocm-2.14.0.600-cp311-cp311-manylinux2014_x86_64.whl",
		SHA256:  "c9f3e6f81ea916d8a7481a3d59240867b36ead2ff5474e5ba233b2b598baf7fe",
		Setting: "tensorflow-rocm 2.14.0.600 (ROCm 6.0, built from ROCm/tensorflow-upstream), its HIP, HSA and RCCL libraries replaced by empty stubs so that it loads without ROCm; the pack is upstream TensorFlow 2.15.0 for ROCm 5.3, so versions differ"},
	{Pack: "directml", DeviceType: "GPU", TFVersion: "2.10.0",
		Wheel:   "tensorflow_directml_plugin-0.4.0.dev230202-cp310-cp310-manylinux2010_x86_64.whl",
		SHA256:  "ecaf259ee58d43724f51eba09d498e8c114567aed2684072ee276b5d1c6a321b",
		Setting: "tensorflow-directml-plugin 0.4.0.dev230202 (the newest on PyPI) on tensorflow-cpu 2.10.0, without libd3d12.so (WSL only), so DirectML itself does not load; the plugin's own GPU kernels are the dump's GPU kernels less those tensorflow-cpu registers alone"},
}

// BinaryChecks lists the built-in packs checked against a binary on
// every conformance run.
func BinaryChecks() []BinaryCheck {
	var out []BinaryCheck
	for _, c := range binaryChecks {
		if c.Conformance {
			out = append(out, c)
		}
	}
	return out
}

// CheckedAgainst returns the binary the built-in pack name is checked
// against, or nil.
func CheckedAgainst(name string) *BinaryCheck {
	for _, c := range binaryChecks {
		if c.Pack == name {
			return &c
		}
	}
	return nil
}

// KernelKey renders a kernel as one canonical line: op, device type,
// label, priority, constraints and host-memory args, the fields a
// KernelDef is matched by. Two kernels are the same registration exactly
// when their keys are equal (constraint values and host-memory args are
// sets, as NormalizeKernel treats them).
func KernelKey(k *kdpb.KernelDef) string {
	n := proto.Clone(k).(*kdpb.KernelDef)
	NormalizeKernel(n)
	var b strings.Builder
	b.WriteString(n.GetOp())
	b.WriteString(" ")
	b.WriteString(n.GetDeviceType())
	if n.GetLabel() != "" {
		fmt.Fprintf(&b, " label=%q", n.GetLabel())
	}
	if n.GetPriority() != 0 {
		fmt.Fprintf(&b, " priority=%d", n.GetPriority())
	}
	for _, c := range n.GetConstraint() {
		fmt.Fprintf(&b, " %s={%s}", c.GetName(), allowedNames(c))
	}
	if len(n.GetHostMemoryArg()) > 0 {
		fmt.Fprintf(&b, " host=%s", strings.Join(n.GetHostMemoryArg(), ","))
	}
	return b.String()
}

// KernelComparison sets a pack's kernels of one device type against a
// binary's registry of that device type, registration by registration.
type KernelComparison struct {
	Pack       string `json:"pack"`
	DeviceType string `json:"device_type"`
	// Binary and PackKernels count the distinct kernels on each side.
	Binary      int `json:"binary_kernels"`
	PackKernels int `json:"pack_kernels"`
	Agree       int `json:"agree"`
	// Missing are in the binary and not in the pack; Extra in the pack and
	// not in the binary (KernelKey lines, sorted).
	Missing []string `json:"missing,omitempty"`
	Extra   []string `json:"extra,omitempty"`
}

// CompareKernels compares pack's kernels of deviceType with binary's.
func CompareKernels(pack *Pack, binary []*kdpb.KernelDef, deviceType string) KernelComparison {
	keys := func(ks []*kdpb.KernelDef) map[string]bool {
		m := map[string]bool{}
		for _, k := range ks {
			if k.GetDeviceType() == deviceType {
				m[KernelKey(k)] = true
			}
		}
		return m
	}
	p, b := keys(pack.Kernels), keys(binary)
	c := KernelComparison{Pack: pack.Name, DeviceType: deviceType, Binary: len(b), PackKernels: len(p)}
	for k := range b {
		if p[k] {
			c.Agree++
		} else {
			c.Missing = append(c.Missing, k)
		}
	}
	for k := range p {
		if !b[k] {
			c.Extra = append(c.Extra, k)
		}
	}
	slices.Sort(c.Missing)
	slices.Sort(c.Extra)
	return c
}

// Recall is the share of the binary's kernels the pack has.
func (c KernelComparison) Recall() float64 { return ratio(c.Agree, c.Binary) }

// Precision is the share of the pack's kernels the binary has.
func (c KernelComparison) Precision() float64 { return ratio(c.Agree, c.PackKernels) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// KnownDifference is one line of checked_differences.txt: a kernel that a
// checked pack and its binary do not share, and why.
type KnownDifference struct {
	Pack string `json:"pack"`
	// Side is "-" for a kernel the binary registers and the pack lacks,
	// "+" for one the pack has and the binary does not register.
	Side   string `json:"side"`
	Kernel string `json:"kernel"` // a KernelKey
	Reason string `json:"reason"`
}

//go:embed checked_differences.txt
var checkedDifferences string

// KnownDifferences are the explained differences between the checked
// packs and their binaries, in file order.
func KnownDifferences() ([]KnownDifference, error) {
	var out []KnownDifference
	sc := bufio.NewScanner(strings.NewReader(checkedDifferences))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		head, reason, ok := strings.Cut(line, " : ")
		pack, rest, ok2 := strings.Cut(head, " ")
		side, kernel, ok3 := strings.Cut(rest, " ")
		if !ok || !ok2 || !ok3 || (side != "-" && side != "+") || strings.TrimSpace(reason) == "" {
			return nil, fmt.Errorf("coverage/checked_differences.txt:%d: want `PACK -|+ KERNEL : REASON`", n)
		}
		out = append(out, KnownDifference{Pack: pack, Side: side, Kernel: kernel, Reason: strings.TrimSpace(reason)})
	}
	return out, nil
}

// MinAgreement is the recall and precision, at kernel level, below which a
// checked pack no longer counts as agreeing with its binary.
const MinAgreement = 0.99

// DumpCheck is one checked pack set against a live dump of its binary.
type DumpCheck struct {
	Check BinaryCheck `json:"checked_against"`
	KernelComparison
	// Explained are the differences checked_differences.txt gives a reason
	// for; Unexplained ("-"/"+" and the KernelKey) those it does not;
	// Stale the lines that name no difference of this dump.
	Explained   []KnownDifference `json:"explained,omitempty"`
	Unexplained []string          `json:"unexplained,omitempty"`
	Stale       []KnownDifference `json:"stale,omitempty"`
}

// OK reports whether the pack agrees with the dump: recall and precision
// at least MinAgreement and every difference explained.
func (c DumpCheck) OK() bool {
	return len(c.Unexplained) == 0 && len(c.Stale) == 0 && c.Recall() >= MinAgreement && c.Precision() >= MinAgreement
}

// CheckDump compares every checked built-in pack (BinaryChecks) with the
// dump of its binary's registry, kernel by kernel. The dump must be of the
// TensorFlow version the packs are checked against and hold kernels of
// each checked device type; otherwise it says so in one line.
func CheckDump(d *Dump) ([]DumpCheck, error) {
	known, err := KnownDifferences()
	if err != nil {
		return nil, err
	}
	var out []DumpCheck
	for _, bc := range BinaryChecks() {
		switch v := d.Header.TFVersion; {
		case v == "":
			return nil, fmt.Errorf("the dump's header does not say its TensorFlow version (tools/dump_registry.py writes it); the built-in packs are checked against TensorFlow %s", bc.TFVersion)
		case v != bc.TFVersion:
			return nil, fmt.Errorf("a dump of TensorFlow %s, but the built-in packs are checked against TensorFlow %s: dump %s's registry, or import this dump as a pack of its own (tfscan registry import)", v, bc.TFVersion, bc.TFVersion)
		}
		if !slices.Contains(d.DeviceTypes(), bc.DeviceType) {
			return nil, fmt.Errorf("the dump has no %s kernels (it has %s), so the %s pack cannot be checked", bc.DeviceType, strings.Join(d.DeviceTypes(), ", "), bc.Pack)
		}
		p, err := BuiltinPack(bc.Pack)
		if err != nil {
			return nil, err
		}
		c := DumpCheck{Check: bc, KernelComparison: CompareKernels(p, d.Kernels, bc.DeviceType)}
		listed := map[string]KnownDifference{}
		for _, k := range known {
			if k.Pack == bc.Pack {
				listed[k.Side+" "+k.Kernel] = k
			}
		}
		seen := map[string]bool{}
		for side, keys := range map[string][]string{"-": c.Missing, "+": c.Extra} {
			for _, key := range keys {
				id := side + " " + key
				seen[id] = true
				if k, ok := listed[id]; ok {
					c.Explained = append(c.Explained, k)
				} else {
					c.Unexplained = append(c.Unexplained, id)
				}
			}
		}
		for _, k := range known {
			if k.Pack == bc.Pack && !seen[k.Side+" "+k.Kernel] {
				c.Stale = append(c.Stale, k)
			}
		}
		sortKnown := func(a, b KnownDifference) int {
			return strings.Compare(a.Side+" "+a.Kernel, b.Side+" "+b.Kernel)
		}
		slices.SortFunc(c.Explained, sortKnown)
		slices.Sort(c.Unexplained)
		out = append(out, c)
	}
	return out, nil
}
