package conformance

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tfscan/tfscan/internal/tfenv"
	"github.com/tfscan/tfscan/kernels/npz"
)

func init() { owners["rewrite"] = true }

// rewriteCase is one `tfscan rewrite` whose output TensorFlow runs: a zoo
// model in one format (zoo) or a model of the repository (path), for one
// target with the flags that make the rewrite change it.
type rewriteCase struct {
	zoo, format string
	path        string
	target      string
	flags       []string
	// diffs are the comparisons where TensorFlow's runs of the original and
	// the rewrite differ, keyed by diffKey, as bounds; every other
	// comparison is bit-identical.
	diffs map[string]rewriteDiff
}

// rewriteDiff is a known difference between TensorFlow's runs of a model and
// its rewrite: at most ULP apart between finite values, NaN where the other
// has a number only when NaN is set, for the reason Why.
type rewriteDiff struct {
	ULP int64
	NaN bool
	Why string
}

// diffKey names one comparison: "seeded|edge, FETCH, oneDNN on|off".
func diffKey(r rewriteRun) string {
	onednn := "off"
	if r.OneDNN {
		onednn = "on"
	}
	return r.Inputs + ", " + r.Fetch + ", oneDNN " + onednn
}

func (c rewriteCase) name() string {
	n := c.path
	if c.zoo != "" {
		n = c.zoo + "/" + c.format
	}
	return n + " → " + strings.Join(append([]string{c.target}, c.flags...), " ")
}

// Why TensorFlow's own runs of a model and its exact rewrite differ: its
// oneDNN kernels (TF_ENABLE_ONEDNN_OPTS=1, the wheel's default) compute a
// fused node otherwise than the same ops unfused, and Grappler's remapper
// fuses the two graphs into different kernels. With oneDNN off (TensorFlow's
// Eigen kernels) every one of these is bit-identical, and so are the fetches
// of every node.
const (
	remapBN = "Grappler's remapper and oneDNN fuse the original's Conv2D+FusedBatchNormV3+Relu6 and the rewrite's " +
		"Conv2D+FusedBatchNormV3+Relu, Minimum into different kernels (with the remapper off, and node by node, bit-identical)"
	onednnNaN = "oneDNN's _FusedConv2D (and fused depthwise) clips NaN to 0 in its fused Relu6 (a clip post-op), where " +
		"TensorFlow's Relu and Minimum, as its Eigen fused kernel, keep NaN: the rewrite follows the reference kernels"
	onednnBias = "oneDNN's fused convolution rounds otherwise than its Conv2D and BiasAdd unfused (node by node " +
		"bit-identical; 1 ULP at the outputs on the edge inputs)"
)

// rewriteCases are the zoo models (and models of the repository) that
// rewrite changes, with the targets that change them: every rule that
// applies to the zoo (decompose-relu6, unfuse-conv2d with and without its
// chained Relu6, unfuse-depthwise, unpin, fold-constants) in every format
// TensorFlow loads.
var rewriteCases = []rewriteCase{
	{zoo: "mobilenetv2_a035_32", format: "saved_model", target: "musa"},
	{zoo: "mobilenetv2_a035_32", format: "frozen", target: "musa", diffs: map[string]rewriteDiff{
		"seeded, outputs, oneDNN on": {ULP: 4, Why: remapBN},
		"edge, outputs, oneDNN on":   {ULP: 4, Why: remapBN},
	}},
	{zoo: "mobilenetv2_a035_32", format: "tfjs", target: "musa", diffs: map[string]rewriteDiff{
		"edge, outputs, remapper off, oneDNN on": {ULP: 2, Why: onednnBias},
	}},
	{zoo: "mobilenetv2_a035_32", format: "tfjs", target: "ascend", flags: []string{"--clear-devices"}, diffs: map[string]rewriteDiff{
		"edge, outputs, remapper off, oneDNN on": {NaN: true, Why: onednnNaN},
	}},
	{zoo: "cpu_pinned", format: "frozen", target: "directml", flags: []string{"--clear-devices"}},
	{zoo: "tf1_builder", format: "saved_model", target: "musa", flags: []string{"--clear-devices"}},
	{zoo: "random_generator", format: "saved_model", target: "musa"},
	{path: "cmd/tfscan/internal/explain/testdata/fused.pbtxt", format: "graph", target: "musa", diffs: map[string]rewriteDiff{
		"edge, outputs, remapper off, oneDNN on": {NaN: true, Why: onednnNaN},
	}},
}

