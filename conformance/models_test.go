package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tfscan/tfscan/executor"
	"github.com/tfscan/tfscan/internal/testmodel/testexec"
	"github.com/tfscan/tfscan/internal/tfenv"
	"github.com/tfscan/tfscan/internal/tfgolden"
	"github.com/tfscan/tfscan/kernels"
	"github.com/tfscan/tfscan/kernels/npz"
)

func init() { owners["models"] = true }

// zooMeta is a zoo model's meta.json (tools/tfmodels/README.md).
type zooMeta struct {
	Name          string            `json:"name"`
	Signature     string            `json:"signature"`
	Formats       map[string]string `json:"formats"`
	Missing       map[string]string `json:"missing"`
	FrozenInputs  map[string]string `json:"frozen_inputs"`
	FrozenOutputs map[string]string `json:"frozen_outputs"`
}

var (
	zooOnce sync.Once
	zooPath string
	zooErr  error
)

// smallZoo returns the folder of the small zoo, built by the same command
// as `make zoo` (tools/tfmodels/make.sh) on first use and then reused from
// the cache folder; $TFSCAN_ZOO names another zoo (the full one).
func smallZoo(t *testing.T) string {
	t.Helper()
	tfenv.Python(t) // skips (or fails under CI) without TensorFlow
	zooOnce.Do(func() {
		if p := os.Getenv("TFSCAN_ZOO"); p != "" {
			zooPath = p // a zoo already made, e.g. $(tools/tfmodels/make.sh --full)
			return
		}
		cmd := exec.Command(filepath.Join(tfenv.RepoRoot(), "tools", "tfmodels", "make.sh"))
		cmd.Env = tfenv.Env()
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			zooErr = fmt.Errorf("tools/tfmodels/make.sh: %v\n%s", err, stderr.String())
			return
		}
		zooPath = strings.TrimSpace(string(out))
	})
	if zooErr != nil {
		t.Fatal(zooErr)
	}
	return zooPath
}

// modelRule is how a zoo model's outputs are held to TensorFlow's, with
// the reason a tolerance is not zero.
type modelRule struct {
	Tol    tfgolden.Tol
	Reason string
}

// Why a float32 model is not bit-identical: the kernels it runs that the
// kernel goldens hold to a tolerance (docs/conformance.md, Kernels).
const (
	gemmReason = "float32 MatMul and Conv2D sum in another order than Eigen's contraction (the kernels' " +
		"summation-order tolerance); a few ULPs reach the outputs"
	approxModelReason = "as well Eigen's approximate float32 %s (the kernels' approximation tolerance)"
)

