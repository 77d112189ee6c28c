package extract

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	avpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/internal/lazyre"
)

// C API kernels (tensorflow/c/kernels.h) register with plain function calls
// rather than a macro:
//
//	auto* builder = TF_NewKernelBuilder("ScalarSummary", tensorflow::DEVICE_CPU, ...);
//	TF_KernelBuilder_TypeConstraint(builder, "T",
//	    static_cast<TF_DataType>(tensorflow::DataTypeToEnum<T>::v()), status);
//	TF_RegisterKernelBuilder("ScalarSummary", builder, status);
//
// often inside a function template instantiated once per dtype
// (RegisterScalarSummaryOpKernel<float>(); in tensorflow/c/kernels/summary_op.cc).
// TensorFlow's own Linux wheel links four such kernels (Bitcast,
// ScalarSummary, HistogramSummary, MergeSummary: all_kernels_impl in
// tensorflow/core/BUILD).

var (
	capiCallRE  = lazyre.New(`\bTF_NewKernelBuilder\s*\(`)
	capiEndRE   = lazyre.New(`\bTF_RegisterKernelBuilder\s*\(`)
	capiStepRE  = lazyre.New(`\bTF_KernelBuilder_(TypeConstraint|HostMemory|Priority|Label)\s*\(`)
	capiTmplRE  = lazyre.New(`template\s*<\s*(?:typename|class)\s+(\w+)\s*>\s*(?:static\s+|inline\s+)*void\s+(\w+)\s*\(\s*\)`)
	staticCastR = lazyre.New(`^static_cast\s*<\s*(?:::)?TF_DataType\s*>\s*\(`)
)

// ParseCAPIRegistrations finds the C API kernel registrations in
// preprocessed text. A registration inside `template <typename T> void
// F()` whose type constraint names T yields one kernel per F<type>() call
// in the same text.
func ParseCAPIRegistrations(text, file string, syms *Symbols) ([]Registration, []Skip) {
	var regs []Registration
	var skips []Skip
	for _, loc := range capiCallRE.FindAllStringIndex(text, -1) {
		open := loc[1] - 1
		end := matchClose(text, open)
		if end < 0 {
			skips = append(skips, Skip{File: file, Text: clip(text[loc[0]:]), Reason: "unbalanced parentheses"})
			continue
		}
		args := splitTopLevel(text[open+1 : end])
		if len(args) < 2 {
			skips = append(skips, Skip{File: file, Text: clip(text[loc[0] : end+1]), Reason: "TF_NewKernelBuilder needs an op and a device"})
			continue
		}
		op, ok := syms.str(args[0])
		if !ok {
			skips = append(skips, Skip{File: file, Text: clip(text[loc[0] : end+1]), Reason: "op name is not a string constant: " + strings.TrimSpace(args[0])})
			continue
		}
		devs := parseDevices(args[1])
		if len(devs) != 1 {
			skips = append(skips, Skip{File: file, Text: clip(text[loc[0] : end+1]), Reason: "op " + op + ": device is not a constant"})
			continue
		}
		// The builder's steps run up to its TF_RegisterKernelBuilder.
		body := text[end+1:]
		if m := capiEndRE.FindStringIndex(body); m != nil {
			body = body[:m[0]]
		}
		tmplParam, tmplFunc := enclosingTemplate(text[:loc[0]])
		var insts []string
		if tmplParam != "" {
			insts = templateInstances(text, tmplFunc)
		}
		build := func(param, arg string) (Registration, error) {
			k := &kdpb.KernelDef{Op: op, DeviceType: devs[0]}
			reg := Registration{Kernel: k, File: file}
			for _, m := range capiStepRE.FindAllStringSubmatchIndex(body, -1) {
				e := matchClose(body, m[1]-1)
				if e < 0 {
					return reg, fmt.Errorf("op %s: unbalanced parentheses", op)
				}
				a := splitTopLevel(body[m[1]:e])
				step := body[m[2]:m[3]]
				if len(a) < 2 || step == "TypeConstraint" && len(a) < 3 {
					return reg, fmt.Errorf("op %s: TF_KernelBuilder_%s has too few arguments", op, step)
				}
				switch step {
				case "TypeConstraint":
					attr, _ := stringLiteral(a[1])
					if attr == "" {
						return reg, fmt.Errorf("op %s: type constraint attr is not a string literal", op)
					}
					t, ok := capiType(a[2], param, arg, syms)
					if !ok {
						reg.Unresolved = append(reg.Unresolved, attr)
						continue
					}
					addConstraint(k, attr, &avpb.AttrValue_ListValue{Type: t})
				case "HostMemory":
					s, ok := stringLiteral(a[1])
					if !ok {
						return reg, fmt.Errorf("op %s: host memory arg is not a string literal", op)
					}
					k.HostMemoryArg = append(k.HostMemoryArg, s)
				case "Priority":
					n, err := strconv.ParseInt(strings.TrimSpace(a[1]), 0, 32)
					if err != nil {
						return reg, fmt.Errorf("op %s: priority is not an integer", op)
					}
					k.Priority = int32(n)
				case "Label":
					s, ok := syms.str(a[1])
					if !ok {
						return reg, fmt.Errorf("op %s: label is not a string constant", op)
					}
					k.Label = s
				}
			}
			return reg, nil
		}
		if len(insts) == 0 || !usesParam(body, tmplParam) {
			insts, tmplParam = []string{""}, ""
		}
		for _, arg := range insts {
			reg, err := build(tmplParam, arg)
			if err != nil {
				skips = append(skips, Skip{File: file, Text: clip(text[loc[0] : end+1]), Reason: err.Error()})
				continue
			}
			regs = append(regs, reg)
		}
	}
	return regs, skips
}

// capiType resolves the dtype argument of TF_KernelBuilder_TypeConstraint:
// TF_FLOAT, DT_FLOAT, static_cast<TF_DataType>(DataTypeToEnum<T>::v()),
// with the template parameter param bound to the C++ type arg.
func capiType(expr, param, arg string, syms *Symbols) ([]tpb.DataType, bool) {
	expr = strings.TrimSpace(expr)
	if m := staticCastR.FindStringIndex(expr); m != nil && strings.HasSuffix(expr, ")") {
		expr = strings.TrimSpace(expr[m[1] : len(expr)-1])
	}
	if param != "" {
		expr = regexp.MustCompile(`\b`+regexp.QuoteMeta(param)+`\b`).ReplaceAllLiteralString(expr, arg)
	}
	return parseTypeExpr(expr, syms.types())
}

// enclosingTemplate returns the type parameter and name of the last
// `template <typename T> void F()` that starts before the end of before.
func enclosingTemplate(before string) (param, fn string) {
	ms := capiTmplRE.FindAllStringSubmatch(before, -1)
	if len(ms) == 0 {
		return "", ""
	}
	m := ms[len(ms)-1]
	return m[1], m[2]
}

// templateInstances lists the template arguments of the calls F<arg>() in text.
func templateInstances(text, fn string) []string {
	var out []string
	re := regexp.MustCompile(`\b` + regexp.QuoteMeta(fn) + `\s*<`)
	for _, loc := range re.FindAllStringIndex(text, -1) {
		e := matchAngle(text, loc[1]-1)
		if e < 0 {
			continue
		}
		rest := strings.TrimSpace(text[e+1:])
		if !strings.HasPrefix(rest, "(") {
			continue
		}
		out = append(out, strings.TrimSpace(text[loc[1]:e]))
	}
	return out
}

func usesParam(body, param string) bool {
	return param != "" && regexp.MustCompile(`\b`+regexp.QuoteMeta(param)+`\b`).MatchString(body)
}
