package conformance

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/tfscan/tfscan/internal/testutil"
	"github.com/tfscan/tfscan/internal/tfenv"
)

func init() { owners["placement"] = true }

// placementModels are the corpus models both sides place: every readable
// model of the corpus, TF.js graph models through the GraphDef their
// model.json holds (tfplace's read_tfjs); the two bad inputs are refused
// by both on reading. gd_keras_imagenet_train, the largest, is added by
// placementModelsIn on two packs.
var placementModels = []string{
	"tf/gd_if_op", "tf/gd_lstm_layer_inference", "tf/mg_text_in_dot_pb", "tf/sm_half_plus_two_v1",
	"tf/sm_simple_while_loop", "tf/sm_static_hashtable", "tf/sm_x_plus_y_debuginfo",
	"tfjs/centernet", "tfjs/emotion", "tfjs/meet", "tfjs/mobilefacenet",
}

// placementModel is one model both sides place: its name in the report and
// its path; softOnly models are placed with soft placement on only (the
// zoo's and the TF.js models, to keep the run's time: soft placement off
// changes a placement only where a node requests a device, and these
// models request none but cpu_pinned's /CPU:0, which every pack's CPU
// satisfies).
type placementModel struct {
	name, path string
	softOnly   bool
	// packs, when set, are the only packs the model runs on.
	packs []string
}

// forPack are the models of ms that run on pack p.
func forPack(ms []placementModel, p placementPack) []placementModel {
	var out []placementModel
	for _, m := range ms {
		if m.packs == nil || slices.Contains(m.packs, p.name) {
			out = append(out, m)
		}
	}
	return out
}

// placementModelsIn are the corpus models above and every SavedModel of the
// small zoo (tools/tfmodels), named zoo/NAME.
func placementModelsIn(corpus, zoo string) ([]placementModel, error) {
	var out []placementModel
	for _, m := range placementModels {
		out = append(out, placementModel{name: strings.TrimPrefix(m, "tf/"), path: filepath.Join(corpus, m)})
		if strings.HasPrefix(m, "tfjs/") {
			out[len(out)-1].path = filepath.Join(corpus, m, "model.json")
			out[len(out)-1].softOnly = true
		}
	}
	// The largest corpus model (2,853 nodes in TensorFlow's step), soft
	// placement on only, on the full vendor pack and the sparse one, whose
	// fallbacks cut the most edges.
	out = append(out, placementModel{name: "gd_keras_imagenet_train", path: filepath.Join(corpus, "tf/gd_keras_imagenet_train"),
		softOnly: true, packs: []string{"musa", sparsePackName}})
	ents, err := os.ReadDir(zoo)
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		sm := filepath.Join(zoo, e.Name(), "saved_model")
		if st, err := os.Stat(sm); err == nil && st.IsDir() {
			out = append(out, placementModel{name: "zoo/" + e.Name(), path: sm, softOnly: true})
		}
	}
	return out, nil
}

// placementPack is one device both sides are asked about: tfplace's --pack
// (the fake device) and tfscan's target (built in, or --registry FILE).
type placementPack struct {
	name     string // in the report
	plugin   string // tfplace --batch PACK
	target   string // tfscan --target
	registry string // tfscan --registry, "" for a built-in target
}

