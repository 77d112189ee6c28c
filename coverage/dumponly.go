package coverage

// MechanismDumpRequired is how `registry list` shows a stack that has no
// pack at all: its registry must come from a live dump.
const MechanismDumpRequired Mechanism = "dump_required"

// DumpOnlyStack is a vendor stack with no public kernel source and no
// public evidence to derive a pack from: tfscan ships no pack for it, and a
// user must import a live dump made on that stack (tools/dump_registry.py,
// then `tfscan registry import`).
type DumpOnlyStack struct {
	Name   string `json:"name"`
	Vendor string `json:"vendor"`
	// DeviceType is the expected TensorFlow device type, "" when unknown.
	DeviceType string `json:"device_type"`
	Note       string `json:"note"`
	// Steps is the section of docs/registries.md with the exact steps.
	Steps string `json:"steps"`
}

// NextStep is what a user does to get a target for the stack.
func (d DumpOnlyStack) NextStep() string {
	return "on a machine with the stack installed run `python3 tools/dump_registry.py -o " + d.Name +
		".pbtxt`, then `tfscan registry import " + d.Name + ".pbtxt --name " + d.Name + " --vendor " + quoteIfSpace(d.Vendor) +
		" -o " + d.Name + ".json` and scan with `--registry " + d.Name + ".json --target " + d.Name + "` (" + d.Steps + ")"
}

func quoteIfSpace(s string) string {
	for _, r := range s {
		if r == ' ' {
			return "'" + s + "'"
		}
	}
	return s
}

// DumpOnlyStacks are the stacks that need a live dump, with what public
// sources say about them (docs/registries.md, "Stacks that need a dump").
func DumpOnlyStacks() []DumpOnlyStack {
	return []DumpOnlyStack{
		{Name: "apple-metal", Vendor: "Apple", DeviceType: "GPU", Steps: "docs/registries.md#apple-metal",
			Note: "binary-only PluggableDevice (tensorflow-metal); GPU device type not verified"},
		{Name: "biren", Vendor: "Biren", DeviceType: "", Steps: "docs/registries.md#biren",
			Note: "no public TensorFlow build or kernel list found (public material is PyTorch only); device type unknown (SUPA?)"},
		{Name: "cambricon-mlu", Vendor: "Cambricon", DeviceType: "MLU", Steps: "docs/registries.md#cambricon-mlu",
			Note: "Cambricon TensorFlow is not published; device type MLU (tf.config.experimental.list_physical_devices(\"MLU\") in Cambricon/tensorflow_modelzoo)"},
		{Name: "kunlunxin", Vendor: "Kunlunxin", DeviceType: "", Steps: "docs/registries.md#kunlunxin",
			Note: "no public TensorFlow build or kernel list found (public material is PyTorch/Paddle/vLLM); device type unknown (XPU would collide with ITEX)"},
	}
}