// modelRules are per model; a model not listed must be bit-identical.
var modelRules = map[string]modelRule{
	"mobilenetv2_a035_32": {Tol: tfgolden.Tol{ULP: 8}, Reason: gemmReason + " (Conv2D, MatMul; the depthwise convolutions are bit-identical)"},
	"lstm_text":           {Tol: tfgolden.Tol{ULP: 8}, Reason: gemmReason + "; " + fmt.Sprintf(approxModelReason, "sigmoid, tanh and softmax's exp")},
	"gru_text":            {Tol: tfgolden.Tol{ULP: 8}, Reason: gemmReason + "; " + fmt.Sprintf(approxModelReason, "sigmoid, tanh and softmax's exp")},
	"transformer_encoder": {Tol: tfgolden.Tol{ULP: 8}, Reason: gemmReason + " (Einsum, MatMul); " + fmt.Sprintf(approxModelReason, "erf, tanh, exp and rsqrt")},
	"control_flow": {Tol: tfgolden.Tol{ULP: 16, Abs: 1e-6}, Reason: gemmReason + " (MatMul in the loop); " + fmt.Sprintf(approxModelReason, "tanh") +
		"; five iterations compound them, and the trace's means cancel towards zero (896 ULP, 7e-9 absolute, on -1.1e-4)"},
	"tf1_builder": {Tol: tfgolden.Tol{ULP: 8}, Reason: gemmReason + " (one MatMul)"},
	"cpu_pinned": {Tol: tfgolden.Tol{ULP: 8}, Reason: "bit-identical on the machine that wrote this file; its Dense MatMul is a " +
		"contraction, whose order follows the CPU (the kernels' regeneration): with oneDNN's sgemm held to AVX2 " +
		"(ONEDNN_MAX_CPU_ISA=AVX2) on that machine, 7 of its 10 outputs move by 1 ULP"},
	"text_vectorization": {Tol: tfgolden.Tol{ULP: 8, Abs: 1e-6}, Reason: gemmReason + " (the Dense MatMul after the embedding's " +
		"mean, whose sum cancels: 24 ULP, 1.9e-9 absolute, on -5.4e-4); the token ids are bit-identical"},
	// the full zoo's (make zoo-full, largeModels)
	"mobilenetv2":      {Tol: tfgolden.Tol{ULP: 8}, Reason: gemmReason + " (224x224: Conv2D, MatMul)"},
	"mobilenetv3small": {Tol: tfgolden.Tol{ULP: 8}, Reason: gemmReason + " (224x224: Conv2D, MatMul; hard-swish)"},
	"resnet50":         {Tol: tfgolden.Tol{ULP: 16}, Reason: gemmReason + " (224x224: 53 Conv2D over up to 4,608 terms each)"},
	"efficientnetb0": {Tol: tfgolden.Tol{ULP: 16}, Reason: gemmReason + " (10 ULP on the TF.js form); " +
		fmt.Sprintf(approxModelReason, "sigmoid (swish)")},
	"densenet121": {Tol: tfgolden.Tol{ULP: 8}, Reason: gemmReason + " (224x224: 120 Conv2D over up to 1,152 terms each, " +
		"one MatMul)"},
	"inceptionv3": {Tol: tfgolden.Tol{ULP: 8}, Reason: gemmReason + " (299x299: 94 Conv2D, one MatMul)"},
	"convnexttiny": {Tol: tfgolden.Tol{ULP: 32}, Reason: gemmReason + " (224x224: the stem and downsampling Conv2D, the blocks' grouped 7x7 Conv2D " +
		"and 37 pointwise MatMul over up to 3,072 terms); " + fmt.Sprintf(approxModelReason, "erf (GELU) and rsqrt") +
		"; and each of the 23 LayerNormalizations takes a Mean over the channels, whose float32 reduction Eigen orders " +
		"otherwise (the kernels' reduction tolerance): single values differ by hundreds of ULPs where they are near zero, " +
		"31 ULP, 3.6e-7 absolute, reach the outputs"},
	"mixed_float16": {Tol: tfgolden.Tol{ULP: 8}, Reason: "the float16 MatMul is bit-identical (every product and sum rounded to float16 as " +
		"Eigen::half does); the float32 softmax at the end uses Eigen's approximate exp"},
}

// largeModels are the models only the full zoo has (tools/tfmodels/zoo.py,
// FULL): their results go to docs/conformance-large.md, written by a run on
// that zoo (TFSCAN_ZOO=$(make -s zoo-full)), so that the small zoo's run in
// CI neither needs them nor drops them.
var largeModels = map[string]bool{
	"mobilenetv2": true, "mobilenetv3small": true, "resnet50": true, "efficientnetb0": true,
	"densenet121": true, "inceptionv3": true, "convnexttiny": true,
}

// modelGaps are the model formats tfscan cannot run or runs to other
// numbers, each with the start of the error it gives, or "differs: " and
// why for wrong numbers; the test fails when one matches TensorFlow (so the
// list stays true) or fails otherwise.
var modelGaps = map[string]string{}

// modelGapWhy says why each gap is one.
var modelGapWhy = map[string]string{}

// zooFormats are the formats of a zoo model, in the table's order.
var zooFormats = []string{"saved_model", "frozen", "tfjs"}

type modelResult struct {
	model, format string
	status        string // "bit-identical", "within tolerance", "gap", "missing: …"
	maxULP        int64
	maxAbs        float64
	outputs       int
}