// knownPlacementDiffs are the differences the conformance run finds, each
// with the test that recognises it: what TensorFlow does that tfscan
// deliberately does not simulate, what the fake device cannot be, and what
// is open. The placement section of docs/conformance.md lists them with
// the runs each explains. A difference no entry recognises fails the test.
var knownPlacementDiffs = []knownDiff{
	{name: "cuda-note", kind: "build",
		why:     "tfscan's refusal of a node pinned to a GPU ends with \"The requested device appears to be a GPU, but CUDA is not enabled.\", as a TensorFlow built without CUDA (a vendor's build) says it; the pinned wheel is built with CUDA and leaves the sentence out",
		refusal: func(tf, scan string) bool { return strings.TrimSuffix(scan, cudaNote) == tf && scan != tf }},
	{name: "gpu-named-device", kind: "fake device",
		why: "directml's device type is GPU, which the wheel's own CUDA kernels are registered for, so its fake device is TFSCAN_GPU: a node pinned to /device:GPU:* finds DirectML's GPU in tfscan and no GPU in TensorFlow",
		refusal: func(tf, scan string) bool {
			return scan == "" && strings.Contains(tf, "was explicitly assigned to /device:GPU:")
		}},
	{name: "unrun-function", kind: "scope",
		why:          "tfscan also places the library functions a TF2 loader calls on their own (a Keras layer's call and loss functions), with each resource argument where tf.saved_model.load creates its resource (docs/placement.md#resource-arguments), and reports what would refuse there; the session tfplace runs never instantiates them, so TensorFlow neither confirms nor refutes the refusal: the nodes it placed are compared",
		unrunRefusal: true},
	{name: "client-partition", kind: "accounting",
		why: "TensorFlow's DirectSession feeds and fetches through _Arg and _Retval nodes on the client's CPU, a partition of its own when no step node is on CPU; tfscan counts those as io transfers, not as a partition",
		partitions: func(tf, _ int, pl *scanPlacement) bool {
			return tf == pl.Partitions+1 && pl.IOTransfers > 0 && pl.DeviceNodes["CPU:0"] == 0
		}},
	{name: "other-signatures", kind: "scope",
		why: "tfscan's partition count covers the nodes every signature's step runs (sm_half_plus_two_v1's classify and regress signatures use the target); TensorFlow's step runs the serving signature alone: over that step, tfscan's placement gives TensorFlow's count",
		partitions: func(tf, step int, pl *scanPlacement) bool {
			return tf == step && pl.Partitions > step
		}},
}

const cudaNote = " The requested device appears to be a GPU, but CUDA is not enabled."

type knownDiff struct {
	name, kind, why string
	refusal         func(tf, scan string) bool
	partitions      func(tf, step int, pl *scanPlacement) bool // step: tfscan's over TensorFlow's step
	node            func(path, tf, scan string) bool
	cut             func(tf, scan []string) bool
	// unrunRefusal: tfscan refuses a node TensorFlow's step never placed.
	unrunRefusal bool
	seen         int
}

// explained is the first known difference that recognises a disagreement.
func explained(match func(k *knownDiff) bool) *knownDiff {
	for i := range knownPlacementDiffs {
		if match(&knownPlacementDiffs[i]) {
			knownPlacementDiffs[i].seen++
			return &knownPlacementDiffs[i]
		}
	}
	return nil
}

const sparsePackName = "sparse (float16 math only)"

// sparseKernels is the deliberately sparse pack: float16-only math, no
// resource or variable kernels, as text KernelList of device type SPARSE.
func sparseKernels() string {
	var b strings.Builder
	for _, op := range []string{"Add", "AddV2", "Sub", "Mul", "RealDiv", "MatMul", "BiasAdd", "Relu", "Sigmoid", "Tanh", "Conv2D", "Softmax", "Maximum", "Minimum"} {
		fmt.Fprintf(&b, "kernel {\n  op: %q\n  device_type: \"SPARSE\"\n  constraint {\n    name: \"T\"\n    allowed_values {\n      list {\n        type: DT_HALF\n      }\n    }\n  }\n}\n", op)
	}
	return b.String()
}

type tfPlacement struct {
	TFVersion  string            `json:"tf_version"`
	DeviceType string            `json:"device_type"`
	Nodes      map[string]string `json:"nodes"`
	LogNames   map[string]string `json:"log_names"`
	Unmapped   map[string]string `json:"unmapped"`
	Partitions *int              `json:"partitions"`
	CutEdges   []string          `json:"cut_edges"`
	Step       *tfStep           `json:"step"`
	RunError   *string           `json:"run_error"`
	Error      *string           `json:"error"`
}

type scanReport struct {
	Models []struct {
		Path    string `json:"path"`
		Targets []struct {
			Placement *scanPlacement `json:"placement"`
			Nodes     []scanNode     `json:"nodes"`
		} `json:"targets"`
	} `json:"models"`
}

type scanPlacement struct {
	Partitions  int            `json:"partitions"`
	Transfers   int            `json:"transfers"`
	IOTransfers int            `json:"io_transfers"`
	DeviceNodes map[string]int `json:"device_nodes"`
	Error       string         `json:"error"`
	Warnings    []string       `json:"warnings"`
	Comparison  *struct {
		Matched int `json:"matched"`
		Agreed  int `json:"agreed"`
		Nodes   []struct {
			Name  string `json:"name"`
			Agree bool   `json:"agree"`
		} `json:"nodes"`
	} `json:"comparison"`
}

type scanNode struct {
	Path   string `json:"path"`
	Device string `json:"device"`
}

