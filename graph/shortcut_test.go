package graph

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"
	"google.golang.org/protobuf/proto"

	"github.com/tfscan/tfscan/internal/testutil"
	"github.com/tfscan/tfscan/savedmodel"
)

// shareAttrs gives the NodeDefs of mg whose attr holds the same small
// value one AttrValue message, and those whose attrs are all such values
// and the same one map, as savedmodel's binary decoder does (wire.go,
// sharedMax, sharedMapMax), so that text models and fuzzed GraphDefs reach
// Build's attr sets (attrset.go) too.
func shareAttrs(mg *savedmodel.MetaGraph) {
	gd := mg.Def.GetGraphDef()
	lists := [][]*nodepb.NodeDef{gd.GetNode()}
	for _, fd := range gd.GetLibrary().GetFunction() {
		lists = append(lists, fd.GetNodeDef())
	}
	seen := map[string]*attrpb.AttrValue{}
	maps := map[string]map[string]*attrpb.AttrValue{}
	for _, nodes := range lists {
		for _, nd := range nodes {
			all := len(nd.GetAttr()) > 0
			for k, v := range nd.GetAttr() {
				b, err := proto.MarshalOptions{Deterministic: true}.Marshal(v)
				if err != nil || len(b) > 64 || !savedmodel.Shareable(v) {
					all = false
					continue
				}
				if p, ok := seen[string(b)]; ok {
					nd.Attr[k] = p
				} else {
					seen[string(b)] = v
				}
			}
			// A map whose values are all shared is one map per content.
			if !all {
				continue
			}
			b, err := proto.MarshalOptions{Deterministic: true}.Marshal(&nodepb.NodeDef{Attr: nd.Attr})
			if err != nil {
				continue
			}
			if m, ok := maps[string(b)]; ok {
				nd.Attr = m
			} else {
				maps[string(b)] = nd.Attr
			}
		}
	}
}

// requireSameBuild checks that Build gives what a plain build (without
// its shortcuts: attr sets, paths known unique) gives for mg: the same
// nodes with the same attr messages, dtypes, edges, calls and paths, and
// the same problems.
func requireSameBuild(t testing.TB, m *savedmodel.Model, mg *savedmodel.MetaGraph) {
	t.Helper()
	got, gotErr := Build(m, mg)
	want, wantErr := buildGraph(m, mg, nil, true)
	if want == nil {
		require.Nil(t, got)
		return
	}
	require.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(gotErr))
	require.Len(t, got.Nodes, len(want.Nodes))
	for i, w := range want.Nodes {
		g := got.Nodes[i]
		require.Equal(t, w.Path(), g.Path(), "node %d", i)
		require.Equal(t, len(w.Attrs), len(g.Attrs), w.Path())
		require.Equal(t, w.Attrs == nil, g.Attrs == nil, w.Path())
		for k, v := range w.Attrs {
			require.Same(t, v, g.Attrs[k], "%s attr %s", w.Path(), k)
		}
		// A node keeps its own map when no default was missing.
		if len(w.Attrs) == len(w.Def.GetAttr()) && len(w.Attrs) > 0 {
			w.Def.Attr["\x00probe"] = nil
			_, own := g.Attrs["\x00probe"]
			delete(w.Def.Attr, "\x00probe")
			require.True(t, own, "%s: not its NodeDef's map", w.Path())
		}
		require.Equal(t, w.InputTypes(), g.InputTypes(), w.Path())
		require.Equal(t, w.OutputTypes(), g.OutputTypes(), w.Path())
		require.Equal(t, w.Unknown, g.Unknown, w.Path())
		require.Equal(t, w.Reachable, g.Reachable, w.Path())
		require.Equal(t, len(w.Inputs), len(g.Inputs), w.Path())
		for j, in := range w.Inputs {
			gi := g.Inputs[j]
			require.Equal(t, in.Node == nil, gi.Node == nil, w.Path())
			if in.Node != nil {
				require.Equal(t, in.Node.ID, gi.Node.ID, w.Path())
			}
			require.Equal(t, [2]int32{in.Output, in.Arg}, [2]int32{gi.Output, gi.Arg}, w.Path())
		}
		require.Equal(t, len(w.Calls()), len(g.Calls()), w.Path())
		for j, f := range w.Calls() {
			require.Equal(t, f.Name, g.Calls()[j].Name, w.Path())
		}
	}
	require.Equal(t, len(want.Diagnostics), len(got.Diagnostics))
	for i, d := range want.Diagnostics {
		require.Equal(t, [4]any{d.Kind, d.Path, d.Message, d.Fatal}, [4]any{got.Diagnostics[i].Kind, got.Diagnostics[i].Path, got.Diagnostics[i].Message, got.Diagnostics[i].Fatal})
	}
}

// Build's shortcuts give every model of the corpus the graph a plain
// build gives, its attrs shared as the binary decoder shares them.
func TestShortcutsCorpus(t *testing.T) {
	models, err := savedmodel.Discover(testutil.Corpus(t))
	require.NoError(t, err)
	require.NotEmpty(t, models)
	for _, path := range models {
		t.Run(path, func(t *testing.T) {
			m, err := savedmodel.Load(path)
			if err != nil {
				return // bad input, tested elsewhere
			}
			for _, mg := range m.MetaGraphs {
				requireSameBuild(t, m, mg)
				shareAttrs(mg)
				requireSameBuild(t, m, mg)
			}
		})
	}
}

// Paths that collide without any name occurring twice in one graph: a
// top-level name spelling a function node's path, or two uncalled
// functions whose names and node names spell the same path. The check
// that paths are unique must see each.
func TestPathsUniqueSeesCollisions(t *testing.T) {
	for _, tt := range []struct {
		name, graph string
		want        []string
	}{
		{"top-level name", `graph_def {
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }` + callNode("call", "x", "f") + `
  node { name: "s/call/f/mul" op: "NoOp" }
  library { ` + fnDef("f", "") + ` }
}`, []string{"x", "call", "s/call/f/mul", "s/call/f/mul#2"}},
		{"function names", `graph_def {
  node { name: "z" op: "NoOp" }
  library { ` + fnDef("a", `node_def { name: "b/mul" op: "NoOp" }`) + ` ` + fnDef("a/b", "") + ` }
}`, []string{"z", "a/mul", "a/b/mul", "a/b/mul#2"}},
		{"no collision", `graph_def {
  node { name: "s/call/f" op: "NoOp" }
  node { name: "s/call/g/mul" op: "NoOp" }
  library { ` + fnDef("a", `node_def { name: "b" op: "NoOp" }`) + ` ` + fnDef("b", "") + ` }
}`, []string{"s/call/f", "s/call/g/mul", "a/mul", "a/b", "b/mul"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g, err := buildErr(t, tt.graph, "s=call:0")
			var ie *InvalidGraphError
			if err != nil {
				require.ErrorAs(t, err, &ie)
			}
			var got []string
			for _, n := range g.Nodes {
				got = append(got, n.Path())
			}
			assert.Equal(t, tt.want, got)
			requireSameBuild(t, g.Model, g.MetaGraph)
		})
	}
}