// rewriteJob is a job of tools/tf/rewrite_check.py.
type rewriteJob struct {
	Name      string            `json:"name"`
	Format    string            `json:"format"`
	Original  string            `json:"original"`
	Rewritten string            `json:"rewritten"`
	Inputs    string            `json:"inputs"`
	Signature string            `json:"signature,omitempty"`
	Feeds     map[string]string `json:"feeds,omitempty"`
	Fetches   map[string]string `json:"fetches,omitempty"`
}

// rewriteRun is one comparison rewrite_check.py made.
type rewriteRun struct {
	Inputs      string  `json:"inputs"`
	Fetch       string  `json:"fetch"`
	Tensors     int     `json:"tensors"`
	Identical   bool    `json:"identical"`
	Differing   int     `json:"differing"`
	MaxULP      int64   `json:"max_ulp"`
	NaNMismatch int     `json:"nan_mismatch"`
	Nonfinite   int     `json:"nonfinite"`
	First       *string `json:"first"`
	OneDNN      bool    `json:"-"`
}

type rewriteRow struct {
	c     rewriteCase
	rules []string
	exact bool
	runs  []rewriteRun
	err   string
}

func TestRewriteInTensorFlow(t *testing.T) {
	zoo := smallZoo(t)
	dir := t.TempDir()
	bin := buildTfscan(t, dir)
	var jobs []rewriteJob
	rows := make([]*rewriteRow, len(rewriteCases))
	for i, c := range rewriteCases {
		row := &rewriteRow{c: c, exact: true}
		rows[i] = row
		job, err := rewriteOne(bin, zoo, filepath.Join(dir, fmt.Sprint(i)), c, row)
		if err != nil {
			t.Errorf("%s: %v", c.name(), err)
			row.err = err.Error()
			continue
		}
		job.Name = fmt.Sprint(i)
		jobs = append(jobs, job)
	}
	// TensorFlow runs every job with oneDNN's rewrites off (as the other
	// conformance tests do) and the GraphDefs again with them on, the
	// wheel's default: TF.js's fused depthwise convolution has a CPU kernel
	// only through oneDNN's layout pass.
	type result struct {
		Name  string       `json:"name"`
		Error *string      `json:"error"`
		Runs  []rewriteRun `json:"runs"`
	}
	var results []result
	for _, onednn := range []bool{false, true} {
		var js []rewriteJob
		for _, j := range jobs {
			if (onednn && j.Format != "saved_model") || (!onednn && j.Format != "tfjs") {
				js = append(js, j)
			}
		}
		jf := filepath.Join(dir, fmt.Sprintf("jobs.%v.json", onednn))
		b, err := json.Marshal(js)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(jf, b, 0o644); err != nil {
			t.Fatal(err)
		}
		rf := filepath.Join(dir, fmt.Sprintf("results.%v.json", onednn))
		cmd := exec.Command(tfenv.Python(t), filepath.Join(tfenv.RepoRoot(), "tools", "tf", "rewrite_check.py"), jf, "-o", rf)
		cmd.Env = append(tfenv.Env(), fmt.Sprintf("TF_ENABLE_ONEDNN_OPTS=%d", map[bool]int{false: 0, true: 1}[onednn]))
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("tools/tf/rewrite_check.py: %v\n%s", err, msg)
		}
		var rs []result
		rb, err := os.ReadFile(rf)
		if err == nil {
			err = json.Unmarshal(rb, &rs)
		}
		if err != nil {
			t.Fatalf("rewrite_check.py's results: %v", err)
		}
		for i := range rs {
			for k := range rs[i].Runs {
				rs[i].Runs[k].OneDNN = onednn
			}
		}
		results = append(results, rs...)
	}
	for _, res := range results {
		var i int
		fmt.Sscan(res.Name, &i)
		row := rows[i]
		c := row.c
		if res.Error != nil {
			t.Errorf("%s: TensorFlow cannot run the rewrite: %s", c.name(), *res.Error)
			row.err = "TensorFlow: " + *res.Error
			continue
		}
		row.runs = append(row.runs, res.Runs...)
		if !row.exact {
			t.Errorf("%s: a tolerance rule applied (%s): state its bound here", c.name(), strings.Join(row.rules, ", "))
		}
		for _, r := range res.Runs {
			first := ""
			if r.First != nil {
				first = *r.First
			}
			k := diffKey(r)
			d, known := c.diffs[k]
			switch {
			case r.Identical && known && !r.OneDNN:
				t.Errorf("%s, %s: bit-identical: drop its known difference", c.name(), k)
			case r.Identical:
				// oneDNN picks its kernels by the CPU's instruction set:
				// a difference under it is a bound, which another CPU may
				// not reach
			case !known:
				t.Errorf("%s, %s: %d of %d tensors differ in TensorFlow from the original's: %s", c.name(), k, r.Differing, r.Tensors, first)
			case r.MaxULP < 0 || r.MaxULP > d.ULP || (r.NaNMismatch > 0 && !d.NaN):
				t.Errorf("%s, %s: beyond its known difference (%d ULP, NaN %v): %s", c.name(), k, d.ULP, d.NaN, first)
			}
		}
	}
	for _, row := range rows {
		for k := range row.c.diffs {
			if row.err == "" && !slices.ContainsFunc(row.runs, func(r rewriteRun) bool { return diffKey(r) == k }) {
				t.Errorf("%s: no comparison %q", row.c.name(), k)
			}
		}
	}
	section("rewrite", rewriteSection(rows))
}

