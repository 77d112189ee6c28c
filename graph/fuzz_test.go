package graph

import (
	"errors"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	gpb "github.com/wamuir/graft/tensorflow/core/framework/graph_go_proto"
	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"
	tensorpb "github.com/wamuir/graft/tensorflow/core/framework/tensor_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"

	"github.com/tfscan/tfscan/savedmodel"
	"github.com/tfscan/tfscan/savedmodel/modelgen"
)

// FuzzBuild feeds arbitrary GraphDef bytes to Build: it must not panic and
// must terminate on cycles, recursion and dangling references; a graph it
// refuses is still whole and its error is one line naming the file. The
// 200-node cap keeps each input fast; the shape of the graph is what is
// fuzzed. The hostile models of modelgen are seeds.
// Run: go test -run '^$' -fuzz FuzzBuild -fuzztime 90s ./graph/
func FuzzBuild(f *testing.F) {
	seeds := []string{
		`node { name: "a" op: "Identity" input: "b" } node { name: "b" op: "Identity" input: "a:0" input: "^c" }`,
		`node { name: "x" op: "f" } library { function { signature { name: "f" output_arg { name: "y" type: DT_FLOAT } }
		   node_def { name: "n" op: "f" } node_def { name: "m" op: "AddN" input: "n:y:7" input: "q" attr { key: "N" value { i: 99999999999 } } }
		   ret { key: "y" value: "n:y:0" } } }`,
		`node { name: "w" op: "While" attr { key: "body" value { func { name: "g" } } } attr { key: "cond" value { list { func { name: "g" } func { name: "nope" } } } } }
		 library { function { signature { name: "g" } node_def { name: "c" op: "PartitionedCall" attr { key: "f" value { func { name: "g" } } } } } }`,
		`node { name: "m" op: "Merge" input: "e" input: "n" } node { name: "e" op: "Enter" input: "m" } node { name: "n" op: "NextIteration" input: "m" }`,
		`node { name: "s" op: "IdentityN" input: "s:1" attr { key: "T" value { list { type: DT_FLOAT type: DT_FLOAT_REF } } } }`,
	}
	for _, s := range seeds {
		gd := &gpb.GraphDef{}
		if err := prototext.Unmarshal([]byte(s), gd); err != nil {
			f.Fatalf("seed %q: %v", s, err)
		}
		b, err := proto.Marshal(gd)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	graphs := []*gpb.GraphDef{modelgen.CallChain(20).GetMetaGraphs()[0].GetGraphDef()} // shortened paths
	for _, h := range modelgen.HostileModels() {
		graphs = append(graphs, h.Graph)
	}
	for _, gd := range graphs {
		b, err := proto.Marshal(gd)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		gd := &gpb.GraphDef{}
		if proto.Unmarshal(data, gd) != nil {
			return
		}
		n := len(gd.GetNode())
		for _, fd := range gd.GetLibrary().GetFunction() {
			n += len(fd.GetNodeDef())
		}
		if n > 200 {
			return
		}
		def := &mgpb.MetaGraphDef{GraphDef: gd}
		mg := &savedmodel.MetaGraph{Def: def, Signatures: []*savedmodel.Signature{{Key: "s", Outputs: []*savedmodel.TensorInfo{{Name: "a:0"}, {Name: "x"}}}}}
		m := &savedmodel.Model{File: "fuzz.pb", MetaGraphs: []*savedmodel.MetaGraph{mg}}
		g, err := Build(m, mg)
		if err != nil {
			var ie *InvalidGraphError
			if !errors.As(err, &ie) {
				return
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "fuzz.pb: ") || strings.ContainsAny(msg, "\n\r") || len(ie.Problems) == 0 {
				t.Fatalf("bad refusal %q", msg)
			}
		}
		seen := map[string]bool{}
		for _, n := range g.Nodes {
			if seen[n.Path()] {
				t.Fatalf("duplicate path %q", n.Path())
			}
			seen[n.Path()] = true
			_ = n.DTypes()
			_ = g.Consumers(n)
		}
		if len(g.Topo()) != g.TopLevel {
			t.Fatalf("topo has %d of %d nodes", len(g.Topo()), g.TopLevel)
		}
		if ph := g.Phases(""); len(ph) != len(g.Nodes) {
			t.Fatalf("%d phases for %d nodes", len(ph), len(g.Nodes))
		}
		// Without signatures the step comes from the sinks.
		bare := &savedmodel.MetaGraph{Def: def}
		if g, err := Build(&savedmodel.Model{File: "fuzz.pb", MetaGraphs: []*savedmodel.MetaGraph{bare}}, bare); err == nil {
			if ph := g.Phases(""); !slices.Equal(ph, phasesWalked(g, "")) {
				t.Fatalf("phases from the build's reachability differ from the walk's")
			}
		}
		// Build's shortcuts give what a plain build gives, also with attrs
		// shared as the binary decoder shares them.
		requireSameBuild(t, m, mg)
		shareAttrs(mg)
		requireSameBuild(t, m, mg)
	})
}

// FuzzParseTensorName checks the tensor-name parser against what it must
// give back: "name:index", "^name" or the whole string.
// Run: go test -run '^$' -fuzz FuzzParseTensorName -fuzztime 60s ./graph/
func FuzzParseTensorName(f *testing.F) {
	for _, s := range []string{"x", "x:0", "^x", "^x:1", "a/b:12", "x:", ":3", "x:+1", "x:99999999999", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		name, idx, ctl := ParseTensorName(s)
		switch {
		case ctl:
			if "^"+name != s || idx != 0 {
				t.Fatalf("%q: control %q %d", s, name, idx)
			}
		case name != s:
			if idx < 0 || !strings.HasPrefix(s, name+":") {
				t.Fatalf("%q: %q %d", s, name, idx)
			}
			digits := s[len(name)+1:]
			if digits == "" || strings.Trim(digits, "0123456789") != "" {
				t.Fatalf("%q: index %q is not digits", s, digits)
			}
		case idx != 0:
			t.Fatalf("%q: whole name with index %d", s, idx)
		}
	})
}

// Build must not copy Const tensor contents: a 16 MiB constant costs it
// (almost) nothing.
func TestBuildDoesNotCopyTensors(t *testing.T) {
	content := make([]byte, 16<<20)
	gd := &gpb.GraphDef{Node: []*nodepb.NodeDef{{Name: "c", Op: "Const", Attr: map[string]*attrpb.AttrValue{
		"dtype": {Value: &attrpb.AttrValue_Type{Type: tpb.DataType_DT_FLOAT}},
		"value": {Value: &attrpb.AttrValue_Tensor{Tensor: &tensorpb.TensorProto{Dtype: tpb.DataType_DT_FLOAT, TensorContent: content}}},
	}}}}
	mg := &savedmodel.MetaGraph{Def: &mgpb.MetaGraphDef{GraphDef: gd}}
	m := &savedmodel.Model{File: "x.pb", MetaGraphs: []*savedmodel.MetaGraph{mg}}
	Default() // load the embedded registry outside the measurement
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	g, err := Build(m, mg)
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20))
	got := g.Nodes[0].Attrs["value"].GetTensor().GetTensorContent()
	assert.Same(t, &content[0], &got[0])
}
