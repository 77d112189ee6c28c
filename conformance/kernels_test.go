package conformance

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/executor"
	"github.com/tfscan/tfscan/internal/tfenv"
	"github.com/tfscan/tfscan/internal/tfgolden"
	"github.com/tfscan/tfscan/kernels"
)

func init() { owners["kernels"] = true }

// TestKernelGoldens regenerates the kernel goldens with TensorFlow
// (tools/tf/kernel_goldens.py) and requires them equal to the committed
// kernels/testdata/tf, so that the goldens kernels/'s test holds the Go
// kernels to are TensorFlow's: case for case the same inputs, attrs and
// errors, and bit-identical outputs except where TensorFlow's own result
// follows the machine's CPU (tfgolden.Regenerated); then writes the "kernels" section:
// every swept op and dtype with how its cases compare, the tolerances and
// known defects, the registered ops the sweep leaves out and the ops
// TensorFlow's CPU build has that the executor lacks.
func TestKernelGoldens(t *testing.T) {
	dir := t.TempDir()
	tfenv.Run(t, tfgolden.Generator, dir)
	committed := filepath.Join(tfenv.RepoRoot(), tfgolden.Dir)
	want, _ := filepath.Glob(filepath.Join(committed, "*.json.gz"))
	got, _ := filepath.Glob(filepath.Join(dir, "*.json.gz"))
	if len(want) != len(got) {
		t.Errorf("TensorFlow writes %d golden files, %d are committed (make kernel-goldens)", len(got), len(want))
	}
	for _, g := range got {
		name := filepath.Base(g)
		regen, err := tfgolden.Read(g)
		if err != nil {
			t.Fatal(err)
		}
		want, err := tfgolden.Read(filepath.Join(committed, name))
		if err != nil {
			t.Errorf("%s/%s: %v (make kernel-goldens writes it)", tfgolden.Dir, name, err)
			continue
		}
		for _, d := range tfgolden.Regenerated(regen, want) {
			t.Errorf("%s/%s differs from what TensorFlow computes now (make kernel-goldens rewrites it): %s", tfgolden.Dir, name, d)
		}
	}
	files, err := tfgolden.ReadAll(committed)
	if err != nil {
		t.Fatal(err)
	}
	section("kernels", kernelsSection(files))
}

type opDType struct{ op, dt string }