func TestZooModels(t *testing.T) {
	zoo := smallZoo(t)
	var index struct {
		TensorFlow string         `json:"tensorflow"`
		Models     map[string]any `json:"models"`
	}
	b, err := os.ReadFile(filepath.Join(zoo, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &index); err != nil {
		t.Fatalf("%s/index.json: %v", zoo, err)
	}
	if index.TensorFlow != tfenv.Version {
		t.Fatalf("the zoo is made by TensorFlow %s, want %s", index.TensorFlow, tfenv.Version)
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range index.Models {
			if !yield(k) {
				return
			}
		}
	})
	var results []modelResult
	all := true // every model's every format ran (no -run filter left one out)
	for _, name := range names {
		dir := filepath.Join(zoo, name)
		var meta zooMeta
		mb, err := os.ReadFile(filepath.Join(dir, "meta.json"))
		if err == nil {
			err = json.Unmarshal(mb, &meta)
		}
		if err != nil {
			t.Fatalf("%s/meta.json: %v", dir, err)
		}
		inputs, err := npz.Read(filepath.Join(dir, "inputs.npz"))
		if err != nil {
			t.Fatal(err)
		}
		want, err := npz.Read(filepath.Join(dir, "outputs.npz"))
		if err != nil {
			t.Fatal(err)
		}
		rule := modelRules[name]
		for _, format := range zooFormats {
			r := modelResult{model: name, format: format}
			file, ok := meta.Formats[format]
			if !ok {
				r.status = "not exported: " + meta.Missing[format]
				results = append(results, r)
				continue
			}
			ran := false
			t.Run(name+"/"+format, func(t *testing.T) {
				ran = true
				got, err := runZooModel(filepath.Join(dir, file), format, &meta, inputs)
				gapKey := name + "/" + format
				if gap, isGap := modelGaps[gapKey]; isGap && !strings.HasPrefix(gap, "differs: ") {
					if err == nil {
						t.Errorf("%s runs now: remove it from modelGaps", gapKey)
					} else if !strings.Contains(err.Error(), gap) {
						t.Errorf("%s: %v (the known gap is %q)", gapKey, err, gap)
					}
					r.status = "gap (see below)"
					return
				}
				if err != nil {
					t.Errorf("tfscan cannot run it: %v", err)
					r.status = "error"
					return
				}
				var msgs []string
				r.status = "bit-identical"
				for _, key := range slices.Sorted(mapKeys(want)) {
					g, ok := got[key]
					if !ok {
						msgs = append(msgs, fmt.Sprintf("output %q: tfscan gives none", key))
						r.status = "error"
						continue
					}
					d, err := tfgolden.Compare(g, want[key], rule.Tol)
					if err != nil {
						msgs = append(msgs, fmt.Sprintf("output %q: %v", key, err))
						r.status = "error"
						continue
					}
					r.outputs++
					r.maxULP = max(r.maxULP, d.MaxULP)
					r.maxAbs = max(r.maxAbs, d.MaxAbs)
					if d.Bad > 0 {
						msgs = append(msgs, fmt.Sprintf("output %q (%s %v): %d of %d values differ from TensorFlow's beyond %s; first %s",
							key, tfgolden.DTypeName(want[key].DType), want[key].Shape, d.Bad, d.N, rule.Tol, d.First))
						r.status = "error"
					} else if !d.Identical && r.status == "bit-identical" {
						r.status = "within tolerance"
					}
				}
				if gap := modelGaps[gapKey]; strings.HasPrefix(gap, "differs: ") {
					if len(msgs) == 0 {
						t.Errorf("%s matches TensorFlow now: remove it from modelGaps", gapKey)
					}
					return
				}
				for _, m := range msgs {
					t.Error(m)
				}
			})
			if gap := modelGaps[name+"/"+format]; strings.HasPrefix(gap, "differs: ") {
				r.status = "gap (see below)"
			}
			results = append(results, r)
			all = all && ran
		}
	}
	if !all {
		return // a -run of some models: the documents hold every model's row
	}
	var small, large []modelResult
	for _, r := range results {
		if largeModels[r.model] {
			large = append(large, r)
		} else {
			small = append(small, r)
		}
	}
	section("models", modelsSection(small, false))
	if len(large) > 0 && !t.Failed() {
		if err := largeDoc(modelsSection(large, true)); err != nil {
			t.Error(err)
		}
	}
}

