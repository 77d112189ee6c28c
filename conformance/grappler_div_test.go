package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	gpb "github.com/wamuir/graft/tensorflow/core/framework/graph_go_proto"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"

	"github.com/tfscan/tfscan/executor"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/internal/tfenv"
	"github.com/tfscan/tfscan/kernels"
	"github.com/tfscan/tfscan/kernels/npz"
	"github.com/tfscan/tfscan/savedmodel"
)

// divisionGraph divides x by constants the ways Keras models do (a Const,
// Keras Normalization's Maximum(Sqrt(Const), Const), GELU's Const
// sqrt(2)), with each division op, in float32 and float64, and by the
// placeholder y, which stays a true division.
const divisionGraph = `
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "y" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "x64" op: "Cast" input: "x" attr { key: "SrcT" value { type: DT_FLOAT } } attr { key: "DstT" value { type: DT_DOUBLE } } }
node { name: "three" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 3 } } } }
node { name: "sqrt2" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1.4142135 } } } }
node { name: "var" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 3 } } float_val: 7 float_val: 0.3 float_val: 11 } } } }
node { name: "eps" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1e-7 } } } }
node { name: "three64" op: "Const" attr { key: "dtype" value { type: DT_DOUBLE } } attr { key: "value" value { tensor { dtype: DT_DOUBLE tensor_shape {} double_val: 3 } } } }
node { name: "sqrt" op: "Sqrt" input: "var" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "max" op: "Maximum" input: "sqrt" input: "eps" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "by_const" op: "RealDiv" input: "x" input: "three" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "gelu_arg" op: "RealDiv" input: "x" input: "sqrt2" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "normalize" op: "RealDiv" input: "x" input: "max" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "div" op: "Div" input: "x" input: "three" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "xdivy" op: "Xdivy" input: "x" input: "three" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "by_const64" op: "RealDiv" input: "x64" input: "three64" attr { key: "T" value { type: DT_DOUBLE } } }
node { name: "x16" op: "Cast" input: "x" attr { key: "SrcT" value { type: DT_FLOAT } } attr { key: "DstT" value { type: DT_HALF } } }
node { name: "three16" op: "Const" attr { key: "dtype" value { type: DT_HALF } } attr { key: "value" value { tensor { dtype: DT_HALF tensor_shape {} half_val: 16896 } } } }
node { name: "div16" op: "RealDiv" input: "x16" input: "three16" attr { key: "T" value { type: DT_HALF } } }
node { name: "by_const16" op: "Cast" input: "div16" attr { key: "SrcT" value { type: DT_HALF } } attr { key: "DstT" value { type: DT_FLOAT } } }
node { name: "xb16" op: "Cast" input: "x" attr { key: "SrcT" value { type: DT_FLOAT } } attr { key: "DstT" value { type: DT_BFLOAT16 } } }
node { name: "threeb16" op: "Const" attr { key: "dtype" value { type: DT_BFLOAT16 } } attr { key: "value" value { tensor { dtype: DT_BFLOAT16 tensor_shape {} half_val: 16448 } } } }
node { name: "divb16" op: "RealDiv" input: "xb16" input: "threeb16" attr { key: "T" value { type: DT_BFLOAT16 } } }
node { name: "by_constb16" op: "Cast" input: "divb16" attr { key: "SrcT" value { type: DT_BFLOAT16 } } attr { key: "DstT" value { type: DT_FLOAT } } }
node { name: "xc" op: "Complex" input: "x" input: "by_y" attr { key: "T" value { type: DT_FLOAT } } attr { key: "Tout" value { type: DT_COMPLEX64 } } }
node { name: "threec" op: "Const" attr { key: "dtype" value { type: DT_COMPLEX64 } } attr { key: "value" value { tensor { dtype: DT_COMPLEX64 tensor_shape {} scomplex_val: 3 scomplex_val: 1 } } } }
node { name: "divc" op: "RealDiv" input: "xc" input: "threec" attr { key: "T" value { type: DT_COMPLEX64 } } }
node { name: "by_constc_re" op: "Real" input: "divc" attr { key: "T" value { type: DT_COMPLEX64 } } attr { key: "Tout" value { type: DT_FLOAT } } }
node { name: "by_constc_im" op: "Imag" input: "divc" attr { key: "T" value { type: DT_COMPLEX64 } } attr { key: "Tout" value { type: DT_FLOAT } } }
node { name: "by_y" op: "RealDiv" input: "x" input: "y" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "const_by_const" op: "RealDiv" input: "var" input: "three" attr { key: "T" value { type: DT_FLOAT } } }
`