// rewriteOne runs `tfscan rewrite` for c into out and returns the job that
// runs the original and out in TensorFlow.
func rewriteOne(bin, zoo, out string, c rewriteCase, row *rewriteRow) (rewriteJob, error) {
	job := rewriteJob{Format: c.format}
	var src string
	switch {
	case c.zoo != "":
		dir := filepath.Join(zoo, c.zoo)
		var meta zooMeta
		mb, err := os.ReadFile(filepath.Join(dir, "meta.json"))
		if err == nil {
			err = json.Unmarshal(mb, &meta)
		}
		if err != nil {
			return job, err
		}
		file, ok := meta.Formats[c.format]
		if !ok {
			return job, fmt.Errorf("the zoo has no %s: %s", c.format, meta.Missing[c.format])
		}
		src = filepath.Join(dir, file)
		if c.format == "tfjs" {
			src = filepath.Dir(src)
		}
		job.Inputs, job.Signature = filepath.Join(dir, "inputs.npz"), meta.Signature
		job.Feeds, job.Fetches = meta.FrozenInputs, meta.FrozenOutputs
	default:
		src = filepath.Join(tfenv.RepoRoot(), c.path)
		// tfscan run's seeded inputs, keyed by tensor name, and its
		// outputs' names
		outs := out + ".run.npz"
		if msg, err := exec.Command(bin, "run", src, "--outputs", outs).CombinedOutput(); err != nil {
			return job, fmt.Errorf("tfscan run: %v: %s", err, msg)
		}
		job.Inputs = strings.TrimSuffix(outs, ".npz") + ".inputs.npz"
		job.Feeds, job.Fetches = map[string]string{}, map[string]string{}
		for file, m := range map[string]map[string]string{job.Inputs: job.Feeds, outs: job.Fetches} {
			ts, err := npz.Read(file)
			if err != nil {
				return job, err
			}
			for k := range ts {
				m[k] = k
			}
		}
	}
	if ext := filepath.Ext(src); ext == ".pb" || ext == ".pbtxt" {
		out += ext
	}
	args := []string{"rewrite", src, "--target", c.target, "-o", out, "--format", "json"}
	args = append(args, c.flags...)
	if c.format == "saved_model" || c.format == "tfjs" {
		args = append(args, "--inputs", job.Inputs)
	}
	stdout, err := exec.Command(bin, args...).Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		return job, fmt.Errorf("tfscan %s: %v: %s", strings.Join(args, " "), err, msg)
	}
	var rep struct {
		Models []struct {
			Targets []struct {
				Rewrite *struct {
					Rules []struct {
						Rule      string   `json:"rule"`
						Chained   []string `json:"chained"`
						Nodes     int      `json:"nodes"`
						Exactness string   `json:"exactness"`
					} `json:"rules"`
				} `json:"rewrite"`
			} `json:"targets"`
		} `json:"models"`
	}
	if err := json.Unmarshal(stdout, &rep); err != nil {
		return job, fmt.Errorf("tfscan rewrite's report: %v", err)
	}
	if len(rep.Models) != 1 || len(rep.Models[0].Targets) != 1 || rep.Models[0].Targets[0].Rewrite == nil {
		return job, fmt.Errorf("tfscan rewrite's report has no rewrite section")
	}
	for _, r := range rep.Models[0].Targets[0].Rewrite.Rules {
		row.rules = append(row.rules, fmt.Sprintf("%s ×%d", strings.Join(append([]string{r.Rule}, r.Chained...), "+"), r.Nodes))
		row.exact = row.exact && r.Exactness == "exact"
	}
	if len(row.rules) == 0 {
		return job, fmt.Errorf("no rule applied: the case rewrites nothing")
	}
	job.Original, job.Rewritten = src, out
	return job, nil
}

