package extract

import (
	"bufio"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/internal/lazyre"
)

// What the Ascend stack does around its op list, read from the adapter and
// CANN sources where they say it, and from CANN's documentation where only
// the documentation does (the semantics of each precision mode and the
// per-chip defaults, cited per entry).

// Documents the precision-mode semantics and defaults are taken from.
const (
	// CANN ATC --precision_mode (CANN 8.5.0): what every value does to
	// matrix (Cube) and vector ops.
	docPrecisionMode = "https://www.hiascend.com/document/detail/en/canncommercial/850/devaids/atctool/atlasatcparam_16_0067.html"
	// CANN 6.3.RC2 ATC --precision_mode (zh): under must_keep_origin_dtype
	// a float32 op whose kernel supports only float16 cannot be compiled
	// ("the system does not support using lower precision").
	docMustKeep = "https://www.hiascend.com/doc_center/source/zh/canncommercial/63RC2/inferapplicationdev/atctool/atctool_000093.html"
	// MindSpore's precision_mode (zh): CANN defaults to allow_fp32_to_fp16
	// on the Atlas training series (Ascend 910) and to
	// must_keep_origin_dtype on Atlas A2 (910B) and other products.
	docChipDefaults = "https://www.mindspore.cn/docs/zh-CN/master/api_python/device_context/mindspore.device_context.ascend.op_precision.precision_mode.html"
)

// The graph engine's message when no engine has a kernel for a node (GE
// error EZ3003, after one EZ3002 per engine that refused it): the words
// the adapter's error carries. GE is not in the pinned canndev snapshot;
// the template and its source are those tflog reads logs by.
const (
	geNoKernel       = "No supported Ops kernel and engine are found for [%s], optype [%s]."
	geNoKernelSource = "GE EZ3003: hicann/ge@ffdcbc9f compiler/engines/manager/engine_manager/dnnengine_manager.cc:423-424, template hicann/opbase@aa3cd74b src/op_common/log/log.cpp:228-230"
)

// cannModes are the documented semantics of CANN's precision_mode values
// (docPrecisionMode), keyed by value. A value the adapter lists that is not
// here is kept in the pack without semantics.
var cannModes = map[string]coverage.PrecisionMode{
	// Matrix ops: float16 inputs with float32 output where the kernel has
	// it; vector ops keep float32 and drop to float16 only where float32
	// is unsupported.
	"force_fp32":          {LowerTo: "float16", Matrix: "lower_inputs", Vector: "keep", Unsupported: "lower", Doc: docPrecisionMode},
	"cube_fp16in_fp32out": {LowerTo: "float16", Matrix: "lower_inputs", Vector: "keep", Unsupported: "lower", Doc: docPrecisionMode},
	// Matrix ops in float16 even where a float32 kernel exists; vector
	// ops keep float32 where supported, else float16.
	"allow_fp32_to_fp16": {LowerTo: "float16", Matrix: "lower", Vector: "keep", Unsupported: "lower", Doc: docPrecisionMode},
	"allow_fp32_to_bf16": {LowerTo: "bfloat16", Matrix: "lower", Vector: "keep", Unsupported: "lower", Doc: docPrecisionMode},
	// float16 wherever an op supports it.
	"force_fp16": {LowerTo: "float16", Matrix: "lower", Vector: "lower", Unsupported: "lower", Doc: docPrecisionMode},
	// The graph's dtypes are kept; a float32 op with a float16-only kernel
	// is an error.
	"must_keep_origin_dtype": {Matrix: "keep", Vector: "keep", Unsupported: "error", Doc: docPrecisionMode + " ; " + docMustKeep},
	// CANN's own mixed precision by the precision_reduce flags of the op
	// info files.
	"allow_mix_precision":      {LowerTo: "float16", Matrix: "mixed", Vector: "mixed", Unsupported: "lower", Doc: docPrecisionMode},
	"allow_mix_precision_fp16": {LowerTo: "float16", Matrix: "mixed", Vector: "mixed", Unsupported: "lower", Doc: docPrecisionMode},
	"allow_mix_precision_bf16": {LowerTo: "bfloat16", Matrix: "mixed", Vector: "mixed", Unsupported: "lower", Doc: docPrecisionMode},
}