// largeDoc writes docs/conformance-large.md under -update, or holds the
// committed file to what this run found.
func largeDoc(text string) error {
	doc := "# Large models against TensorFlow\n\n" +
		"Generated by `TFSCAN_ZOO=$(make -s zoo-full) go test ./conformance -run TestZooModels -update` against " +
		"TensorFlow " + tfenv.Version + ",\nas docs/conformance.md is; the full zoo is built on demand, not in CI.\n\n" + text
	return holdDoc("conformance-large.md", doc, "the full zoo's run with -update")
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// runZooModel runs one exported form of a zoo model as `tfscan run` does
// (load, select the serve meta graph, restore the checkpoint, feed, fetch)
// and returns its outputs keyed by the signature's output keys.
func runZooModel(path, format string, meta *zooMeta, inputs map[string]*kernels.Tensor) (map[string]*kernels.Tensor, error) {
	ex, g, err := testexec.Executor(path)
	if err != nil {
		return nil, err
	}
	feeds := map[string]*kernels.Tensor{}
	var names, keys []string
	switch format {
	case "frozen":
		for k, v := range inputs {
			name, ok := meta.FrozenInputs[k]
			if !ok {
				return nil, fmt.Errorf("meta.json: no frozen input for %q", k)
			}
			feeds[name] = v
		}
		for _, k := range slices.Sorted(mapKeys(meta.FrozenOutputs)) {
			names = append(names, meta.FrozenOutputs[k])
			keys = append(keys, k)
		}
	default:
		sig := executor.FindSignature(g.Signatures, meta.Signature)
		if sig == nil && len(g.Signatures) == 1 {
			sig = g.Signatures[0] // a TF.js model's one signature
		}
		if sig == nil {
			return nil, fmt.Errorf("no signature %q", meta.Signature)
		}
		if feeds, _, err = executor.FeedsFrom(g, sig, inputs); err != nil {
			return nil, err
		}
		names, keys = executor.Outputs(g, sig)
	}
	res, err := ex.Run(context.Background(), feeds, names)
	if err != nil {
		var ie *executor.InternalError
		if errors.As(err, &ie) {
			return nil, fmt.Errorf("internal error: %w", err)
		}
		return nil, err
	}
	out := map[string]*kernels.Tensor{}
	for i, n := range names {
		out[keys[i]] = res[n]
	}
	return out, nil
}

// modelsSection is the table of the small zoo's models (docs/conformance.md)
// or of the large ones (docs/conformance-large.md), with their tolerances.
func modelsSection(results []modelResult, large bool) string {
	var b strings.Builder
	b.WriteString("## Models\n\n")
	if large {
		b.WriteString("Every model only the full zoo has (`make zoo-full`: keras.applications at 224x224, InceptionV3 at 299x299)")
	} else {
		b.WriteString("Every model of the small zoo (`make zoo`, tools/tfmodels/README.md; the full zoo's large models are in\n" +
			"[conformance-large.md](conformance-large.md))")
	}
	b.WriteString(" as TensorFlow exports it, run by tfscan's\n" +
		"executor on the zoo's seeded inputs and compared with what TensorFlow computes from the SavedModel loaded back.\n" +
		"Floats are compared in ULPs of their dtype (NaN equals NaN); integers, bools and strings must be equal.\n" +
		"The TF.js converter stores float16 weights as float32 (float64 and int64 ones as float32 and int32) but keeps\n" +
		"the graph's dtypes, which TF.js computes in float32; tfscan reads such weights back in the dtype their Const\n" +
		"declares (exactly, for float16: savedmodel/tfjs_dtypes.go) and runs mixed_float16/tfjs in float16 as TensorFlow\n" +
		"does; `tfscan inspect` says so (diagnostic `tfjs_narrowed_weights`).\n\n")
	b.WriteString("| model | format | result | outputs | max ULP | max abs |\n|---|---|---|---:|---:|---:|\n")
	for _, r := range results {
		status, ulp, abs := strings.ReplaceAll(r.status, "|", "\\|"), "", ""
		if r.outputs > 0 {
			ulp, abs = fmt.Sprint(r.maxULP), fmt.Sprintf("%.3g", r.maxAbs)
			if r.maxULP == tfgolden.MaxULP {
				ulp = "∞"
			}
		}
		if r.status == "bit-identical" || r.status == "within tolerance" {
			// TensorFlow's outputs come from the zoo made on this machine
			status, ulp, abs = measured(status), measured(ulp), measured(abs)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %s | %s |\n", r.model, r.format, status, r.outputs, ulp, abs)
	}
	var rules []string
	for _, k := range slices.Sorted(mapKeys(modelRules)) {
		if largeModels[k] != large {
			continue
		}
		rules = append(rules, fmt.Sprintf("- %s: %s. %s", k, modelRules[k].Tol, modelRules[k].Reason))
	}
	if len(rules) > 0 {
		b.WriteString("\nTolerances (every other model is held to bit-identical results):\n\n" + strings.Join(rules, "\n") + "\n")
	}
	var gaps []string
	for _, k := range slices.Sorted(mapKeys(modelGaps)) {
		if m, _, _ := strings.Cut(k, "/"); largeModels[m] == large {
			gaps = append(gaps, k)
		}
	}
	if len(gaps) > 0 {
		b.WriteString("\nKnown gaps (the test fails when one closes or its error changes):\n\n")
		for _, k := range gaps {
			fmt.Fprintf(&b, "- %s: %s (%s)\n", k, modelGapWhy[k], strings.TrimPrefix(modelGaps[k], "differs: "))
		}
	}
	return b.String()
}
