package extract

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	avpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"
	opdefpb "github.com/wamuir/graft/tensorflow/core/framework/op_def_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/internal/lazyre"
)

// Huawei Ascend runs no TensorFlow kernels: the adapter (Ascend/tensorflow,
// tf_adapter/optimizers/om_partition_subgraphs_pass.cc) moves every node
// whose op is in CANN's npu_supported_ops.json into a GeOp compiled by the
// Graph Engine. That JSON is not public. The public upper bound is the set
// of TF ops with a CANN parser plugin (canndev
// ops/built-in/framework/tf_plugin: REGISTER_CUSTOM_OP("IrOp")
// .FrameworkType(TENSORFLOW).OriginOpType("TfOp")), with dtypes from the
// Ascend IR op's input0 in the op info INI files (AI Core ascend910,
// AI CPU). ExtractAscend builds NPU kernels from exactly that.

// AscendOptions add the inputs only the ascend style needs.
type AscendOptions struct {
	// INIFiles are op info INI files (relative to Source).
	INIFiles []string
	// Ops are TensorFlow's OpDefs, to name the attr input0's dtype binds.
	Ops map[string]*opdefpb.OpDef
	// Stack, when set, are the adapter and CANN files the stack's
	// precision modes and partitioning options are read from
	// (readAscendStack).
	Stack StackInputs
}

var (
	customOpRE = lazyre.New(`(?s)REGISTER_CUSTOM_OP\(\s*"([^"]+)"\s*\)(.*?);`)
	originRE   = lazyre.New(`(?s)\.OriginOpType\((.*?)\)\s*(?:\.|$)`)
	quotedRE   = lazyre.New(`"([^"]+)"`)
	addonRE    = lazyre.New(`kAddonOps\s*\{([^}]*)\}`)
	commentRE  = lazyre.New(`(?s)/\*.*?\*/|//[^\n]*`)
)

// neverOnNPU are ops IsWhiteListSupport
// (tf_adapter/optimizers/om_partition_subgraphs_pass.cc:222-231) keeps off
// the NPU whatever the op list says; ops ending in Dataset/DatasetV2 too.
var neverOnNPU = []string{"Const", "_Arg", "_Retval", "StringJoin"}

// ExtractAscend reads parser plugins and op info INI files.
func ExtractAscend(o Options, ao AscendOptions) (*Result, error) {
	files, err := kernelFiles(o.Source, o.Dirs, nil)
	if err != nil {
		return nil, err
	}
	irTypes := map[string][]tpb.DataType{}
	for _, f := range ao.INIFiles {
		if err := readOpInfoINI(filepath.Join(o.Source, f), irTypes); err != nil {
			return nil, err
		}
	}
	tfToIR := map[string][]string{}
	var addons []string
	res := &Result{Files: len(files)}
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(o.Source, f))
		if err != nil {
			return nil, err
		}
		text := commentRE.ReplaceAllString(string(data), "")
		for _, m := range customOpRE.FindAllStringSubmatch(text, -1) {
			ir, chain := m[1], m[2]
			if !strings.Contains(chain, "FrameworkType(TENSORFLOW)") {
				continue
			}
			om := originRE.FindStringSubmatch(chain + ".")
			if om == nil {
				res.Skips = append(res.Skips, Skip{File: f, Text: ir, Reason: "no OriginOpType"})
				continue
			}
			for _, q := range quotedRE.FindAllStringSubmatch(om[1], -1) {
				tfToIR[q[1]] = append(tfToIR[q[1]], ir)
			}
		}
		if m := addonRE.FindStringSubmatch(text); m != nil {
			for _, q := range quotedRE.FindAllStringSubmatch(m[1], -1) {
				addons = append(addons, q[1])
			}
		}
	}
	for _, a := range addons {
		if _, ok := tfToIR[a]; !ok {
			tfToIR[a] = nil // added by the TF2 NPU device itself, no IR op
		}
	}
	var names []string
	for op := range tfToIR {
		if slices.Contains(neverOnNPU, op) || strings.HasSuffix(op, "Dataset") || strings.HasSuffix(op, "DatasetV2") {
			continue
		}
		names = append(names, op)
	}
	slices.Sort(names)
	if len(ao.Stack) > 0 {
		onNPU := make(map[string][]string, len(names))
		for _, op := range names {
			onNPU[op] = tfToIR[op]
		}
		if res.Stack, err = readAscendStack(o.Source, ao.Stack, onNPU); err != nil {
			return nil, err
		}
	}
	for _, op := range names {
		k := &kdpb.KernelDef{Op: op, DeviceType: "NPU"}
		reg := Registration{Kernel: k, File: "parser plugins"}
		def := ao.Ops[op]
		attr := ""
		if def != nil && len(def.GetInputArg()) > 0 {
			attr = def.GetInputArg()[0].GetTypeAttr()
		}
		var types []tpb.DataType
		for _, ir := range tfToIR[op] {
			types = append(types, irTypes[ir]...)
		}
		slices.Sort(types)
		types = slices.Compact(types)
		switch {
		case attr != "" && len(types) > 0:
			k.Constraint = []*kdpb.KernelDef_AttrConstraint{{
				Name:          attr,
				AllowedValues: &avpb.AttrValue{Value: &avpb.AttrValue_List{List: &avpb.AttrValue_ListValue{Type: types}}},
			}}
		case hasTypeAttr(def) || def == nil:
			reg.Unresolved = []string{"(input0 dtypes unknown)"}
		}
		res.Registrations = append(res.Registrations, reg)
	}
	return res, nil
}

func hasTypeAttr(def *opdefpb.OpDef) bool {
	for _, a := range def.GetAttr() {
		if a.GetType() == "type" || a.GetType() == "list(type)" {
			return true
		}
	}
	return false
}

// iniTypes maps INI dtype spellings (AI Core "float16", AI CPU "DT_FLOAT16")
// to TensorFlow dtypes.
var iniTypes = map[string]tpb.DataType{
	"float16": tpb.DataType_DT_HALF, "float": tpb.DataType_DT_FLOAT, "float32": tpb.DataType_DT_FLOAT,
	"double": tpb.DataType_DT_DOUBLE, "float64": tpb.DataType_DT_DOUBLE, "bfloat16": tpb.DataType_DT_BFLOAT16,
	"int8": tpb.DataType_DT_INT8, "int16": tpb.DataType_DT_INT16, "int32": tpb.DataType_DT_INT32, "int64": tpb.DataType_DT_INT64,
	"uint8": tpb.DataType_DT_UINT8, "uint16": tpb.DataType_DT_UINT16, "uint32": tpb.DataType_DT_UINT32, "uint64": tpb.DataType_DT_UINT64,
	"bool": tpb.DataType_DT_BOOL, "complex64": tpb.DataType_DT_COMPLEX64, "complex128": tpb.DataType_DT_COMPLEX128,
	"string": tpb.DataType_DT_STRING, "DT_FLOAT16": tpb.DataType_DT_HALF,
}

// readOpInfoINI adds each [IrOp] section's input0 dtypes to out.
func readOpInfoINI(path string, out map[string][]tpb.DataType) error {
	return scanINI(path, func(section, key, val string) {
		if key != "input0.dtype" && key != "input0.type" {
			return
		}
		for _, v := range strings.Split(val, ",") {
			v = strings.TrimSpace(v)
			t, ok := iniTypes[v]
			if !ok {
				t, ok = dtEnum(v)
			}
			if ok {
				out[section] = append(out[section], t)
			}
		}
	})
}