// cannChipDefaults are CANN's defaults when the adapter sets no mode
// (docChipDefaults): allow_fp32_to_fp16 on ascend910, must_keep_origin_dtype
// on every other chip.
var cannChipDefaults = []coverage.ChipDefault{
	{Chip: "ascend910", Mode: "allow_fp32_to_fp16", Source: docChipDefaults},
	{Chip: "*", Mode: "must_keep_origin_dtype", Source: docChipDefaults},
}

// Stack inputs of the ascend style (StackInputs keys, paths under the
// source root).
const (
	// tf_adapter_2.x/python/npu_device/configs/npu_config.py: the
	// precision_mode values and the adapter's default (none).
	inNPUConfig = "npu_config"
	// tf_adapter/util/npu_attrs.cc: the TF1 adapter's mix_compile_mode default.
	inNPUAttrs = "npu_attrs"
	// tf_adapter/optimizers/om_partition_subgraphs_pass.cc: TF1 partitioning.
	inPartition = "partition_pass"
	// tf_adapter_2.x/npu_device/core/optimizers/runtime/npu_build_npu_op_optimizer.cpp:
	// TF2 mixed partitioning.
	inMixBuild = "npu_build_op"
	// tf_adapter_2.x/npu_device/core/npu_device.cpp: the TF2 device, its op
	// list and its error when the graph engine fails.
	inNPUDevice = "npu_device"
	// canndev .../op_info_cfg/ai_core: one directory per chip.
	inChips = "chips"
	// The op info INI of the pack's chip: heavyOp and precision_reduce flags.
	inChipINI = "chip_ini"
	// canndev ops/built-in/fusion_pass: the graph engine's fusion passes.
	inFusionPass = "fusion_pass"
)

// StackInputs are the files a stack reader needs, by key.
type StackInputs map[string]string

func (in StackInputs) need(keys ...string) error {
	var missing []string
	for _, k := range keys {
		if in[k] == "" {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("stack inputs missing: %s (--stack-input KEY=PATH)", strings.Join(missing, ", "))
	}
	return nil
}

// srcFile is one source file read into lines, with its path for citations.
type srcFile struct {
	rel   string
	lines []string
}

func readSrc(root, rel string) (*srcFile, error) {
	data, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		return nil, err
	}
	return &srcFile{rel: rel, lines: strings.Split(string(data), "\n")}, nil
}

// find returns the 1-based line of the first line matching re at or after
// line from, or 0.
func (f *srcFile) find(re *lazyre.Regexp, from int) int {
	for i := max(from-1, 0); i < len(f.lines); i++ {
		if re.MatchString(f.lines[i]) {
			return i + 1
		}
	}
	return 0
}

func (f *srcFile) at(line int) string { return fmt.Sprintf("%s:%d", f.rel, line) }

// mustFind is find that fails with the pattern and file named.
func (f *srcFile) mustFind(re *lazyre.Regexp, from int) (int, error) {
	if l := f.find(re, from); l > 0 {
		return l, nil
	}
	return 0, fmt.Errorf("%s: no line matches %s", f.rel, re)
}

var (
	precisionModeRE = lazyre.New(`self\.precision_mode\s*=\s*OptionValue\(\s*None`)
	quotedSingleRE  = lazyre.New(`'([a-z0-9_]+)'`)
	mixCompileRE    = lazyre.New(`bool mix_compile_mode = (true|false);`)
	mergeOneRE      = lazyre.New(`^Status MergeSubgraphs\(`)
	mergeMixRE      = lazyre.New(`^Status MergeSubgraphsInNewWay\(`)
	mixExecRE       = lazyre.New(`SetExecutionType\(NpuConcreteGraph::ExecutionType::MIX\)`)
	geFailedRE      = lazyre.New(`errors::Internal\("(Graph engine process graph failed:)`)
	loadOpsRE       = lazyre.New(`NpuDevice::LoadSupportedOps\(`)
	markPartitionRE = lazyre.New(`^Status MarkForPartition\(`)
)

