package conformance

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	shapepb "github.com/wamuir/graft/tensorflow/core/framework/tensor_shape_go_proto"
	"google.golang.org/protobuf/proto"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/internal/testutil"
	"github.com/tfscan/tfscan/internal/tfenv"
	"github.com/tfscan/tfscan/savedmodel"
	"github.com/tfscan/tfscan/savedmodel/modelgen"
)

func init() { owners["import"] = true }

// importDifferences are the cases where tfscan's verdict on a model is not
// TensorFlow's, each with the reason it is tfscan's choice. The test fails
// on a difference missing here and on an entry that no longer differs.
var importDifferences = map[string]string{
	"corpus/tf/gd_unknown_op": "An op no registry knows stays a non-fatal `unknown_op` diagnostic: a session that " +
		"loads the op's library (`tf.load_op_library`) imports and runs the graph, and tfscan is asked about " +
		"exactly such graphs; `import_graph_def` without the library refuses it.",
	"corpus/tf/sm_fuzz_const_no_value": "Two problems; each side names a different one. TensorFlow's Python " +
		"importers meet first the `_output_shapes` attr of `ParseExample/ParseExample/names` disagreeing with its " +
		"value, which only `import_graph_def` checks (`core/common_runtime/graph_constructor.cc:818-860`, " +
		"`opts_.importing`): a session's import (`tf.Session`, TF Serving's C++ loader) does not, and tfscan " +
		"follows the session. tfscan names the Const without a value, which every TensorFlow path refuses " +
		"(`malformed/const_without_value.pb`).",
	"testdata/models/keras_saved_model": "The generated Keras-style SavedModel is a graph to scan, not a model " +
		"TensorFlow can restore: it ships no `variables/` checkpoint (TF1's loader restores and refuses: `The passed " +
		"save_path is not a valid checkpoint`) and its object graph's function specs are left empty (TF2's loader " +
		"refuses: `No encoder for object of type StructuredValue`). tfscan reads a SavedModel's graph without its " +
		"checkpoint, since a scan needs no weights (`tfscan run` reads the checkpoint and says when it is missing).",
	"malformed/placeholder_absurd_dim.pb": "tfscan refuses a shape attr of more than 2^40 elements (`savedmodel.MaxShapeElements`) " +
		"so that no later stage sizes anything by it; TensorFlow imports it (its limit is 2^63-1 elements), " +
		"but no tensor of 2^53 bytes can ever be fed to the placeholder, so the graph cannot run.",
}

// importCase is one model given to tfscan and to TensorFlow.
type importCase struct {
	name   string // "hostile/cycle.pb": the source and the file or directory
	path   string // what tfscan loads
	tfPath string // what TensorFlow loads: the file, or a SavedModel's directory
	format savedmodel.Format
}

// tfscanVerdict is what tfscan's load and validation (savedmodel.Load,
// graph.SelectMetaGraph, graph.Build: the sequence every command runs) say.
type tfscanVerdict struct {
	refused bool
	message string // the error without its file prefix
	file    string // the file the error names
	format  savedmodel.Format
}

func tfscanLoad(path string) tfscanVerdict {
	m, err := savedmodel.Load(path)
	if err == nil {
		var mg *savedmodel.MetaGraph
		mg, err = graph.SelectMetaGraph(m, nil)
		if err == nil {
			_, err = graph.Build(m, mg)
		}
	}
	v := tfscanVerdict{}
	if m != nil {
		v.format = m.Format
	}
	if err != nil {
		v.refused = true
		v.message = err.Error()
		var se *savedmodel.Error
		if errors.As(err, &se) {
			v.message = strings.TrimPrefix(v.message, se.File+": ")
			v.file = se.File
		}
	}
	return v
}

// tfRecord is one line of tools/tf/import_verdict.py.
type tfRecord struct {
	Path    string `json:"path"`
	API     string `json:"api"`
	Status  string `json:"status"`
	Error   string `json:"error"`
	Message string `json:"message"`
}

// tfAPI is one API's verdict on a model: accepted, refused or crashed.
type tfAPI struct {
	api, status, class, message string
}

