package coverage

// DumpOnlyStack is a vendor stack with no public kernel source: tfscan ships
// no pack for it, and a user must import a live dump made on that stack
// (tools/dump_registry.py, then `tfscan registry import`).
type DumpOnlyStack struct {
	Name   string `json:"name"`
	Vendor string `json:"vendor"`
	// DeviceType is the expected TensorFlow device type, "" when unknown.
	DeviceType string `json:"device_type"`
	Note       string `json:"note"`
}

// DumpOnlyStacks are the stacks that need a live dump, from
// ../shared/docs/registry-sources.md §2.5-2.8 (what public sources exist
// and what the device type is believed to be).
func DumpOnlyStacks() []DumpOnlyStack {
	return []DumpOnlyStack{
		{Name: "biren", Vendor: "Biren", DeviceType: "", Note: "no public TensorFlow source (only a PyTorch plugin); device type unknown"},
		{Name: "cambricon-mlu", Vendor: "Cambricon", DeviceType: "MLU", Note: "Cambricon TensorFlow fork is not published; MLU from its DEVICE_MLU macro, not verified"},
		{Name: "enflame-gcu", Vendor: "Enflame", DeviceType: "DTU", Note: "no public kernel source; DTU from the public ResNet recipe's --device=dtu, not verified"},
		{Name: "hygon-dcu", Vendor: "Hygon", DeviceType: "GPU", Note: "no vendor source; follows TensorFlow's ROCm code paths, so the built-in rocm pack is an approximation"},
		{Name: "iluvatar-corex", Vendor: "Iluvatar CoreX", DeviceType: "GPU", Note: "no public kernel source; CUDA-compatible stack, GPU device type not verified"},
		{Name: "kunlunxin", Vendor: "Kunlunxin", DeviceType: "", Note: "no public TensorFlow source; device type unknown (may collide with ITEX's XPU)"},
		{Name: "apple-metal", Vendor: "Apple", DeviceType: "GPU", Note: "binary-only PluggableDevice; dump on macOS; GPU device type not verified"},
	}
}
