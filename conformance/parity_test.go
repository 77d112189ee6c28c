package conformance

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/internal/tfenv"
	"github.com/tfscan/tfscan/internal/tfgolden"
	"github.com/tfscan/tfscan/kernels"
	"github.com/tfscan/tfscan/kernels/npz"
	"github.com/tfscan/tfscan/savedmodel"
)

func init() { owners["parity"] = true }

// parityCase is one precision profile of `tfscan parity` against the same
// model run by TensorFlow under the Keras dtype policy it stands for.
type parityCase struct {
	profile string // tfscan parity --precision
	policy  string // the Keras policy TensorFlow runs
	// as is fetch_graph.py's --as for TensorFlow's graph ("" for the zoo's
	// mixed_float16 graph as exported); twin runs tfscan on the model's
	// float32 twin (the fp16 and bf16 profiles are about float32 models).
	as   string
	twin bool
	half tpb.DataType
	// ulp are the largest distances in ULPs of the policy's dtype between
	// TensorFlow and the emulation per node (short name), as measured; a
	// node not listed is bit-identical. The test fails when one changes.
	ulp map[string]int64
	why string
}

var parityCases = []parityCase{
	{profile: "mixed_float16", policy: "mixed_float16", half: tpb.DataType_DT_HALF,
		ulp: map[string]int64{"activation/Softmax": 1},
		why: "every float16 node is bit-identical (TensorFlow's float16 CPU kernels compute in float32 and round once, as the " +
			"emulation does); the float32 softmax differs by Eigen's approximate exp"},
	{profile: "fp16", policy: "float16", as: "float16", twin: true, half: tpb.DataType_DT_HALF,
		ulp: map[string]int64{"batch_normalization/FusedBatchNormV3": 438, "max_pooling2d/MaxPool": 438, "flatten/Reshape": 438,
			"dense_6/MatMul": 27, "dense_6/BiasAdd": 27, "dense_6/Relu": 20, "dense_7/MatMul": 29, "dense_7/BiasAdd": 29,
			"activation/Cast": 29, "activation/Softmax": 2},
		why: "bit-identical through Conv2D, BiasAdd and Relu; the profile stores every float32 tensor in float16, the batch " +
			"norm's statistics too, where Keras's float16 policy keeps them float32 (FusedBatchNormV3's U), so the difference " +
			"starts at the batch norm and is carried to the outputs"},
	{profile: "bf16", policy: "bfloat16", as: "bfloat16", twin: true, half: tpb.DataType_DT_BFLOAT16,
		ulp: map[string]int64{"batch_normalization/FusedBatchNormV3": 29321, "max_pooling2d/MaxPool": 138, "flatten/Reshape": 138,
			"dense_6/MatMul": 14, "dense_6/BiasAdd": 14, "dense_6/Relu": 5, "dense_7/MatMul": 9, "dense_7/BiasAdd": 9,
			"activation/Cast": 9, "activation/Softmax": 2},
		why: "as fp16: bit-identical up to the batch norm, whose float32 statistics the profile rounds to bfloat16 (the " +
			"ULP count is that of values near zero; the largest absolute difference is one bfloat16 step at 1)"},
}

type parityRow struct {
	node, dtype string
	diffs       []tfgolden.Diff // per case
}