// tfVerdicts runs the script once over every case (again from the next
// model when TensorFlow crashes on one) and returns each model's API
// verdicts in the order the script tried them.
func tfVerdicts(t *testing.T, cases []importCase) map[string][]tfAPI {
	out := map[string][]tfAPI{}
	rest := cases
	for len(rest) > 0 {
		var list strings.Builder
		for _, c := range rest {
			fmt.Fprintf(&list, "%s\t%s\n", c.format, c.tfPath)
		}
		listFile := filepath.Join(t.TempDir(), "models.txt")
		require.NoError(t, os.WriteFile(listFile, []byte(list.String()), 0o644))
		stdout, stderr, err := tfenv.RunErr(t, "tools/tf/import_verdict.py", listFile)
		var recs []tfRecord
		sc := bufio.NewScanner(bytes.NewReader(stdout))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var r tfRecord
			require.NoError(t, json.Unmarshal(sc.Bytes(), &r), "%s", sc.Text())
			recs = append(recs, r)
		}
		var crashed *tfRecord
		for i, r := range recs {
			switch r.Status {
			case "started":
				if i == len(recs)-1 {
					crashed = &recs[i]
				}
			default:
				out[r.Path] = append(out[r.Path], tfAPI{api: r.API, status: r.Status, class: r.Error, message: r.Message})
			}
		}
		if err == nil {
			break
		}
		require.NotNil(t, crashed, "import_verdict.py failed without a model under way: %v\n%s", err, lastLines(stderr, 20))
		out[crashed.Path] = append(out[crashed.Path], tfAPI{api: crashed.API, status: "crashed", message: crashedMessage(err)})
		next := len(rest)
		for i, c := range rest {
			if c.tfPath == crashed.Path {
				next = i + 1
				break
			}
		}
		rest = rest[next:]
	}
	return out
}

// crashedMessage is how a crash reads in the table: the signal.
func crashedMessage(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return "the process ended: " + ee.ProcessState.String()
	}
	return err.Error()
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// tfRefusal is TensorFlow's verdict on a model: refused when any API it was
// given to refused it or crashed on it, with the first such API's
// message. A model one of TensorFlow's paths cannot import or load is one
// tfscan must not call healthy.
func tfRefusal(apis []tfAPI) (tfAPI, bool) {
	for _, a := range apis {
		if a.status != "accepted" {
			return a, true
		}
	}
	return tfAPI{}, false
}

// TensorFlow's messages name nodes and functions in these forms; the
// names are what tfscan's message must name too.
var (
	tfNamePatterns = []*regexp.Regexp{
		regexp.MustCompile(`(?i)\bnode '([^']+)'`),       // Node 'a' is not unique; Detected at node 'x'
		regexp.MustCompile(`\{\{node ([^}\s]+)\}\}`),     // {{node add}}
		regexp.MustCompile(`\bfunction '([^']+)'`),       // Cannot add function 'f'
		regexp.MustCompile(`\bfunction "([^"]+)"`),       // Failed to find function "nope"
		regexp.MustCompile(`\bFunction (\S+) is `),       // Function f is self recursive
		regexp.MustCompile(`\bsource node (\S+) which `), // Connecting to invalid output 1 of source node x
		regexp.MustCompile(`\binput (\S+) is not found`), // input nope:z:0 is not found
		regexp.MustCompile(`\bOp type not registered '([^']+)'`),
	}
	tfResolvePattern = regexp.MustCompile(`Could not resolve \[([^\]]*)\]`)
	tfQuoted         = regexp.MustCompile(`'([^']*)'`)
)

