package extract

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/dtype"
	"github.com/tfscan/tfscan/internal/lazyre"
)

// Vendor graph optimizers: the fusions a stack performs on the nodes placed
// on its device, after TensorFlow's placer and before its kernels run.
// Each reader takes the few files that hold the optimizer's tables and
// cites the line of every rewrite it declares.

// Optimizer readers (tools/extract --stack).
const (
	StackITEX   = "itex-remapper"
	StackMUSA   = "musa-fusion"
	StackAscend = "ascend-adapter"
)

// Stack inputs of the ITEX remapper.
const (
	inRemapper  = "remapper"  // itex/core/graph/remapper/remapper.cc
	inConstants = "constants" // itex/core/graph/remapper/constant_names.h
	inOpTypes   = "op_types"  // itex/core/graph/utils/op_types.cc
	inPostOps   = "post_ops"  // itex/core/utils/onednn/onednn_post_op_util.cc
	inXPUOpt    = "optimizer" // itex/core/graph/xpu_optimizer.cc
	inOptConfig = "config"    // itex/core/graph/optimizer_config.h
)

var (
	constNameRE   = lazyre.New(`constexpr char (k\w+)\[\] =\s*"([^"]+)";`)
	predicateRE   = lazyre.New(`^bool (Is\w+)\(const NodeDef& node\)`)
	opEqRE        = lazyre.New(`op(?:\(\))? == "([^"]+)"`)
	postOpRE      = lazyre.New(`^\s*\{"([^"]+)", kind::eltwise,`)
	addContrRE    = lazyre.New(`^Status AddFusedContractionNode\(`)
	matchedTypeRE = lazyre.New(`const (\w+)& matched`)
	isContrRE     = lazyre.New(`if \((Is\w+)\(contraction\)\)`)
	setOpRE       = lazyre.New(`\.set_op\((k\w+)\);`)
	addFBNExRE    = lazyre.New(`^Status AddFusedBatchNormExNode\(`)
	findFBNExRE   = lazyre.New(`^bool FindFusedBatchNormEx\(`)
	fbnDTypeRE    = lazyre.New(`t_dtype != (DT_\w+) && t_dtype != (DT_\w+)\) return false`)
	runRemapperRE = lazyre.New(`RunRemapper\(`)
	remapOnRE     = lazyre.New(`constexpr static bool enable_itex_remapper = (true|false);`)
)