// TestDivisionByConstant runs divisions by constants in TensorFlow's graph
// runtime (a Session, which runs Grappler: its ReduceDivToReciprocalMul
// makes them x * (1/c)) and in tfscan's executor, and requires
// bit-identical results.
func TestDivisionByConstant(t *testing.T) {
	tfenv.Python(t)
	dir := t.TempDir()
	gd := &gpb.GraphDef{}
	if err := prototext.Unmarshal([]byte(divisionGraph), gd); err != nil {
		t.Fatal(err)
	}
	b, err := proto.Marshal(gd)
	if err != nil {
		t.Fatal(err)
	}
	pb := filepath.Join(dir, "div.pb")
	if err := os.WriteFile(pb, b, 0o644); err != nil {
		t.Fatal(err)
	}
	// x ([n, 3], as Normalization's per-feature variance broadcasts):
	// values of every magnitude, signs, zero, and a stride of [0, 1)
	// fine enough that fl(x/c) and fl(x*fl(1/c)) often differ.
	var xs []float32
	for i := 0; i < 3000; i++ {
		xs = append(xs, float32(i)*0.001+float32(i%7)*1e-5)
	}
	for e := -30; e <= 30; e++ {
		xs = append(xs, float32(math.Pow(2, float64(e))*1.37), -float32(math.Pow(2, float64(e))*0.91))
	}
	xs = append(xs, 0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.NaN()))
	for len(xs)%3 != 0 {
		xs = append(xs, 1)
	}
	ys := make([]float32, len(xs))
	for i := range ys {
		ys[i] = 3
	}
	feedsT := map[string]*kernels.Tensor{
		"x": kernels.FloatTensor([]int{len(xs) / 3, 3}, xs),
		"y": kernels.FloatTensor([]int{len(ys) / 3, 3}, ys),
	}
	inputs := filepath.Join(dir, "inputs.npz")
	if err := npz.Write(inputs, feedsT); err != nil {
		t.Fatal(err)
	}
	fetchNodes := []string{"by_const", "gelu_arg", "normalize", "div", "xdivy", "by_const64", "by_const16", "by_constb16", "by_constc_re", "by_constc_im", "by_y", "const_by_const"}
	var fetches []string
	for _, f := range fetchNodes {
		fetches = append(fetches, f+":0")
	}
	ff, fe := filepath.Join(dir, "feeds.json"), filepath.Join(dir, "fetches.json")
	fj, _ := json.Marshal(map[string]string{"x": "x:0", "y": "y:0"})
	ej, _ := json.Marshal(fetches)
	if err := os.WriteFile(ff, fj, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(fe, ej, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "tf.npz")
	tfenv.Run(t, "tools/tf/fetch_graph.py", pb, inputs, ff, fe, "-o", out)
	want, err := npz.Read(out)
	if err != nil {
		t.Fatal(err)
	}

	m, err := savedmodel.Load(pb)
	if err != nil {
		t.Fatal(err)
	}
	g, err := graph.Build(m, m.MetaGraphs[0])
	if err != nil {
		t.Fatal(err)
	}
	ex, err := executor.New(g, nil, executor.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ex.Run(context.Background(), feedsT, fetches)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range fetches {
		w, g := want[name], got[name]
		if w == nil || g == nil {
			t.Fatalf("%s: TensorFlow gave %v, tfscan %v", name, w != nil, g != nil)
		}
		if diff := bitDiff(w, g); diff != "" {
			t.Errorf("%s: %s", name, diff)
		}
	}
	// TensorFlow's x / 3 is not the true quotient on these inputs, so the
	// comparison above tells the rewrite from a division.
	differ := 0
	for i, x := range xs {
		if v := want["by_const:0"].Data.([]float32)[i]; v != x/3 && v == v {
			differ++
		}
	}
	if differ == 0 {
		t.Errorf("TensorFlow's by_const equals x/3 everywhere: the test no longer tells x*(1/c) from x/c")
	}
}

// bitDiff says where two tensors differ in dtype, shape or bits ("" when
// they are bit-identical; NaNs match any NaN).
func bitDiff(w, g *kernels.Tensor) string {
	if w.DType != g.DType || len(w.Shape) != len(g.Shape) {
		return "dtype or shape differs: TensorFlow " + w.DType.String() + ", tfscan " + g.DType.String()
	}
	n, first := 0, -1
	switch wd := w.Data.(type) {
	case []float32:
		gd := g.Data.([]float32)
		for i := range wd {
			if math.Float32bits(wd[i]) != math.Float32bits(gd[i]) && !(wd[i] != wd[i] && gd[i] != gd[i]) {
				n++
				if first < 0 {
					first = i
				}
			}
		}
		if n > 0 {
			return fmtDiff(n, len(wd), first, float64(wd[first]), float64(gd[first]))
		}
	case []float64:
		gd := g.Data.([]float64)
		for i := range wd {
			if math.Float64bits(wd[i]) != math.Float64bits(gd[i]) && !(wd[i] != wd[i] && gd[i] != gd[i]) {
				n++
				if first < 0 {
					first = i
				}
			}
		}
		if n > 0 {
			return fmtDiff(n, len(wd), first, wd[first], gd[first])
		}
	default:
		return "unexpected data type"
	}
	return ""
}

func fmtDiff(n, total, first int, w, g float64) string {
	return fmt.Sprintf("%d of %d values differ in bits; first at %d: TensorFlow %v, tfscan %v", n, total, first, w, g)
}
