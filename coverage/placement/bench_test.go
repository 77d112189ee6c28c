package placement_test

import (
	"fmt"
	"runtime"
	"testing"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"
	tensorpb "github.com/wamuir/graft/tensorflow/core/framework/tensor_go_proto"
	tspb "github.com/wamuir/graft/tensorflow/core/framework/tensor_shape_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/coverage/placement"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/internal/benchmodel"
	"github.com/tfscan/tfscan/internal/testmodel"
	"github.com/tfscan/tfscan/savedmodel"
)

// genGraph builds (by hand, without graph.Build) a chain of MatMul+Relu
// blocks of about n nodes; every 40th block adds one of several ops the
// target lacks, so the graph has many small CPU islands and many missing
// (op, dtype) kernels.
func genGraph(n int) *graph.Graph {
	ops := graph.Default()
	g := &graph.Graph{Ops: ops, FunctionByName: map[string]*graph.Function{}}
	f32 := []tpb.DataType{tpb.DataType_DT_FLOAT}
	tattr := map[string]*attrpb.AttrValue{"T": {Value: &attrpb.AttrValue_Type{Type: tpb.DataType_DT_FLOAT}}}
	add := func(name, op string, attrs map[string]*attrpb.AttrValue, ins ...*graph.Node) *graph.Node {
		nd := &graph.Node{ID: len(g.Nodes), Name: name, Op: op, OpDef: ops.Lookup(op), Attrs: attrs}
		var inTypes []tpb.DataType
		for _, in := range ins {
			nd.Inputs = append(nd.Inputs, graph.Input{Node: in})
			inTypes = append(inTypes, tpb.DataType_DT_FLOAT)
		}
		nd.SetTypes(inTypes, f32)
		g.Nodes = append(g.Nodes, nd)
		return nd
	}
	shape := func(d ...int64) *tspb.TensorShapeProto {
		s := &tspb.TensorShapeProto{}
		for _, x := range d {
			s.Dim = append(s.Dim, &tspb.TensorShapeProto_Dim{Size: x})
		}
		return s
	}
	prev := add("x", "Placeholder", map[string]*attrpb.AttrValue{
		"dtype": {Value: &attrpb.AttrValue_Type{Type: tpb.DataType_DT_FLOAT}},
		"shape": {Value: &attrpb.AttrValue_Shape{Shape: shape(8, 64)}}})
	wv := &attrpb.AttrValue{Value: &attrpb.AttrValue_Tensor{Tensor: &tensorpb.TensorProto{Dtype: tpb.DataType_DT_FLOAT, TensorShape: shape(64, 64)}}}
	missing := []string{"Softplus", "Softsign", "Selu", "Elu", "Erf"}
	for b := 0; len(g.Nodes) < n; b++ {
		w := add(fmt.Sprintf("w%d", b), "Const", map[string]*attrpb.AttrValue{
			"dtype": {Value: &attrpb.AttrValue_Type{Type: tpb.DataType_DT_FLOAT}}, "value": wv})
		mm := add(fmt.Sprintf("mm%d", b), "MatMul", tattr, prev, w)
		prev = add(fmt.Sprintf("relu%d", b), "Relu", tattr, mm)
		if b%40 == 39 {
			prev = add(fmt.Sprintf("odd%d", b), missing[(b/40)%len(missing)], tattr, prev)
		}
	}
	g.TopLevel = len(g.Nodes)
	return g
}

func benchMatchers() (coverage.Matcher, coverage.Matcher) {
	f := &attrpb.AttrValue{Value: &attrpb.AttrValue_List{List: &attrpb.AttrValue_ListValue{Type: []tpb.DataType{tpb.DataType_DT_FLOAT}}}}
	var ks []*kdpb.KernelDef
	for _, op := range []string{"MatMul", "Relu"} {
		ks = append(ks, &kdpb.KernelDef{Op: op, DeviceType: "XPU", Constraint: []*kdpb.KernelDef_AttrConstraint{{Name: "T", AllowedValues: f}}})
	}
	ks = append(ks, &kdpb.KernelDef{Op: "Const", DeviceType: "XPU"}, &kdpb.KernelDef{Op: "Placeholder", DeviceType: "XPU"})
	return coverage.NewIndex(&coverage.Pack{Name: "xpu", DeviceType: "XPU", Kernels: ks}, nil), everything{"CPU"}
}

// BenchmarkSimulate200k compares simulating a generated 200,000-node graph
// (placement, transfers, islands, and the what-if wishlist for its missing
// kernels) with the baseline of generating that graph in memory.
func BenchmarkSimulate200k(b *testing.B) {
	const n = 200_000
	b.Run("baseline_build_graph", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			genGraph(n)
		}
	})
	tm, cm := benchMatchers()
	g := genGraph(n)
	b.Run("simulate", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			r, err := placement.Simulate(g, tm, cm, placement.Options{})
			if err != nil || len(r.Wishlist) != 5 {
				b.Fatalf("err %v, wishlist %d", err, len(r.Wishlist))
			}
		}
	})
	b.Run("simulate_no_wishlist", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := placement.Simulate(g, tm, cm, placement.Options{NoWishlist: true}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// On a generated 20k-node graph every missing kernel gets a wish that
// removes the transfers around its islands (the benchmark above measures
// the cost at 200k nodes).
func TestWishlistIsLocal(t *testing.T) {
	if testing.Short() {
		t.Skip("sizes the simulation on 20k nodes")
	}
	tm, cm := benchMatchers()
	r, err := placement.Simulate(genGraph(20_000), tm, cm, placement.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Wishlist) != 5 || len(r.Islands) == 0 {
		t.Fatalf("wishlist %d islands %d", len(r.Wishlist), len(r.Islands))
	}
	for _, w := range r.Wishlist {
		// each odd op costs a D2H in and an H2D out per island (8×64 floats)
		if w.TransfersRemoved <= 0 || w.BytesRemoved <= 0 {
			t.Errorf("%+v removes nothing", w)
		}
	}
}

// BenchmarkFlattenNodeHeavy measures flattening (Scratch.Flatten) of the
// node-heavy shapes of about 200,000 nodes, flat and in 5,000 inlined
// functions, with a Scratch reserved outside the timer, as a scan reserves
// it while it builds the graph (a scan's profile shows the flattening of
// functions5k at about twice that of flat200k).
// Run: go test -bench FlattenNodeHeavy -run '^$' ./coverage/placement/
func BenchmarkFlattenNodeHeavy(b *testing.B) {
	for _, s := range benchmodel.NodeHeavy() {
		if s.Name == "flat1m" {
			continue
		}
		var (
			g *graph.Graph
			e placement.Extent
		)
		b.Run(s.Name, func(b *testing.B) {
			if g == nil { // once, not again for each b.N
				path, _, err := s.Write(b.TempDir())
				if err != nil {
					b.Fatal(err)
				}
				var m *savedmodel.Model
				m, g = testmodel.Load(b, path)
				nodes, inputs, _ := m.DecodedNodes()
				e = placement.Extent{Nodes: nodes, Inputs: inputs, Functions: len(g.Functions) > 0}
			}
			tm, _ := benchMatchers()
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				sc := new(placement.Scratch)
				sc.Reserve(e, true)
				runtime.GC() // the collection Reserve's garbage brings on is not the flattening's
				b.StartTimer()
				if err := sc.Flatten(g, tm, placement.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