// placementRow is one model on one pack with one option set.
type placementRow struct {
	pack, model, mode     string
	compared, agreed      int
	notCompared           int  // TF's logged nodes that are not model nodes (unmapped)
	stepFailed            bool // TF's step failed after placement: how far it got is a race
	scanOnly              int  // tfscan's nodes TF did not log (function bodies placed at run time)
	tfErr, scanErr        string
	tfParts, scanParts    string
	tfCut, scanTransfers  string
	scanCut               string // cut edges derived from tfscan's placement
	cutCompared           bool   // TensorFlow's cut known and compared
	logMatched, logAgreed int    // --compare-log over the compared nodes
	logAll, logAllAgreed  int    // --compare-log over every name it matched
	known                 []string
	disagree              []string
}

func TestPlacementAgreesWithTensorFlow(t *testing.T) {
	py, corpus := needFakeDevice(t)
	models, err := placementModelsIn(corpus, smallZoo(t))
	if err != nil {
		t.Fatal(err)
	}
	root := tfenv.RepoRoot()
	// TFSCAN_PLACEMENT_DIR keeps TensorFlow's answers between runs of the
	// test while tfscan changes (a developer's loop): a pack whose files
	// are there is not asked again.
	dir := os.Getenv("TFSCAN_PLACEMENT_DIR")
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	tfscan := buildTfscan(t, dir)
	sysconfig := runPy(t, py, "-c", "import tensorflow as tf; print(tf.sysconfig.get_include(), tf.sysconfig.get_lib())")
	env := append(tfenv.Env(), "TFSCAN="+tfscan, "TFSCAN_PYTHON="+py, "TFSCAN_TF_SYSCONFIG="+strings.TrimSpace(lastLine(sysconfig)),
		"TFSCAN_FAKEDEVICE_DIR="+filepath.Join(dir, "plugins"))

	// The packs that need files: ascend's kernel list as a plain dump, the
	// sparse pack, and a dump of TensorFlow itself with the musa device
	// loaded (its own CPU and DEFAULT kernels: the dump-style pack).
	ascend := filepath.Join(dir, "ascend.pbtxt")
	out, err := exec.Command(tfscan, "registry", "show", "ascend", "--format", "kernellist").Output()
	if err != nil {
		t.Fatalf("registry show ascend: %v", err)
	}
	must(t, os.WriteFile(ascend, out, 0o644))
	sparse := filepath.Join(dir, "sparse.pbtxt")
	must(t, os.WriteFile(sparse, []byte(sparseKernels()), 0o644))
	plugins := filepath.Join(dir, "plugins")
	musaSO := filepath.Join(plugins, "musa.so")
	dump := filepath.Join(dir, "dump.pbtxt")
	if _, err := os.Stat(dump); err != nil {
		runEnv(t, env, filepath.Join(root, "tools", "fakedevice", "build.sh"), "musa", plugins)
		runEnv(t, env, py, filepath.Join(root, "tools", "dump_registry.py"), "--load", musaSO, "-o", dump)
	}
	// The dump as a pack, read once per scan far faster than the dump.
	dumpPack := filepath.Join(dir, "dump.json")
	runEnv(t, env, tfscan, "registry", "import", dump, "--name", "dump", "--vendor", "TensorFlow", "--device-type", "TFSCAN_MUSA", "-o", dumpPack)

	packs := []placementPack{
		{name: "musa", plugin: "musa", target: "musa"},
		{name: "intel-xpu", plugin: "intel-xpu", target: "intel-xpu"},
		{name: "directml", plugin: "directml", target: "directml"},
		{name: "ascend kernel list", plugin: ascend, target: "NPU", registry: ascend},
		{name: sparsePackName, plugin: sparse, target: "SPARSE", registry: sparse},
		{name: "dump (TensorFlow's CPU + musa)", plugin: musaSO, target: "dump", registry: dumpPack},
	}
	modes := []string{"soft", "hard"}

	// TensorFlow's side: one process per pack, two at a time.
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	errs := make([]error, len(packs))
	for i, p := range packs {
		wg.Add(1)
		go func(i int, p placementPack) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			var jobs []map[string]any
			for _, m := range forPack(models, p) {
				for _, mode := range modesOf(m, modes) {
					jobs = append(jobs, map[string]any{"model": m.path, "no_soft_placement": mode == "hard",
						"output": filepath.Join(dir, fmt.Sprintf("tf.%d.%s.%s.json", i, slug(m.name), mode))})
				}
			}
			jf := filepath.Join(dir, fmt.Sprintf("jobs.%d.json", i))
			if _, err := os.Stat(jf + ".done"); err == nil {
				return
			}
			data, _ := json.Marshal(jobs)
			if err := os.WriteFile(jf, data, 0o644); err != nil {
				errs[i] = err
				return
			}
			// A step whose fake outputs fail a real kernel's check aborts
			// the process: the batch runs again from the job after it,
			// which it reads from the log that job left.
			for try := 0; ; try++ {
				cmd := exec.Command(py, filepath.Join(root, "tools", "tf", "tfplace.py"), "--batch", p.plugin, jf)
				cmd.Env = env
				out, err := cmd.CombinedOutput()
				if err == nil {
					break
				}
				if try == 3 {
					errs[i] = fmt.Errorf("tfplace --batch %s: %v\n%s", p.plugin, err, tail(string(out)))
					return
				}
			}
			errs[i] = os.WriteFile(jf+".done", nil, 0o644)
		}(i, p)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}

	// tfscan on TensorFlow's own logs (--compare-log), two at a time.
	logScans := map[string][]byte{}
	var logMu sync.Mutex
	var logErr error
	for i, p := range packs {
		for _, m := range forPack(models, p) {
			for _, mode := range modesOf(m, modes) {
				base := filepath.Join(dir, fmt.Sprintf("tf.%d.%s.%s.json", i, slug(m.name), mode))
				if st, err := os.Stat(base + ".log"); err != nil || st.Size() == 0 {
					continue // refused before placing: no log to compare
				}
				args := []string{"scan", m.path, "--target", p.target, "--from", "none", "--nodes", "all", "--format", "json", "--compare-log", base + ".log"}
				if p.registry != "" {
					args = append(args, "--registry", p.registry)
				}
				if mode == "hard" {
					args = append(args, "--no-soft-placement")
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					sem <- struct{}{}
					defer func() { <-sem }()
					out, err := exec.Command(tfscan, args...).Output()
					if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
						err = nil // a refusal: the report is still written
					}
					logMu.Lock()
					defer logMu.Unlock()
					if err != nil && logErr == nil {
						logErr = fmt.Errorf("tfscan %v: %v\n%s", args, err, errOut(err))
					}
					logScans[base] = out
				}()
			}
		}
	}
	wg.Wait()
	if logErr != nil {
		t.Fatal(logErr)
	}

	var rows []placementRow
	for i, p := range packs {
		for _, mode := range modes {
			var ms []placementModel
			for _, m := range forPack(models, p) {
				if slices.Contains(modesOf(m, modes), mode) {
					ms = append(ms, m)
				}
			}
			args := []string{"scan"}
			for _, m := range ms {
				args = append(args, m.path)
			}
			args = append(args, "--target", p.target, "--from", "none", "--nodes", "all", "--format", "json")
			if p.registry != "" {
				args = append(args, "--registry", p.registry)
			}
			if mode == "hard" {
				args = append(args, "--no-soft-placement")
			}
			var rep scanReport
			scanJSON(t, tfscan, args, &rep)
			if len(rep.Models) != len(ms) {
				t.Fatalf("%s: tfscan scanned %d models, want %d", p.name, len(rep.Models), len(ms))
			}
			for _, m := range ms {
				row := compareModel(t, logScans, dir, i, p, m.name, mode, findModel(t, &rep, m.path))
				rows = append(rows, row)
			}
		}
	}
	for _, r := range rows {
		for _, d := range r.disagree {
			t.Errorf("%s on %s (%s placement): %s", r.model, r.pack, r.mode, d)
		}
	}
	section("placement", placementSection(rows))
}

