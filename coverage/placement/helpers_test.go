package placement

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"
	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"
	"google.golang.org/protobuf/encoding/prototext"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/dtype"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/savedmodel"
)

// buildGraph parses a text MetaGraphDef (graph_def { node {...} library {...} })
// and builds it with graph.Build. sigs are "key=in0,in1->out0,out1" with
// tensor names; input shapes come from the Placeholders.
func buildGraph(t testing.TB, text string, sigs ...string) *graph.Graph {
	t.Helper()
	g, err := buildGraphErr(t, text, sigs...)
	require.NoError(t, err)
	return g
}

// buildGraphErr is buildGraph for a graph TensorFlow refuses: Build still
// returns it, with the error.
func buildGraphErr(t testing.TB, text string, sigs ...string) (*graph.Graph, error) {
	t.Helper()
	def := &mgpb.MetaGraphDef{}
	require.NoError(t, prototext.Unmarshal([]byte(text), def))
	mg := &savedmodel.MetaGraph{Tags: []string{"serve"}, Def: def}
	for _, s := range sigs {
		key, io, _ := strings.Cut(s, "=")
		ins, outs, _ := strings.Cut(io, "->")
		sig := &savedmodel.Signature{Key: key}
		for i, in := range split(ins) {
			ti := &savedmodel.TensorInfo{Key: "in" + strconv.Itoa(i), Name: in, UnknownRank: true}
			for _, n := range def.GetGraphDef().GetNode() {
				if n.GetName()+":0" == in {
					sig.Inputs = append(sig.Inputs, ti)
					ti.DType = n.GetAttr()["dtype"].GetType()
					if sh := n.GetAttr()["shape"].GetShape(); sh != nil {
						ti.UnknownRank = false
						for _, d := range sh.GetDim() {
							ti.Shape = append(ti.Shape, d.GetSize())
						}
					}
				}
			}
		}
		for i, o := range split(outs) {
			sig.Outputs = append(sig.Outputs, &savedmodel.TensorInfo{Key: "out" + strconv.Itoa(i), Name: o})
		}
		mg.Signatures = append(mg.Signatures, sig)
	}
	m := &savedmodel.Model{Path: "test", File: "test/saved_model.pb", MetaGraphs: []*savedmodel.MetaGraph{mg}}
	g, err := graph.Build(m, mg)
	require.NotNil(t, g)
	return g, err
}

func split(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// kernels parses a compact registry, one KernelDef per line:
//
//	OP DEVICE [attr=v1|v2 ...] [host=arg1,arg2] [prio=N] [label=L]
//
// Type values use tfscan's dtype names; int values are numbers, bool
// values true/false.
func kernels(t testing.TB, text string) []*kdpb.KernelDef {
	t.Helper()
	var out []*kdpb.KernelDef
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		require.GreaterOrEqual(t, len(f), 2, line)
		k := &kdpb.KernelDef{Op: f[0], DeviceType: f[1]}
		for _, kv := range f[2:] {
			key, val, ok := strings.Cut(kv, "=")
			require.True(t, ok, kv)
			switch key {
			case "host":
				k.HostMemoryArg = strings.Split(val, ",")
			case "prio":
				p, err := strconv.Atoi(val)
				require.NoError(t, err)
				k.Priority = int32(p)
			case "label":
				k.Label = val
			default:
				l := &attrpb.AttrValue_ListValue{}
				for _, v := range strings.Split(val, "|") {
					if dt, ok := dtype.Parse(v); ok {
						l.Type = append(l.Type, dt)
					} else if i, err := strconv.ParseInt(v, 10, 64); err == nil {
						l.I = append(l.I, i)
					} else if v == "true" || v == "false" {
						l.B = append(l.B, v == "true")
					} else {
						l.S = append(l.S, []byte(v))
					}
				}
				k.Constraint = append(k.Constraint, &kdpb.KernelDef_AttrConstraint{Name: key,
					AllowedValues: &attrpb.AttrValue{Value: &attrpb.AttrValue_List{List: l}}})
			}
		}
		out = append(out, k)
	}
	return out
}

// matchers builds a target and a CPU matcher from one registry text: lines
// for the target device, for CPU and for DEFAULT.
func matchers(t testing.TB, target, text string) (coverage.Matcher, coverage.Matcher) {
	ks := kernels(t, text)
	var tk, ck, dk []*kdpb.KernelDef
	for _, k := range ks {
		switch k.DeviceType {
		case "CPU":
			ck = append(ck, k)
		case "DEFAULT":
			dk = append(dk, k)
		default:
			tk = append(tk, k)
		}
	}
	defaults := &coverage.Pack{Name: "default", DeviceType: "DEFAULT", Kernels: dk}
	tp := &coverage.Pack{Name: "target", DeviceType: target, Kernels: tk}
	cp := &coverage.Pack{Name: "cpu", DeviceType: "CPU", Kernels: ck}
	return coverage.NewIndex(tp, defaults), coverage.NewIndex(cp, defaults)
}

func simulate(t testing.TB, g *graph.Graph, target, reg string, opts Options) *Result {
	t.Helper()
	tm, cm := matchers(t, target, reg)
	r, err := Simulate(g, tm, cm, opts)
	require.NoError(t, err)
	return r
}

// devices maps node name → predicted device for the top-level nodes.
func devices(r *Result) map[string]string {
	out := map[string]string{}
	for _, n := range r.Nodes {
		if _, ok := out[n.Name]; !ok {
			out[n.Name] = n.Device
		}
	}
	return out
}

func reasonsOf(r *Result, name string) []string {
	for _, n := range r.Nodes {
		if n.Name == name {
			return n.Reasons
		}
	}
	return nil
}

// cpuAll is a CPU registry line for each op, no constraints.
func cpuAll(ops ...string) string {
	var b strings.Builder
	for _, op := range ops {
		b.WriteString(op + " CPU\n")
	}
	return b.String()
}