func TestParityAgainstTensorFlowHalf(t *testing.T) {
	zoo := smallZoo(t)
	dir := t.TempDir()
	bin := buildTfscan(t, dir)
	model := filepath.Join(zoo, "mixed_float16")
	frozen := filepath.Join(model, "frozen.pb")
	inputs := filepath.Join(model, "inputs.npz")
	var meta zooMeta
	mb, err := os.ReadFile(filepath.Join(model, "meta.json"))
	if err == nil {
		err = json.Unmarshal(mb, &meta)
	}
	if err != nil {
		t.Fatal(err)
	}
	// every computing node of the frozen graph, by its first output
	m, err := savedmodel.Load(frozen)
	if err != nil {
		t.Fatal(err)
	}
	var fetches []string
	for _, n := range m.MetaGraphs[0].Def.GetGraphDef().GetNode() {
		switch n.GetOp() {
		case "Const", "Placeholder", "Identity", "NoOp":
			continue
		}
		fetches = append(fetches, n.GetName()+":0")
	}
	feeds, _ := json.Marshal(meta.FrozenInputs)
	fl, _ := json.Marshal(fetches)
	ff, fe := filepath.Join(dir, "feeds.json"), filepath.Join(dir, "fetches.json")
	if err := os.WriteFile(ff, feeds, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(fe, fl, 0o644); err != nil {
		t.Fatal(err)
	}
	// the float32 twin, written by the same conversion TensorFlow's policy
	// graphs come from
	twin := filepath.Join(dir, "twin.pb")
	tfenv.Run(t, "tools/tf/fetch_graph.py", frozen, inputs, ff, fe, "-o", filepath.Join(dir, "twin.npz"), "--as", "float32", "--write-graph", twin)
	rows := map[string]*parityRow{}
	for ci, c := range parityCases {
		tfOut := filepath.Join(dir, "tf."+c.profile+".npz")
		args := []string{frozen, inputs, ff, fe, "-o", tfOut}
		if c.as != "" {
			args = append(args, "--as", c.as)
		}
		tfenv.Run(t, "tools/tf/fetch_graph.py", args...)
		emu := filepath.Join(dir, "emu."+c.profile+".npz")
		src := frozen
		if c.twin {
			src = twin
		}
		cmdArgs := []string{"parity", src, "--target", "cuda", "--precision", c.profile, "--inputs", inputs, "--emulated", emu, "--format", "json"}
		for _, f := range fetches {
			cmdArgs = append(cmdArgs, "--fetch", f)
		}
		cmd := exec.Command(bin, cmdArgs...)
		if out, err := cmd.CombinedOutput(); err != nil {
			// exit 1: an output outside the profile's tolerance of the
			// float64 reference, which is not what this test compares
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
				t.Fatalf("tfscan %s: %v\n%s", strings.Join(cmdArgs, " "), err, out)
			}
		}
		want, err := npz.Read(tfOut)
		if err != nil {
			t.Fatal(err)
		}
		got, err := npz.Read(emu)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, f := range fetches {
			short := shortNode(f)
			w, g := want[f], got[f]
			if w == nil || g == nil {
				t.Errorf("%s, %s: no tensor (TensorFlow %v, tfscan %v)", c.profile, short, w != nil, g != nil)
				continue
			}
			if w.DType == tpb.DataType_DT_FLOAT && c.twin {
				// a bfloat16 tensor, which fetch_graph.py writes as float32
				if c.half == tpb.DataType_DT_BFLOAT16 {
					w = asHalf(w, c.half)
				}
			}
			if w.DType != g.DType {
				g = asHalf(g, w.DType)
			}
			d, err := tfgolden.Compare(g, w, tfgolden.Tol{})
			if err != nil {
				t.Errorf("%s, %s: %v", c.profile, short, err)
				continue
			}
			r := rows[short]
			if r == nil {
				r = &parityRow{node: short, diffs: make([]tfgolden.Diff, len(parityCases))}
				rows[short] = r
			}
			r.diffs[ci] = d
			seen[short] = true
			if want, listed := c.ulp[short]; d.MaxULP != want || (!listed && !d.Identical) {
				t.Errorf("%s, %s: %d ULP from TensorFlow's %s run (max abs %.3g), the recorded difference is %d", c.profile, short,
					d.MaxULP, c.policy, d.MaxAbs, want)
			}
		}
		for n := range c.ulp {
			if !seen[n] {
				t.Errorf("%s: no node %s", c.profile, n)
			}
		}
	}
	var order []*parityRow
	for _, f := range fetches {
		if r := rows[shortNode(f)]; r != nil {
			order = append(order, r)
		}
	}
	section("parity", paritySection(order))
}

// shortNode is a node's name without the Keras model's call prefix.
func shortNode(fetch string) string {
	s := strings.TrimSuffix(fetch, ":0")
	if i := strings.Index(s, "model_"); i >= 0 {
		if j := strings.Index(s[i:], "/"); j >= 0 {
			return s[i+j+1:]
		}
	}
	return s
}

// asHalf converts a float32 tensor (whose values the half type holds) to dt.
func asHalf(t *kernels.Tensor, dt tpb.DataType) *kernels.Tensor {
	d, ok := t.Data.([]float32)
	if !ok {
		return t
	}
	switch dt {
	case tpb.DataType_DT_HALF:
		out := make([]kernels.Float16, len(d))
		for i, v := range d {
			out[i] = kernels.Float16FromFloat32(v)
		}
		return &kernels.Tensor{DType: dt, Shape: t.Shape, Data: out}
	case tpb.DataType_DT_BFLOAT16:
		out := make([]kernels.BFloat16, len(d))
		for i, v := range d {
			out[i] = kernels.BFloat16FromFloat32(v)
		}
		return &kernels.Tensor{DType: dt, Shape: t.Shape, Data: out}
	}
	return t
}

func paritySection(rows []*parityRow) string {
	var b strings.Builder
	b.WriteString("## Parity\n\n")
	b.WriteString("`tfscan parity --precision P --emulated emu.npz` on the zoo's `mixed_float16` model (a Keras model under the\n" +
		"`mixed_float16` policy, frozen), every computing node fetched, against TensorFlow running the same model under\n" +
		"the Keras policy the profile stands for, on its own float16 and bfloat16 CPU kernels (`tools/tf/fetch_graph.py`):\n" +
		"`mixed_float16` is the model as exported; `fp16` and `bf16` run tfscan on the model's float32 twin and TensorFlow\n" +
		"on its `float16` and `bfloat16` policy graphs (every float computation in that dtype, weights and the batch\n" +
		"norm's statistics float32, as Keras keeps them). Each cell: bit-identical, or the largest distance in ULPs of\n" +
		"the policy's dtype (float32 for the float32 nodes of `mixed_float16`) and the largest absolute difference. The\n" +
		"test fails when any of them changes.\n\n")
	b.WriteString("| node |")
	for _, c := range parityCases {
		fmt.Fprintf(&b, " %s vs TF %s |", c.profile, c.policy)
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(parityCases)) + "\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s |", r.node)
		for _, d := range r.diffs {
			if d.Identical {
				b.WriteString(" bit-identical |")
			} else {
				fmt.Fprintf(&b, " %d ULP, %.3g |", d.MaxULP, d.MaxAbs)
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	for _, c := range parityCases {
		fmt.Fprintf(&b, "- %s: %s.\n", c.profile, c.why)
	}
	return b.String()
}