// modesOf are the placement settings model m is run with.
func modesOf(m placementModel, modes []string) []string {
	if m.softOnly {
		return []string{"soft"}
	}
	return modes
}

// needFakeDevice returns the pinned TensorFlow's python and the corpus, and
// checks that gcc is there to build the fake device: without any of them the
// test is skipped on a developer machine and fails under CI=true.
func needFakeDevice(t *testing.T) (py, corpus string) {
	t.Helper()
	py, corpus = tfenv.Python(t), testutil.Corpus(t)
	if _, err := exec.LookPath("gcc"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the fake device needs gcc: %v", err)
		}
		t.Skip("the fake device needs gcc")
	}
	return py, corpus
}

// buildTfscan builds tfscan into dir (CGO off, as the Makefile builds it).
func buildTfscan(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "tfscan")
	build := exec.Command("go", "build", "-o", bin, "./cmd/tfscan")
	build.Dir, build.Env = tfenv.RepoRoot(), append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// compareModel compares one model's placement by TensorFlow (the tfplace
// file) and by tfscan (its scan report) node by node, and checks that
// --compare-log on TensorFlow's own log gives the same figure.
func compareModel(t *testing.T, logScans map[string][]byte, dir string, i int, p placementPack, model, mode string, m scanModel) placementRow {
	t.Helper()
	base := filepath.Join(dir, fmt.Sprintf("tf.%d.%s.%s.json", i, slug(model), mode))
	row := placementRow{pack: p.name, model: model, mode: mode,
		tfParts: "–", scanParts: "–", tfCut: "–", scanTransfers: "–", scanCut: "–"}
	var ex struct {
		Exit    int     `json:"exit"`
		Message *string `json:"message"`
	}
	readJSON(t, base+".exit", &ex)
	if ex.Exit != 0 && ex.Exit != 1 {
		row.disagree = append(row.disagree, fmt.Sprintf("tfplace exit %d: %v", ex.Exit, deref(ex.Message)))
		return row
	}
	var tf tfPlacement
	readJSON(t, base, &tf)
	pl := m.placement
	if pl == nil {
		row.disagree = append(row.disagree, "tfscan reports no placement")
		return row
	}
	row.tfErr, row.scanErr = deref(tf.Error), pl.Error
	if tf.Error != nil || pl.Error != "" {
		want, got := normalizeRefusal(deref(tf.Error)), normalizeRefusal(pl.Error)
		switch {
		case want == got:
		case tf.Error != nil && pl.Error == "" && failsAtRunTime(want, pl.Warnings):
			row.scanErr = "will fail at run time"
		case tf.Error == nil && !tfPlaced(&tf, refusedNode(got)):
			k := explained(func(k *knownDiff) bool { return k.unrunRefusal })
			row.known = append(row.known, k.name)
			row.scanErr = "outside TF's step"
		default:
			if k := explained(func(k *knownDiff) bool { return k.refusal != nil && k.refusal(want, got) }); k != nil {
				row.known = append(row.known, k.name)
				break
			}
			switch {
			case tf.Error == nil:
				row.disagree = append(row.disagree, "tfscan predicts a refusal TensorFlow does not make: "+got)
			case pl.Error == "":
				row.disagree = append(row.disagree, "TensorFlow refuses and tfscan does not: "+want)
			default:
				row.disagree = append(row.disagree, fmt.Sprintf("both refuse, in other words:\n  TensorFlow: %s\n  tfscan:     %s", want, got))
			}
		}
		if row.scanErr != "outside TF's step" {
			return row
		}
	}
	scanDev := map[string]string{}
	for _, n := range m.nodes {
		scanDev[n.Path] = deviceType(n.Device)
	}
	paths := make([]string, 0, len(tf.Nodes))
	for p := range tf.Nodes {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	agrees := map[string]bool{}
	for _, path := range paths {
		d, ok := scanDev[path]
		if !ok {
			row.disagree = append(row.disagree, fmt.Sprintf("TensorFlow places %s (%s), which tfscan does not list", path, tf.Nodes[path]))
			continue
		}
		row.compared++
		want := deviceType(tf.Nodes[path])
		agrees[path] = d == want
		if d == want {
			row.agreed++
		} else if k := explained(func(k *knownDiff) bool { return k.node != nil && k.node(path, want, d) }); k != nil {
			row.known = append(row.known, k.name)
		} else {
			row.disagree = append(row.disagree, fmt.Sprintf("%s: TensorFlow %s, tfscan %s", path, want, d))
		}
	}
	row.notCompared = len(tf.Unmapped)
	row.stepFailed = tf.RunError != nil
	row.scanOnly = len(scanDev) - row.compared
	row.scanParts, row.scanTransfers = fmt.Sprint(pl.Partitions), fmt.Sprint(pl.Transfers)
	compareCut(&row, &tf, pl, scanDev)

	// The same comparison from TensorFlow's own log through --compare-log:
	// over the nodes compared here it must agree node for node; the names it
	// matches beyond them (body nodes logged without their caller, a name
	// only one node of the model bears) are counted apart.
	var rep scanReport
	if err := json.Unmarshal(logScans[base], &rep); err != nil || len(rep.Models) != 1 || len(rep.Models[0].Targets) != 1 {
		t.Fatalf("--compare-log %s: no report (%v)", base+".log", err)
	}
	c := rep.Models[0].Targets[0].Placement.Comparison
	if c == nil {
		row.disagree = append(row.disagree, "--compare-log compared nothing")
		return row
	}
	row.logAll, row.logAllAgreed = c.Matched, c.Agreed
	for _, n := range c.Nodes {
		path, ok := tf.LogNames[n.Name]
		if !ok {
			continue
		}
		row.logMatched++
		if n.Agree {
			row.logAgreed++
		}
		if agree, ok := agrees[path]; ok && agree != n.Agree {
			row.disagree = append(row.disagree, fmt.Sprintf("--compare-log says %s agrees=%v, the JSON comparison %v", n.Name, n.Agree, agree))
		}
	}
	if row.logMatched != row.compared || row.logAgreed != row.agreed {
		row.disagree = append(row.disagree, fmt.Sprintf("--compare-log agrees on %d of the %d compared nodes it matched, the JSON comparison on %d of %d",
			row.logAgreed, row.logMatched, row.agreed, row.compared))
	}
	return row
}

// compareCut compares partitions and cut edges where TensorFlow's are
// known: from its partition graphs when its step finished, else derived
// from its placement (deriveCut, marked "*") when every node of the step
// was placed. The derivation is held to the partition graphs wherever both
// exist. tfscan's cut edges are derived from its placement the same way.
func compareCut(row *placementRow, tf *tfPlacement, pl *scanPlacement, scanDev map[string]string) {
	if tf.Step == nil {
		return
	}
	tfDev := func(n string) (string, bool) {
		d, ok := tf.Nodes[n]
		return deviceType(d), ok
	}
	var ref stepCut
	derived, ok := deriveCut(tf.Step, tfDev)
	switch {
	case tf.Partitions != nil:
		ref = realCut(tf)
		if ok {
			if d := diffCut(ref.cut, derived.cut); d != "" || derived.partitions != ref.partitions {
				row.disagree = append(row.disagree, fmt.Sprintf("the cut derived from TensorFlow's placement (%d partitions) is not its partition graphs' (%d): %s",
					derived.partitions, ref.partitions, d))
			}
		}
		row.tfParts, row.tfCut = fmt.Sprint(ref.partitions), fmt.Sprint(len(ref.cut))
	case ok:
		ref = derived
		row.tfParts, row.tfCut = fmt.Sprint(ref.partitions)+"*", fmt.Sprint(len(ref.cut))+"*"
	default:
		return
	}
	row.cutCompared = true
	sc, ok := deriveCut(tf.Step, func(n string) (string, bool) {
		d, ok := scanDev[n]
		return d, ok
	})
	if !ok {
		row.scanCut = "–"
		row.disagree = append(row.disagree, "tfscan does not place every node of TensorFlow's step")
		return
	}
	if ref.partitions != pl.Partitions || ref.partitions != sc.partitions {
		if k := explained(func(k *knownDiff) bool {
			return k.partitions != nil && k.partitions(ref.partitions, sc.partitions, pl)
		}); k != nil {
			row.known = append(row.known, k.name)
		} else {
			row.disagree = append(row.disagree, fmt.Sprintf("partitions: TensorFlow %d, tfscan %d (%d over TensorFlow's step)", ref.partitions, pl.Partitions, sc.partitions))
		}
	}
	row.scanCut = fmt.Sprint(len(sc.cut))
	if d := diffCut(ref.cut, sc.cut); d != "" {
		if k := explained(func(k *knownDiff) bool { return k.cut != nil && k.cut(ref.cut, sc.cut) }); k != nil {
			row.known = append(row.known, k.name)
		} else {
			row.disagree = append(row.disagree, "cut edges: "+d)
		}
	}
}

// refusedNode is the node a refusal names ("Cannot assign a device for
// operation NAME: ..."), "" when it names none.
func refusedNode(msg string) string {
	const p = "Cannot assign a device for operation "
	if !strings.HasPrefix(msg, p) {
		return ""
	}
	name, _, _ := strings.Cut(msg[len(p):], ": ")
	return name
}

// tfPlaced reports whether TensorFlow's step placed a node of that name.
func tfPlaced(tf *tfPlacement, name string) bool {
	if name == "" {
		return true
	}
	_, a := tf.Nodes[name]
	_, b := tf.LogNames[name]
	_, c := tf.Unmapped[name]
	return a || b || c
}

// failsAtRunTime reports whether TensorFlow's refusal is one tfscan
// predicts as a failure at run time: a kernel missing inside a functional
// op's body, which soft placement does not reach.
func failsAtRunTime(tf string, warnings []string) bool {
	first, _, _ := strings.Cut(tf, "\n")
	first = strings.TrimSpace(first)
	for _, w := range warnings {
		if strings.Contains(w, "will fail at run time") && strings.Contains(normalizeRefusal(w), first) {
			return true
		}
	}
	return false
}

// normalizeRefusal is TensorFlow's refusal as tfscan words it: from the
// placer's sentence on, without the session's "[[node]]" trailer, and the
// fake device type under its pack's name.
func normalizeRefusal(msg string) string {
	for _, start := range []string{"Cannot assign a device for operation", "Could not satisfy", "No OpKernel was registered", "No registered '", "Cannot colocate nodes"} {
		if i := strings.Index(msg, start); i >= 0 {
			msg = msg[i:]
			break
		}
	}
	if i := strings.Index(msg, "\n\t [["); i >= 0 {
		msg = msg[:i]
	}
	msg = strings.ReplaceAll(msg, "TFSCAN_", "")
	return strings.TrimSpace(msg)
}

// deviceType is "CPU" of "CPU:0" and "MUSA" of "TFSCAN_MUSA:0".
func deviceType(d string) string {
	d = strings.TrimPrefix(d, "TFSCAN_")
	if i := strings.IndexByte(d, ':'); i >= 0 {
		d = d[:i]
	}
	return d
}

type scanModel struct {
	path      string
	placement *scanPlacement
	nodes     []scanNode
}

func findModel(t *testing.T, rep *scanReport, path string) scanModel {
	t.Helper()
	for _, m := range rep.Models {
		if m.Path == path || strings.HasPrefix(m.Path, path+string(filepath.Separator)) {
			if len(m.Targets) != 1 {
				t.Fatalf("%s: %d targets", path, len(m.Targets))
			}
			return scanModel{path: m.Path, placement: m.Targets[0].Placement, nodes: m.Targets[0].Nodes}
		}
	}
	t.Fatalf("tfscan's report has no model %s", path)
	return scanModel{}
}

func placementSection(rows []placementRow) string {
	var b strings.Builder
	b.WriteString("## Placement\n\n")
	b.WriteString("`conformance/placement_test.go` places models with TensorFlow's own placer on a fake PluggableDevice\n" +
		"(`tools/fakedevice`: exactly the pack's kernels) through `tools/tf/tfplace.py`, and with tfscan (`scan --nodes all`),\n" +
		"soft placement on and off, and compares per node the device type, refusals (both refuse, in the same words),\n" +
		"partitions and cut edges. *compared* are the nodes TensorFlow's `log_device_placement` names that are nodes of the\n" +
		"model; *TF only* are names TensorFlow logs that are not (the nodes inlining adds, and function bodies instantiated\n" +
		"at run time, logged without their caller), not compared, and where TensorFlow's step fails after placement, as many\n" +
		"as its threads logged before the first error stopped it; *tfscan only* are nodes TensorFlow did not place in that\n" +
		"step (bodies it runs later or never). *log* is `tfscan scan --compare-log` on TensorFlow's own log over the\n" +
		"compared nodes, then over every name it matched. *partitions* and *cut edges* are the session step's, as\n" +
		"graph_partition.cc cuts it (a cut edge is a tensor or control edge sent from one device to another, fed tensors\n" +
		"from the client's CPU, fetched ones to it): TensorFlow's from its partition graphs when its step finished, else\n" +
		"(`*`) derived from its placement and the pruned step, a derivation the test holds to the partition graphs in every\n" +
		"run where both exist; the fake kernels' numbers mean nothing, so a step whose shapes or control flow depend on\n" +
		"values can fail after placement (where it fails in more than one place, a kernel missing in a function body a\n" +
		"fetch runs is its failure, as on a real device, whichever TensorFlow's threads meet first), and `–` marks a step\n" +
		"with a node the placer never saw (lowered control flow) or none. tfscan's cut edges are derived the same way\n" +
		"from its placement; *transfers* are tfscan's own count of the step's cross-device edges, function bodies\n" +
		"included, listed and not compared. Models: every TensorFlow model of\n" +
		"the corpus that TensorFlow reads (the largest, `gd_keras_imagenet_train`, with soft placement on and on `musa` and\n" +
		"the sparse pack only, to keep the run's time), and every SavedModel of the small zoo (`zoo/`, tools/tfmodels); TF.js graph models through the GraphDef\n" +
		"their model.json holds (`tfjs/`). The zoo's and the TF.js models run with soft placement on only (they request\n" +
		"no device but cpu_pinned's CPU, so turning it off changes nothing there). Packs: `musa`, `intel-xpu`,\n" +
		"`directml`, ascend's kernel list as a plain device (no graph offload), a sparse pack (float16 math only, no\n" +
		"resource kernels) and a dump of TensorFlow itself with the musa fake device loaded (TensorFlow's own CPU and\n" +
		"DEFAULT kernels, imported as a pack).\n\n")
	b.WriteString("| pack | model | placement | agree / compared | TF only | tfscan only | log | partitions TF / tfscan | cut edges TF / tfscan | transfers tfscan | refusal | known |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	nodes, agreed, refused, atRunTime, oneSide, cuts, derivedCuts := 0, 0, 0, 0, 0, 0, 0
	for _, r := range rows {
		ref := "–"
		switch {
		case r.scanErr == "outside TF's step":
			ref = "tfscan, outside TF's step"
			oneSide++
		case r.scanErr == "will fail at run time":
			ref = "TF at run time; tfscan warns"
			atRunTime++
		case r.tfErr != "" && r.scanErr != "":
			ref = "both"
			refused++
		case r.tfErr != "":
			ref = "TF only"
			oneSide++
		case r.scanErr != "":
			ref = "tfscan only"
			oneSide++
		}
		// Where TensorFlow's step fails, the bodies it instantiated (and
		// logged) before the first error stopped the step depend on which
		// of its threads got there first: the names beyond the compared
		// nodes are measured, not held.
		notCompared, logAll := fmt.Sprint(r.notCompared), fmt.Sprintf("%d / %d", r.logAllAgreed, r.logAll)
		if r.stepFailed {
			notCompared, logAll = measured(notCompared), measured(logAll)
		}
		log := "–"
		if r.logAll > 0 {
			log = fmt.Sprintf("%d / %d; %s", r.logAgreed, r.logMatched, logAll)
		}
		known := strings.Join(slices.Compact(r.known), ", ")
		if known == "" {
			known = "–"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d / %d | %s | %d | %s | %s / %s | %s / %s | %s | %s | %s |\n", r.pack, r.model, r.mode,
			r.agreed, r.compared, notCompared, r.scanOnly, log, r.tfParts, r.scanParts, r.tfCut, r.scanCut, r.scanTransfers, ref, known)
		nodes += r.compared
		agreed += r.agreed
		if r.cutCompared {
			cuts++
			if strings.HasSuffix(r.tfCut, "*") {
				derivedCuts++
			}
		}
	}
	fmt.Fprintf(&b, "\nIn all: %d of %d compared nodes agree. Of the %d runs, both sides refuse %d in the same words (but for the\n"+
		"known differences below); TensorFlow fails %d when a functional op's body finds no kernel, which tfscan predicts as\n"+
		"a warning (\"will fail at run time\"); one side alone refuses %d, each a known difference. Partitions and cut\n"+
		"edges are compared in %d runs, %d of them derived from TensorFlow's placement (`*`), and agree but for the known\n"+
		"differences.\n", agreed, nodes, len(rows), refused, atRunTime, oneSide, cuts, derivedCuts)
	b.WriteString("\nKnown differences, with the runs each explains:\n\n")
	for _, k := range knownPlacementDiffs {
		fmt.Fprintf(&b, "- `%s` (%s, %d): %s.\n", k.name, k.kind, k.seen, k.why)
	}
	return b.String()
}

func scanJSON(t *testing.T, tfscan string, args []string, v any) {
	t.Helper()
	cmd := exec.Command(tfscan, args...)
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Fatalf("tfscan %v: %v\n%s", args, err, errOut(err))
		}
	}
	if err := json.Unmarshal(out, v); err != nil {
		t.Fatalf("tfscan %v: %v", args, err)
	}
}

func errOut(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return tail(string(ee.Stderr))
	}
	return ""
}

func runPy(t *testing.T, py string, args ...string) string {
	t.Helper()
	cmd := exec.Command(py, args...)
	cmd.Env = tfenv.Env()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", py, args, err, errOut(err))
	}
	return string(out)
}

func runEnv(t *testing.T, env []string, prog string, args ...string) {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", prog, args, err, tail(string(out)))
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func slug(m string) string { return strings.ReplaceAll(m, "/", "_") }

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func tail(s string) string {
	if len(s) > 3000 {
		return "…" + s[len(s)-3000:]
	}
	return s
}