// ReadITEXOptimizer reads ITEX's remapper: its contraction + BiasAdd
// [+ activation] fusions (AddFusedContractionNode, one set_op per
// contraction op), the activations its post-op table accepts, and
// FusedBatchNorm + Relu. Patterns that are not single-consumer chains
// (with Add, Pad, Cast, Reshape, training ops, ...) are left out.
func ReadITEXOptimizer(root string, in StackInputs) (*coverage.Optimizer, error) {
	if err := in.need(inRemapper, inConstants, inOpTypes, inPostOps, inXPUOpt, inOptConfig); err != nil {
		return nil, err
	}
	files := map[string]*srcFile{}
	for _, k := range []string{inRemapper, inConstants, inOpTypes, inPostOps, inXPUOpt, inOptConfig} {
		f, err := readSrc(root, in[k])
		if err != nil {
			return nil, err
		}
		files[k] = f
	}
	consts := map[string]string{}
	for _, m := range constNameRE.FindAllStringSubmatch(strings.Join(files[inConstants].lines, "\n"), -1) {
		consts[m[1]] = m[2]
	}
	preds := readPredicates(files[inOpTypes])
	var acts []string
	for _, l := range files[inPostOps].lines {
		if m := postOpRE.FindStringSubmatch(l); m != nil {
			acts = append(acts, m[1])
		}
	}
	if len(acts) == 0 {
		return nil, fmt.Errorf("%s: no eltwise post ops", files[inPostOps].rel)
	}
	slices.Sort(acts)
	bias := preds["IsBiasAdd"]
	if len(bias) == 0 {
		return nil, fmt.Errorf("%s: no IsBiasAdd", files[inOpTypes].rel)
	}

	rm := files[inRemapper]
	var fusions []coverage.Rewrite
	for l := rm.find(addContrRE, 1); l > 0; l = rm.find(addContrRE, l+1) {
		// The matched pattern type is in the signature.
		var pattern string
		body := l
		for ; body <= len(rm.lines) && !strings.HasSuffix(strings.TrimSpace(rm.lines[body-1]), "{"); body++ {
			if m := matchedTypeRE.FindStringSubmatch(rm.lines[body-1]); m != nil {
				pattern = m[1]
			}
		}
		if m := matchedTypeRE.FindStringSubmatch(rm.lines[min(body, len(rm.lines))-1]); m != nil {
			pattern = m[1]
		}
		var tail [][]string
		switch pattern {
		case "ContractionWithBiasAdd":
			tail = [][]string{bias}
		case "ContractionWithBiasAddAndActivation":
			tail = [][]string{bias, acts}
		default:
			continue // not a chain tfscan matches
		}
		pred := ""
		for i := body; i < len(rm.lines) && rm.lines[i-1] != "}"; i++ {
			if m := isContrRE.FindStringSubmatch(rm.lines[i-1]); m != nil {
				pred = m[1]
				continue
			}
			m := setOpRE.FindStringSubmatch(rm.lines[i-1])
			if m == nil || pred == "" {
				continue
			}
			ops, fused := preds[pred], consts[m[1]]
			pred = ""
			if len(ops) == 0 || fused == "" {
				continue // a predicate or constant tfscan cannot resolve
			}
			fusions = append(fusions, coverage.Rewrite{Chain: append([][]string{ops}, tail...), Fused: fused, Source: rm.at(i)})
		}
	}
	if len(fusions) == 0 {
		return nil, fmt.Errorf("%s: no contraction fusions found", rm.rel)
	}
	// FusedBatchNorm + Relu → _FusedBatchNormEx, for the dtypes
	// FindFusedBatchNormEx accepts.
	if l := rm.find(addFBNExRE, 1); l > 0 {
		fl := rm.find(findFBNExRE, 1)
		dl := rm.find(fbnDTypeRE, fl)
		for i := l; i < len(rm.lines) && rm.lines[i-1] != "}"; i++ {
			m := setOpRE.FindStringSubmatch(rm.lines[i-1])
			if m == nil || consts[m[1]] == "" || fl == 0 || dl == 0 {
				continue
			}
			d := fbnDTypeRE.FindStringSubmatch(rm.lines[dl-1])
			fusions = append(fusions, coverage.Rewrite{
				Chain: [][]string{preds["IsFusedBatchNorm"], preds["IsRelu"]}, Fused: consts[m[1]],
				DTypes: []string{dtName(d[1]), dtName(d[2])}, Source: rm.at(i) + " (dtypes: " + rm.at(dl) + ")"})
			break
		}
	}
	opt := &coverage.Optimizer{Name: "ITEX graph optimizer (remapper)", Modelled: true}
	run := files[inXPUOpt].find(runRemapperRE, 1)
	on := files[inOptConfig].find(remapOnRE, 1)
	if run == 0 || on == 0 {
		return nil, fmt.Errorf("%s / %s: cannot tell whether the remapper runs", files[inXPUOpt].rel, files[inOptConfig].rel)
	}
	if remapOnRE.FindStringSubmatch(files[inOptConfig].lines[on-1])[1] != "true" {
		opt.Modelled = false
		opt.Note = "the remapper is off by default (" + files[inOptConfig].at(on) + ")"
		return opt, nil
	}
	opt.Source = files[inXPUOpt].at(run) + "; on by default: " + files[inOptConfig].at(on) + " (ITEX_REMAPPER=0 turns it off)"
	opt.Note = "runs on the nodes TensorFlow placed on the device; patterns with Add, Pad, Cast, Reshape, Gelu sub-graphs and training ops are not read; BiasAdd semantics Adds and the LeakyRelu exclusion for MatMul are not modelled"
	opt.Fusions = fusions
	return opt, nil
}