func kernelsSection(files []*tfgolden.File) string {
	counts := map[opDType]map[tfgolden.Outcome]int{}
	named := map[opDType]int{}
	swept := map[string]bool{}
	total := 0
	for _, f := range files {
		for _, c := range f.Cases {
			k := opDType{c.Op, c.DType()}
			if counts[k] == nil {
				counts[k] = map[tfgolden.Outcome]int{}
			}
			r := tfgolden.Check(c)
			if tfgolden.DifferenceOf(c, r) != nil {
				named[k]++
			} else {
				counts[k][r.Outcome]++
			}
			swept[c.Op] = true
			total++
		}
	}
	keys := slices.Collect(func(yield func(opDType) bool) {
		for k := range counts {
			if !yield(k) {
				return
			}
		}
	})
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].op != keys[j].op {
			return keys[i].op < keys[j].op
		}
		return keys[i].dt < keys[j].dt
	})
	var b strings.Builder
	b.WriteString("## Kernels\n\n")
	fmt.Fprintf(&b, "Every op of the sweep in `%s` run by TensorFlow's CPU kernels (eagerly, oneDNN off; the ops whose only CPU\n"+
		"kernel is oneDNN's in a graph with it on, the onednn family) over the dtypes its CPU kernel takes, scalars,\n"+
		"empty tensors, broadcasting, odd sizes and edge values (NaN, ±Inf, -0.0, subnormals, the\n"+
		"integer extremes, out-of-range indices and axes); the results are committed in `%s` and held against tfscan's\n"+
		"kernels by `go test ./kernels` (TestTensorFlowGoldens). %d cases in %d files. A case is bit-identical, within\n"+
		"its op's tolerance (below), refused by both, a dtype tfscan's kernel lacks, a named difference or known defect (below), or differs\n"+
		"only where an input is subnormal: TensorFlow runs kernels with denormals flushed (FTZ and DAZ,\n"+
		"core/platform/denormal.cc) and tfscan keeps IEEE subnormals; the comparison applies the flush to tfscan's inputs\n"+
		"and results and counts what still differs on subnormal inputs (libm's and Eigen's branches on tiny values) apart.\n"+
		"A stateful, resource or list op (variables, tables, TensorArrays, TensorLists, RestoreV2 on a checkpoint\n"+
		"TensorFlow writes) is a sequence of steps TensorFlow runs in one graph and session, the op with what creates\n"+
		"its resource and what reads its effect; tfscan runs the same steps through its kernels with one ResourceMgr.\n"+
		"A complex64 or complex128 value's parts are each held as a float32 or float64; the complex functions TensorFlow\n"+
		"takes from glibc also allow a bound relative to the value's modulus (\"ULP of |z|\").\n"+
		"The conformance run regenerates every golden and holds it to the committed one bit for bit, except the outputs of\n"+
		"the contractions (MatMul, BatchMatMul, Einsum, the convolutions), which TensorFlow on another machine adds in\n"+
		"another order: %s.\nThey are held to %s (float32, as measured across oneDNN's instruction sets, twice the largest\n"+
		"seen) or their dtype's summation-order tolerance. The ops whose float kernels take a reciprocal or reciprocal\n"+
		"square root (Reciprocal, Inv, Rsqrt, Atan, Atan2, Softmax, the batch norms, LRN) differ too: %s. They are held\n"+
		"to %s (float32, twice the largest seen between an AMD Zen 4 and an Intel Sapphire Rapids), %s for half and\n"+
		"bfloat16. tfscan's kernels divide and take square roots exactly there, held to the committed goldens by each\n"+
		"op's own rule.\n\n",
		tfgolden.Generator, tfgolden.Dir, total, len(files), tfgolden.CPUReason, tfgolden.RegenTol("float32"),
		tfgolden.EstimateReason, tfgolden.EstimateTol("float32"), tfgolden.EstimateTol("float16"))
	b.WriteString("| op | dtype | cases | bit-identical | within tolerance | both error | dtype not in tfscan | subnormal inputs | named difference | known defect |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, k := range keys {
		c := counts[k]
		n := named[k]
		for _, v := range c {
			n += v
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d | %d | %d | %d | %d |\n", k.op, k.dt, n, c[tfgolden.Identical],
			c[tfgolden.Within], c[tfgolden.BothError], c[tfgolden.NoDType], c[tfgolden.Subnormal], named[k],
			c[tfgolden.Differs]+c[tfgolden.Accepts])
	}
	b.WriteString("\nTolerances (every other op and dtype is held bit-identical):\n\n")
	rules := tfgolden.Rules()
	byReason := map[string][]string{}
	for _, k := range slices.Sorted(mapKeys(rules)) {
		r := rules[k]
		desc := r.Tol.String()
		if len(r.Skip) > 0 {
			desc = fmt.Sprintf("outputs %v not compared", r.Skip)
			if r.Tol != (tfgolden.Tol{}) {
				desc = fmt.Sprintf("%s, outputs %v not compared", r.Tol, r.Skip)
			}
		}
		byReason[r.Reason] = append(byReason[r.Reason], k+" ("+desc+")")
	}
	for _, reason := range slices.Sorted(mapKeys(byReason)) {
		fmt.Fprintf(&b, "- %s: %s.\n", strings.Join(byReason[reason], ", "), reason)
	}
	b.WriteString("\nNamed differences (tfscan computes, on purpose, what TensorFlow's stock CPU kernel refuses; " +
		"`internal/tfgolden/differences.go`, the test fails when one no longer shows):\n\n")
	for _, d := range tfgolden.Differences() {
		fmt.Fprintf(&b, "- %s: %s.\n", d.Name, d.Why)
	}
	b.WriteString("\nA float cast to an integer type out of its range (NaN included) is undefined in C++; tfscan gives what " +
		"x86-64 TensorFlow gives, which depends on the element's position: clang's vectorised loop over Eigen's scalar " +
		"cast saturates (and gives 2^31 for uint32), its scalar remainder keeps the low bits of a 32-bit conversion " +
		"(`kernels/cast_x86.go`, held by the cast goldens' position sweep). That holds for a tensor Eigen's thread pool " +
		"converts in one block; one large enough for its cost model to split (beyond some 10^5 elements) has a " +
		"remainder at the end of each block, and the blocks follow the machine's core count, so there tfscan, which " +
		"models one block, and TensorFlow may differ on out-of-range elements.\n")
	defects := tfgolden.Defects()
	if len(defects) == 0 {
		b.WriteString("\nKnown defects (`internal/tfgolden/defects.go`): none; every other case agrees with TensorFlow as above.\n")
	} else {
		b.WriteString("\nKnown defects (tfscan's kernel differs; `internal/tfgolden/defects.go`, the test fails when one is fixed and not removed):\n\n")
	}
	for _, k := range slices.Sorted(mapKeys(defects)) {
		fmt.Fprintf(&b, "- %s: %s\n", k, defects[k])
	}

	// What the sweep leaves out, and what TensorFlow has that tfscan lacks.
	var notSwept []string
	for _, op := range kernels.RegisteredOps() {
		if _, never := tfgolden.NoGolden()[op]; !swept[op] && !never {
			notSwept = append(notSwept, op)
		}
	}
	if len(notSwept) == 0 {
		fmt.Fprintf(&b, "\nEvery one of the %d kernels tfscan registers has goldens (`go test ./kernels` fails on one that has "+
			"none), apart from those below.\n", len(kernels.RegisteredOps()))
	} else {
		fmt.Fprintf(&b, "\nRegistered kernels the sweep does not cover (%d of %d): %s.\n",
			len(notSwept), len(kernels.RegisteredOps()), strings.Join(notSwept, ", "))
	}
	b.WriteString("\nRegistered kernels no golden can hold (`internal/tfgolden/nogolden.go`):\n\n")
	noGolden := tfgolden.NoGolden()
	for _, op := range slices.Sorted(mapKeys(noGolden)) {
		fmt.Fprintf(&b, "- %s: %s.\n", op, noGolden[op])
	}
	if cpu, err := coverage.BuiltinPack("cpu"); err == nil {
		have := map[string]bool{}
		for _, k := range cpu.OwnKernels() {
			op := k.GetOp()
			if kernels.Find(op) == nil && !executor.IsIntrinsic(op) {
				have[op] = true
			}
		}
		lacks := slices.Sorted(mapKeys(have))
		fmt.Fprintf(&b, "\nOps TensorFlow %s registers CPU kernels for that tfscan's executor cannot run (%d; from coverage/packs/cpu.json):\n%s.\n",
			tfenv.Version, len(lacks), strings.Join(lacks, ", "))
	}
	return b.String()
}
