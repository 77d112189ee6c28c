package executor

import (
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/kernels"
	"github.com/tfscan/tfscan/savedmodel"
)

// What a run of a model feeds and fetches, as every command that runs
// models (run, parity, vectors) and anything that compares two runs choose
// it: the signature's inputs and outputs, or for a graph without one its
// Placeholders and sinks; feeds from a file keyed by signature input keys
// or tensor names; or the TF.js oracle's seeded values.

// Inputs returns what a run of g feeds: the signature's inputs, or, for a
// graph without one (sig nil), its top-level Placeholders.
func Inputs(g *graph.Graph, sig *savedmodel.Signature) []*savedmodel.TensorInfo {
	if sig != nil {
		return sig.Inputs
	}
	return PlaceholderInputs(g)
}

// Outputs returns what a run of g fetches by default, as tensor names, and
// the key each result is reported under: the signature's outputs by key
// order, or, for a graph without one (sig nil), its sinks (SinkOutputs)
// keyed by their names.
func Outputs(g *graph.Graph, sig *savedmodel.Signature) (names, keys []string) {
	if sig == nil {
		names = SinkOutputs(g)
		return names, names
	}
	outs := slices.Clone(sig.Outputs)
	sort.Slice(outs, func(i, j int) bool { return outs[i].Key < outs[j].Key })
	for _, o := range outs {
		names = append(names, o.Name)
		keys = append(keys, o.Key)
	}
	return names, keys
}

// FeedsFrom keys arrays by tensor name: a key that is one of sig's input
// keys becomes its tensor's name, any other key must name a top-level
// tensor of g ("x", "x:0", "block/add:1"). byTensor reports whether some
// key named a tensor rather than a signature input (see Executor.Run for
// what feeding any tensor means).
func FeedsFrom(g *graph.Graph, sig *savedmodel.Signature, arrays map[string]*kernels.Tensor) (feeds map[string]*kernels.Tensor, byTensor bool, err error) {
	var byName map[string]*graph.Node
	feeds = map[string]*kernels.Tensor{}
	for _, k := range slices.Sorted(maps.Keys(arrays)) {
		name, isKey := k, false
		if sig != nil {
			if info := findInfo(sig.Inputs, k); info != nil {
				name, isKey = info.Name, true
			}
		}
		if !isKey {
			if byName == nil {
				byName = topByName(g)
			}
			if _, err := resolve(byName, k); err != nil {
				return nil, false, fmt.Errorf("key %q is no input of the model: %w", k, err)
			}
			byTensor = true
		}
		if _, dup := feeds[name]; dup {
			return nil, false, fmt.Errorf("keys name input %s twice", name)
		}
		feeds[name] = arrays[k]
	}
	return feeds, byTensor, nil
}

// FindSignature returns the signature with key, or nil.
func FindSignature(sigs []*savedmodel.Signature, key string) *savedmodel.Signature {
	for _, s := range sigs {
		if s.Key == key {
			return s
		}
	}
	return nil
}

func findInfo(infos []*savedmodel.TensorInfo, key string) *savedmodel.TensorInfo {
	for _, i := range infos {
		if i.Key == key {
			return i
		}
	}
	return nil
}

func signatureKeys(sigs []*savedmodel.Signature) []string {
	var keys []string
	for _, s := range sigs {
		keys = append(keys, s.Key)
	}
	if len(keys) == 0 {
		return []string{"none"}
	}
	return keys
}

// SinkOutputs returns what a graph without signatures computes: the
// inputs of its _Retval nodes when it has them (in index order), else
// output 0 of every top-level node that nothing consumes and that has
// outputs, excluding Placeholders, Consts and variables, as "node:0",
// sorted.
func SinkOutputs(g *graph.Graph) []string {
	type ret struct {
		index int64
		name  string
	}
	var rets []ret
	for _, n := range g.Nodes[:g.TopLevel] {
		if n.Op == "_Retval" && len(n.Inputs) == 1 && n.Inputs[0].Node != nil {
			rets = append(rets, ret{n.Attrs["index"].GetI(), fmt.Sprintf("%s:%d", n.Inputs[0].Node.Name, n.Inputs[0].Output)})
		}
	}
	if len(rets) > 0 {
		sort.SliceStable(rets, func(i, j int) bool { return rets[i].index < rets[j].index })
		out := make([]string, len(rets))
		for i, r := range rets {
			out[i] = r.name
		}
		return out
	}
	consumed := map[*graph.Node]bool{}
	for _, n := range g.Nodes[:g.TopLevel] {
		for _, in := range n.Inputs {
			if in.Node != nil {
				consumed[in.Node] = true
			}
		}
		for _, c := range n.ControlInputs() {
			consumed[c] = true
		}
	}
	var out []string
	for _, n := range g.Nodes[:g.TopLevel] {
		if consumed[n] || numOutputs(n) == 0 {
			continue
		}
		switch n.Op {
		case "Placeholder", "PlaceholderWithDefault", "Const", "VariableV2", "Variable", "VarHandleOp", "NoOp":
			continue
		}
		out = append(out, n.Name+":0")
	}
	sort.Strings(out)
	return out
}

// PlaceholderInputs describes the top-level Placeholder nodes (inputs of a
// graph without signatures) as TensorInfos keyed and named "node:0", in
// graph order.
func PlaceholderInputs(g *graph.Graph) []*savedmodel.TensorInfo {
	var out []*savedmodel.TensorInfo
	for _, n := range g.Nodes[:g.TopLevel] {
		if n.Op != "Placeholder" && n.Op != "PlaceholderV2" {
			continue
		}
		info := &savedmodel.TensorInfo{Key: n.Name + ":0", Name: n.Name + ":0", DType: n.Attrs["dtype"].GetType()}
		s := n.Attrs["shape"].GetShape()
		if s == nil || s.GetUnknownRank() || !hasShapeAttrSet(n) {
			info.UnknownRank = true
		} else {
			info.Shape = []int64{}
			for _, d := range s.GetDim() {
				info.Shape = append(info.Shape, d.GetSize())
			}
		}
		out = append(out, info)
	}
	return out
}