// readPredicates maps each `bool IsX(const NodeDef& node)` of op_types.cc
// to the op names it compares with; predicates that call others resolve
// through them.
func readPredicates(f *srcFile) map[string][]string {
	out := map[string][]string{}
	calls := map[string][]string{}
	callRE := regexp.MustCompile(`(Is\w+)\(node\)`)
	for i := 0; i < len(f.lines); i++ {
		m := predicateRE.FindStringSubmatch(f.lines[i])
		if m == nil {
			continue
		}
		name := m[1]
		for j := i; j < len(f.lines); j++ {
			line := f.lines[j]
			if j > i && predicateRE.MatchString(line) {
				break
			}
			for _, q := range opEqRE.FindAllStringSubmatch(line, -1) {
				out[name] = append(out[name], q[1])
			}
			for _, c := range callRE.FindAllStringSubmatch(line, -1) {
				calls[name] = append(calls[name], c[1])
			}
			if strings.HasPrefix(line, "}") || j > i && strings.HasSuffix(strings.TrimSpace(line), "}") && !strings.Contains(line, "{") {
				break
			}
		}
	}
	for name, cs := range calls {
		for _, c := range cs {
			out[name] = append(out[name], out[c]...)
		}
	}
	for name := range out {
		slices.Sort(out[name])
		out[name] = slices.Compact(out[name])
	}
	return out
}

func dtName(enum string) string {
	if t, ok := dtEnum(enum); ok {
		return dtype.Name(t)
	}
	return enum
}

// Stack inputs of MUSA's optimizer.
const (
	inMUSAFusions  = "fusions"   // musa_ext/graph/fusion
	inMUSAOptimize = "optimizer" // musa_ext/mu/optimizer/musa_graph_optimizer.cc
)

var (
	registerPassRE  = lazyre.New(`REGISTER_OPTIMIZATION\(([^,]+),`)
	registerFusedRE = lazyre.New(`REGISTER_FUSION_PATTERN\((\w+)\)`)
	musaSetOpRE     = lazyre.New(`set_op\("(\w+)"\)`)
)

// ReadMUSAOptimizer lists MUSA's fusion patterns. Their match conditions
// are C++ code (Match methods) tfscan does not read, so the optimizer is
// declared but not modelled: fusion predictions keep TensorFlow's view.
func ReadMUSAOptimizer(root string, in StackInputs) (*coverage.Optimizer, error) {
	if err := in.need(inMUSAFusions, inMUSAOptimize); err != nil {
		return nil, err
	}
	opt, err := readSrc(root, in[inMUSAOptimize])
	if err != nil {
		return nil, err
	}
	pass := opt.find(registerPassRE, 1)
	if pass == 0 {
		return nil, fmt.Errorf("%s: no REGISTER_OPTIMIZATION", opt.rel)
	}
	entries, err := os.ReadDir(filepath.Join(root, in[inMUSAFusions]))
	if err != nil {
		return nil, err
	}
	var patterns []string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".cc") {
			continue
		}
		f, err := readSrc(root, filepath.Join(in[inMUSAFusions], e.Name()))
		if err != nil {
			return nil, err
		}
		var fused []string
		for _, l := range f.lines {
			// Const nodes are the patterns' helpers, not fused ops.
			if m := musaSetOpRE.FindStringSubmatch(l); m != nil && m[1] != "Const" && !slices.Contains(fused, m[1]) {
				fused = append(fused, m[1])
			}
		}
		for i, l := range f.lines {
			if m := registerFusedRE.FindStringSubmatch(l); m != nil {
				patterns = append(patterns, fmt.Sprintf("%s (%s) → %s", m[1], f.at(i+1), strings.Join(fused, ", ")))
			}
		}
	}
	slices.Sort(patterns)
	phase := strings.TrimSpace(registerPassRE.FindStringSubmatch(opt.lines[pass-1])[1])
	return &coverage.Optimizer{
		Name:     "MUSA graph optimizer (fusion patterns)",
		Source:   opt.at(pass) + " (" + phase + ")",
		Modelled: false,
		Note: fmt.Sprintf("%d fusion patterns whose match conditions are C++ code tfscan does not read: %s",
			len(patterns), strings.Join(patterns, "; ")),
	}, nil
}