// readAscendStack reads the precision modes, partitioning options and the
// graph engine's optimizer note. tfToIR maps TF ops to their Ascend IR ops
// (from the parser plugins) to name the matrix and mixed-precision ops.
func readAscendStack(root string, in StackInputs, tfToIR map[string][]string) (*coverage.Stack, error) {
	if err := in.need(inNPUConfig, inNPUAttrs, inPartition, inMixBuild, inNPUDevice, inChips, inChipINI); err != nil {
		return nil, err
	}
	files := map[string]*srcFile{}
	for _, k := range []string{inNPUConfig, inNPUAttrs, inPartition, inMixBuild, inNPUDevice} {
		f, err := readSrc(root, in[k])
		if err != nil {
			return nil, err
		}
		files[k] = f
	}
	st := &coverage.Stack{}

	// Precision modes: npu_config.py lists them in precision_mode =
	// OptionValue(None, [...]); None is the adapter's default, so CANN's
	// own (per chip) applies.
	cfg := files[inNPUConfig]
	start, err := cfg.mustFind(precisionModeRE, 1)
	if err != nil {
		return nil, err
	}
	pm := &coverage.PrecisionModes{Option: "precision_mode", Source: cfg.at(start), ChipDefaults: cannChipDefaults}
	for i := start - 1; i < len(cfg.lines); i++ {
		for _, q := range quotedSingleRE.FindAllStringSubmatch(cfg.lines[i], -1) {
			m := cannModes[q[1]]
			m.Name, m.Source = q[1], cfg.at(i+1)
			pm.Modes = append(pm.Modes, m)
		}
		if strings.Contains(cfg.lines[i], "])") {
			break
		}
	}
	if len(pm.Modes) == 0 {
		return nil, fmt.Errorf("%s: no precision modes listed", cfg.at(start))
	}

	// Chips: one op info directory per chip; the pack's dtypes come from
	// the chip of inChipINI, which is the default.
	entries, err := os.ReadDir(filepath.Join(root, in[inChips]))
	if err != nil {
		return nil, err
	}
	var chips []string
	for _, e := range entries {
		if e.IsDir() {
			chips = append(chips, e.Name())
		}
	}
	slices.Sort(chips)
	chip := filepath.Base(filepath.Dir(in[inChipINI]))
	if !slices.Contains(chips, chip) {
		return nil, fmt.Errorf("%s is not in a chip directory of %s", in[inChipINI], in[inChips])
	}
	st.Options = append(st.Options, coverage.StackOption{
		Name: "soc", Kind: coverage.OptionChip, Values: chips, Default: chip,
		Source: in[inChipINI] + " (the chip whose op info gives the pack's dtypes; chips: the directories of " + in[inChips] + ")",
	})

	// Adapters: the TF2 npu_device (the pack's op list) runs unsupported
	// ops on the host next to any number of compiled graphs; the TF1
	// session adapter partitions by mix_compile_mode.
	mixLine, err := files[inMixBuild].mustFind(mixExecRE, 1)
	if err != nil {
		return nil, err
	}
	partLine, err := files[inPartition].mustFind(markPartitionRE, 1)
	if err != nil {
		return nil, err
	}
	loadLine, err := files[inNPUDevice].mustFind(loadOpsRE, 1)
	if err != nil {
		return nil, err
	}
	st.Options = append(st.Options, coverage.StackOption{
		Name: "adapter", Kind: coverage.OptionAdapter, Values: []string{"tf2", "tf1"},
		ValueKinds:   []string{coverage.AdapterMixed, coverage.AdapterSession},
		ValueSources: []string{files[inMixBuild].at(mixLine), files[inPartition].at(partLine)},
		Default:      "tf2", Source: files[inNPUDevice].at(loadLine) + " (the pack's op list is the TF2 NPU device's)",
	})
	attrs := files[inNPUAttrs]
	mcLine, err := attrs.mustFind(mixCompileRE, 1)
	if err != nil {
		return nil, err
	}
	mcDefault := mixCompileRE.FindStringSubmatch(attrs.lines[mcLine-1])[1]
	oneLine, err := files[inPartition].mustFind(mergeOneRE, 1)
	if err != nil {
		return nil, err
	}
	newLine, err := files[inPartition].mustFind(mergeMixRE, 1)
	if err != nil {
		return nil, err
	}
	st.Options = append(st.Options, coverage.StackOption{
		Name: "mix_compile_mode", Kind: coverage.OptionMixCompile, Values: []string{"false", "true"},
		ValueSources: []string{files[inPartition].at(oneLine), files[inPartition].at(newLine)},
		Default:      mcDefault, Source: attrs.at(mcLine), Applies: "tf1",
	})

	// The error the TF2 device raises when the graph engine fails.
	if l := files[inNPUDevice].find(geFailedRE, 1); l > 0 {
		pm.Error = geFailedRE.FindStringSubmatch(files[inNPUDevice].lines[l-1])[1]
		pm.ErrorSource = files[inNPUDevice].at(l)
		pm.CompilerError, pm.CompilerErrorSource = geNoKernel, geNoKernelSource
	}

	// Matrix (Cube) ops and CANN's mixed-precision lists, from the flags
	// of the chip's op info.
	flags, err := readINIFlags(filepath.Join(root, in[inChipINI]), "heavyOp.flag", "precision_reduce.flag")
	if err != nil {
		return nil, err
	}
	mixed := &coverage.MixedLists{Reduce: []string{}, Keep: []string{}, Source: in[inChipINI] + " (precision_reduce.flag: true reduces, false keeps)"}
	for _, op := range slices.Sorted(maps.Keys(tfToIR)) {
		heavy, reduce, keep := false, false, false
		for _, ir := range tfToIR[op] {
			f := flags[ir]
			heavy = heavy || f["heavyOp.flag"] == "true"
			reduce = reduce || f["precision_reduce.flag"] == "true"
			keep = keep || f["precision_reduce.flag"] == "false"
		}
		if heavy {
			pm.MatrixOps = append(pm.MatrixOps, op)
		}
		switch {
		case keep:
			mixed.Keep = append(mixed.Keep, op)
		case reduce:
			mixed.Reduce = append(mixed.Reduce, op)
		}
	}
	pm.MatrixSource = in[inChipINI] + " (heavyOp.flag=true: the Cube-unit matmul and convolution ops, plus a few pooling, LRN and ROI ops CANN also marks heavy)"
	pm.Mixed = mixed
	st.Precision = pm

	// The graph engine fuses ops itself (canndev fusion passes); tfscan
	// does not read them.
	if p := in[inFusionPass]; p != "" {
		st.Optimizer = &coverage.Optimizer{Name: "CANN graph engine fusion passes", Source: p,
			Note: "the graph engine's graph and buffer fusion passes are C++ pattern code tfscan does not read; fusion predictions keep TensorFlow's view"}
	}
	return st, nil
}

// readINIFlags reads the named keys of every [Section] of an op info INI.
func readINIFlags(path string, keys ...string) (map[string]map[string]string, error) {
	out := map[string]map[string]string{}
	err := scanINI(path, func(section, k, v string) {
		if !slices.Contains(keys, k) {
			return
		}
		if out[section] == nil {
			out[section] = map[string]string{}
		}
		out[section][k] = v
	})
	return out, err
}

// scanINI calls visit with every key = value line of an op info INI file
// and the [Section] it is in.
func scanINI(path string, visit func(section, key, val string)) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("op info INI: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	section := ""
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			section = line[1 : len(line)-1]
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok && section != "" {
			visit(section, k, strings.TrimSpace(v))
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