// tfNames returns the node and function names TensorFlow's message names,
// sorted. A KeyError's message is the missing key itself.
func tfNames(a tfAPI) []string {
	set := map[string]bool{}
	if a.class == "KeyError" {
		set[strings.Trim(a.message, `'"`)] = true
	}
	for _, re := range tfNamePatterns {
		for _, m := range re.FindAllStringSubmatch(a.message, -1) {
			set[m[1]] = true
		}
	}
	for _, m := range tfResolvePattern.FindAllStringSubmatch(a.message, -1) {
		for _, q := range tfQuoted.FindAllStringSubmatch(m[1], -1) {
			set[q[1]] = true
		}
	}
	var out []string
	for n := range set {
		if n != "" {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// names reports whether msg names name: the name with no name character
// on either side.
func names(msg, name string) bool {
	isName := func(c byte) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_./:-^>", c) >= 0
	}
	for i := 0; ; {
		j := strings.Index(msg[i:], name)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(name)
		if (j == 0 || !isName(msg[j-1])) && (end == len(msg) || !isName(msg[end])) {
			return true
		}
		i = j + 1
	}
}

// importCases are the models compared: the hostile graphs and malformed
// models tfscan refuses (written by modelgen into a temporary directory),
// models that load although they look wrong, the generated test models
// and the TensorFlow models of the shared corpus. TF.js models are not
// compared: TensorFlow has no loader for them.
func importCases(t *testing.T) []importCase {
	dir := t.TempDir()
	var cases []importCase
	add := func(name, path string) {
		cases = append(cases, importCase{name: name, path: path})
	}
	require.NoError(t, modelgen.WriteHostile(filepath.Join(dir, "hostile")))
	for _, h := range modelgen.HostileModels() {
		add("hostile/"+h.Name, filepath.Join(dir, "hostile", h.Name))
	}
	require.NoError(t, modelgen.WriteMalformed(filepath.Join(dir, "malformed")))
	for _, m := range modelgen.MalformedModels() {
		add("malformed/"+m.Name, filepath.Join(dir, "malformed", m.Name))
	}
	for name, dims := range map[string][]int64{
		"signature_negative_dim":   {-2, 8, 8, 1},
		"signature_absurd_dim":     {1, 1 << 62, 8, 1},
		"signature_absurd_product": {1 << 20, 1 << 20, 1 << 20, 1 << 20},
	} {
		sm := modelgen.ConvNetSavedModel()
		sh := &shapepb.TensorShapeProto{}
		for _, d := range dims {
			sh.Dim = append(sh.Dim, &shapepb.TensorShapeProto_Dim{Size: d})
		}
		sm.MetaGraphs[0].SignatureDef["serving_default"].Inputs["x"].TensorShape = sh
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(sm)
		require.NoError(t, err)
		p := filepath.Join(dir, "odd", name)
		require.NoError(t, os.MkdirAll(p, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(p, "saved_model.pb"), b, 0o644))
		add("odd/"+name, p)
	}
	// Grappler's remapper under oneDNN (TensorFlow's default on x86 Linux)
	// writes symbolic dimensions into the _input_shapes of the nodes it
	// fuses, and the tfjs-converter keeps them (savedmodel/validate.go).
	sm := modelgen.ConvNetSavedModel()
	var found bool
	for _, n := range sm.MetaGraphs[0].GraphDef.Node {
		if n.GetName() == "conv1/Conv2D" {
			n.Attr["_input_shapes"] = &attrpb.AttrValue{Value: &attrpb.AttrValue_List{List: &attrpb.AttrValue_ListValue{Shape: []*shapepb.TensorShapeProto{
				{Dim: []*shapepb.TensorShapeProto_Dim{{Size: -2}, {Size: -3}, {Size: -4}, {Size: 1}}},
				{Dim: []*shapepb.TensorShapeProto_Dim{{Size: 3}, {Size: 3}, {Size: 1}, {Size: 4}}},
			}}}}
			found = true
		}
	}
	require.True(t, found, "the generated convnet has no conv1/Conv2D")
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(sm)
	require.NoError(t, err)
	p := filepath.Join(dir, "odd", "symbolic_input_shapes")
	require.NoError(t, os.MkdirAll(p, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(p, "saved_model.pb"), b, 0o644))
	add("odd/symbolic_input_shapes", p)
	models := filepath.Join(testutil.RepoRoot(), "testdata", "models")
	ents, err := os.ReadDir(models)
	require.NoError(t, err)
	for _, e := range ents {
		add("testdata/models/"+e.Name(), filepath.Join(models, e.Name()))
	}
	corpus := filepath.Join(testutil.Corpus(t), "tf")
	ents, err = os.ReadDir(corpus)
	require.NoError(t, err)
	for _, e := range ents {
		add("corpus/tf/"+e.Name(), filepath.Join(corpus, e.Name()))
	}
	sort.Slice(cases, func(i, j int) bool { return cases[i].name < cases[j].name })
	return cases
}

// modelFile is the one model file in a corpus directory (a GraphDef, a
// MetaGraphDef), or the path itself.
func modelFile(path string) string {
	st, err := os.Stat(path)
	if err != nil || !st.IsDir() {
		return path
	}
	for _, n := range []string{"saved_model.pb", "saved_model.pbtxt"} {
		if _, err := os.Stat(filepath.Join(path, n)); err == nil {
			return path
		}
	}
	ents, _ := os.ReadDir(path)
	var files []string
	for _, e := range ents {
		if !e.IsDir() && e.Name() != "SOURCE.txt" {
			files = append(files, filepath.Join(path, e.Name()))
		}
	}
	if len(files) == 1 {
		return files[0]
	}
	return path
}

// formatOf is the format TensorFlow is asked to read path as: tfscan's
// when tfscan read the file, else the one its name says.
func formatOf(v tfscanVerdict, path string) savedmodel.Format {
	if v.format != "" {
		return v.format
	}
	base := filepath.Base(path)
	switch {
	case base == "saved_model.pbtxt":
		return savedmodel.FormatSavedModelText
	case base == "saved_model.pb", filepath.Ext(path) == "":
		return savedmodel.FormatSavedModel
	case strings.HasSuffix(base, ".pbtxt"):
		return savedmodel.FormatGraphDefText
	case strings.HasSuffix(base, ".meta"):
		return savedmodel.FormatMetaGraph
	}
	return savedmodel.FormatGraphDef
}

// importResult is one case compared.
type importResult struct {
	importCase
	tfscan    tfscanVerdict
	apis      []tfAPI
	tfRefused bool
	counted   tfAPI    // the API whose refusal counts
	tfNames   []string // what TensorFlow's counted message names
	missing   []string // those tfscan's message does not name
	agree     bool
}

// TestImportVerdictsAgreeWithTensorFlow gives every case to tfscan's load
// and to TensorFlow's importers and loaders, and requires the same verdict
// and, where TensorFlow's message names nodes or functions, tfscan's
// message to name them too.
func TestImportVerdictsAgreeWithTensorFlow(t *testing.T) {
	tfenv.Python(t)
	cases := importCases(t)
	results := make([]importResult, len(cases))
	for i, c := range cases {
		c.path = modelFile(c.path)
		v := tfscanLoad(c.path)
		c.format = formatOf(v, c.path)
		c.tfPath = c.path
		if (c.format == savedmodel.FormatSavedModel || c.format == savedmodel.FormatSavedModelText) && filepath.Ext(c.path) != "" {
			c.tfPath = filepath.Dir(c.path)
		}
		results[i] = importResult{importCase: c, tfscan: v}
	}
	var given []importCase
	for _, r := range results {
		if r.format == savedmodel.FormatTFJS {
			t.Errorf("%s: a TF.js model among the cases: TensorFlow has no loader for it", r.name)
			continue
		}
		given = append(given, r.importCase)
	}
	verdicts := tfVerdicts(t, given)
	for i := range results {
		r := &results[i]
		r.apis = verdicts[r.tfPath]
		if len(r.apis) == 0 {
			t.Errorf("%s: TensorFlow gave no verdict", r.name)
			continue
		}
		r.counted, r.tfRefused = tfRefusal(r.apis)
		if r.tfRefused {
			r.tfNames = tfNames(r.counted)
			for _, n := range r.tfNames {
				if !names(r.tfscan.message, n) {
					r.missing = append(r.missing, n)
				}
			}
		}
		r.agree = r.tfRefused == r.tfscan.refused && len(r.missing) == 0
		reason, documented := importDifferences[r.name]
		switch {
		case !r.agree && !documented:
			t.Errorf("%s: tfscan %s, TensorFlow %s%s", r.name, describeTfscan(r.tfscan), describeTF(r.apis), describeMissing(r.missing))
		case r.agree && documented:
			t.Errorf("%s: tfscan and TensorFlow agree; remove it from importDifferences (%s)", r.name, reason)
		}
	}
	for name := range importDifferences {
		found := false
		for _, r := range results {
			found = found || r.name == name
		}
		if !found {
			t.Errorf("importDifferences names %s, which is no case", name)
		}
	}
	checkExitCodes(t, results)
	section("import", importSection(results))
}

// checkExitCodes runs the tfscan command on the first model tfscan refuses
// from each source of hostile and malformed models and on one it accepts:
// exit code 3 with the Go API's message on one line, and 0.
func checkExitCodes(t *testing.T, results []importResult) {
	bin := filepath.Join(t.TempDir(), "tfscan")
	build := exec.Command("go", "build", "-o", bin, "./cmd/tfscan")
	build.Dir = tfenv.RepoRoot()
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	seen := map[string]bool{}
	for _, r := range results {
		source := strings.SplitN(r.name, "/", 2)[0]
		key := fmt.Sprint(source, r.tfscan.refused)
		if seen[key] || (r.tfscan.refused && source != "hostile" && source != "malformed") || (!r.tfscan.refused && source != "testdata") {
			continue
		}
		seen[key] = true
		cmd := exec.Command(bin, "inspect", r.path)
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = io.Discard, &stderr
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else {
			require.NoError(t, err)
		}
		if r.tfscan.refused {
			require.Equal(t, 3, code, "%s: tfscan inspect's exit code", r.name)
			require.Equal(t, "tfscan: "+r.tfscan.file+": "+r.tfscan.message+"\n", stderr.String(), r.name)
		} else {
			require.Equal(t, 0, code, "%s: tfscan inspect's exit code: %s", r.name, stderr.String())
		}
	}
	require.Len(t, seen, 3, "a refused hostile and malformed model and an accepted one")
}

func describeTfscan(v tfscanVerdict) string {
	if !v.refused {
		return "accepts"
	}
	return "refuses: " + v.message
}

func describeTF(apis []tfAPI) string {
	var parts []string
	for _, a := range apis {
		s := a.api + " " + a.status
		if a.status != "accepted" {
			s += ": " + firstLine(a.message)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

func describeMissing(missing []string) string {
	if len(missing) == 0 {
		return ""
	}
	return fmt.Sprintf(" (tfscan's message does not name %s)", strings.Join(missing, ", "))
}

// hostName is where TensorFlow names the machine it runs on, which no
// table may depend on.
var hostName = regexp.MustCompile(`in binary running on \S+?\. `)

// firstLine is the line of a message that says what is wrong: a session's
// run error starts with lines saying where it was detected.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || l == "Graph execution error:" || strings.HasPrefix(l, "Detected at node ") || strings.HasPrefix(l, "Node: ") {
			continue
		}
		s = l
		break
	}
	s = hostName.ReplaceAllString(s, "in binary running on HOST. ")
	const max = 160
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}

// importSection is docs/conformance.md's import section.
func importSection(results []importResult) string {
	var b strings.Builder
	agree, refused := 0, 0
	for _, r := range results {
		if r.agree {
			agree++
		}
		if r.tfscan.refused {
			refused++
		}
	}
	b.WriteString("## Import verdicts\n\n")
	b.WriteString("`conformance/import_test.go` gives each model to tfscan's load and validation (`savedmodel.Load`, " +
		"`graph.SelectMetaGraph`, `graph.Build`, what every command runs; a refusal is exit code 3) and to TensorFlow " +
		"(`tools/tf/import_verdict.py`, one process): a GraphDef to `tf.compat.v1.import_graph_def` and then to a " +
		"session that imports, places and builds it and evaluates every Const; a MetaGraphDef to " +
		"`tf.compat.v1.train.import_meta_graph`; a SavedModel to `tf.saved_model.load` and, when that accepts it, " +
		"`tf.compat.v1.saved_model.loader.load` (which crashes on the recursive libraries the first refuses). TensorFlow refuses a model when any of the APIs its format goes " +
		"through refuses it or crashes on it; the first such API's message counts. The verdicts must agree, and " +
		"every node or function TensorFlow's message names must be named by tfscan's. The models: the hostile " +
		"graphs and malformed models tfscan refuses (`savedmodel/modelgen`: `hostile.go`, `malformed.go`), " +
		"SavedModels whose signature shapes no tensor has, one with the symbolic dimensions Grappler writes into `_input_shapes`, the generated test models (`testdata/models`) and the " +
		"TensorFlow models of the shared corpus. TF.js models are not compared: TensorFlow has no loader for them.\n\n")
	fmt.Fprintf(&b, "%d models compared, %d refused by tfscan, %d agree, %d documented differences.\n\n",
		len(results), refused, agree, len(results)-agree)
	b.WriteString("| model | tfscan | TensorFlow | names TensorFlow's message gives | agree |\n|---|---|---|---|---|\n")
	for _, r := range results {
		ts := "accepts"
		if r.tfscan.refused {
			ts = "refuses: " + mdCell(firstLine(r.tfscan.message))
		}
		var tfs []string
		for _, a := range r.apis {
			s := "`" + a.api + "` " + a.status
			if a == r.counted && r.tfRefused {
				s += ": " + mdCell(firstLine(a.message))
			}
			tfs = append(tfs, s)
		}
		nm := "–"
		if len(r.tfNames) > 0 {
			nm = "`" + strings.Join(r.tfNames, "`, `") + "`"
		} else if r.tfRefused {
			nm = "none"
		}
		ag := "yes"
		if !r.agree {
			ag = "no (documented)"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", r.name, ts, strings.Join(tfs, "; "), nm, ag)
	}
	b.WriteString("\n### Documented differences\n\n")
	var keys []string
	for k := range importDifferences {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "- **%s**: %s\n", k, importDifferences[k])
	}
	return b.String()
}

// mdCell keeps a message inside one table cell.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return "`" + strings.ReplaceAll(s, "`", "'") + "`"
}