func rewriteSection(rows []*rewriteRow) string {
	var b strings.Builder
	b.WriteString("## Rewrite\n\n")
	b.WriteString("`tfscan rewrite` output loaded and run by TensorFlow itself next to the original (`tools/tf/rewrite_check.py`):\n" +
		"every zoo model that a rule changes for some target, in each format TensorFlow loads (a SavedModel through\n" +
		"`tf.saved_model.load` and its signature; a frozen GraphDef, and a TF.js graph model rebuilt as one with its\n" +
		"weights, in a `tf.compat.v1.Session`), on the zoo's inputs (\"seeded\") and on the same inputs with NaN, ±Inf,\n" +
		"−0.0, the largest finite and the smallest subnormal written over every third float (\"edge\"). A GraphDef runs\n" +
		"three ways: its outputs as deployed (Grappler's fusions included), its outputs with the remapper off, and\n" +
		"every node both graphs have by name (a rewrite keeps the replaced node's name on its last node), so a\n" +
		"difference shows where it starts; each with oneDNN's rewrites off (`TF_ENABLE_ONEDNN_OPTS=0`, as the other\n" +
		"sections) and on (the wheel's default, and the only way TensorFlow's CPU runs TF.js's fused depthwise\n" +
		"convolution); a SavedModel with them off. Every applied rule is exact, so every comparison is bit-identical\n" +
		"(any NaN equal to any NaN) but for the known differences listed below the table. Non-finite: NaN and infinite values in\n" +
		"the original's compared tensors on the edge inputs, so the edge values are seen to reach them.\n\n")
	b.WriteString("| model → target | rules applied | seeded | edge | non-finite (edge) |\n|---|---|---|---|---:|\n")
	var tols []string
	for _, r := range rows {
		seeded, edge := "", ""
		nonfinite, onednnEdge := 0, false
		if r.err != "" {
			seeded = "error: " + r.err
		}
		for _, run := range r.runs {
			how := run.Fetch + ", oneDNN off"
			if run.OneDNN {
				how = run.Fetch + ", oneDNN on"
			}
			s := fmt.Sprintf("%s: %d bit-identical", how, run.Tensors)
			if !run.Identical {
				s = fmt.Sprintf("%s: %d of %d differ (≤ %d ULP", how, run.Differing, run.Tensors, run.MaxULP)
				if run.NaNMismatch > 0 {
					s += fmt.Sprintf(", %d NaN against a number", run.NaNMismatch)
				}
				s += ")"
			}
			if run.OneDNN {
				// oneDNN's kernels follow this machine's instruction set
				s = measured(s)
			}
			if run.Inputs == "edge" {
				edge = join(edge, s)
				nonfinite += run.Nonfinite
				onednnEdge = onednnEdge || run.OneDNN
			} else {
				seeded = join(seeded, s)
			}
		}
		nf := ""
		if edge != "" {
			nf = fmt.Sprint(nonfinite)
			if onednnEdge {
				nf = measured(nf)
			}
		} else if r.err == "" {
			edge = "no float input"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", strings.ReplaceAll(r.c.name(), "|", "\\|"), strings.Join(r.rules, ", "),
			seeded, edge, nf)
		for _, k := range slices.Sorted(mapKeys(r.c.diffs)) {
			d := r.c.diffs[k]
			bound := fmt.Sprintf("≤ %d ULP", d.ULP)
			if d.NaN {
				bound = "NaN against a number"
			}
			tols = append(tols, fmt.Sprintf("- %s, %s: %s. %s", r.c.name(), k, bound, d.Why))
		}
	}
	if len(tols) > 0 {
		b.WriteString("\nKnown differences, all under oneDNN (the test fails when one grows or a new one appears; oneDNN picks its " +
			"kernels by the CPU's instruction set, so another CPU may not reach a bound):\n\n" + strings.Join(tols, "\n") + "\n")
	}
	return b.String()
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
