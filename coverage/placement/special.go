package placement

import (
	"slices"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/dtype"
)

// special are the few nodes and edges of a flattened graph that some of
// the placer's walks act on, found by one walk for every simulation that
// shares the graph: what makes them special is their ops and types, which
// no target changes, and a large model has few or none, so that each
// simulation reads only them instead of every node's graph node.
type special struct {
	// coloc are the colocating edges (colocateResourceEdges).
	coloc []colocationEdge
	// variantIn are the nodes with a variant input (hostOnlyVariants).
	variantIn []int32
	// ctrlFlow are the nodes with inputs whose op is Switch, RefSwitch,
	// Exit, RefExit, Enter or NextIteration (fixControlFlow).
	ctrlFlow []int32
	// fetch are the nodes that fetch a function's results (pnode.fetch;
	// transfers).
	fetch []int32
	// fusionHeads are the first instances of graph nodes whose op may
	// head a fusion (fusions): Conv2D, MatMul and FusedBatchNorm.
	fusionHeads []int32
}

// colocationEdge is an edge from node src to node dst that colocates its
// ends (colocateResourceEdges), of a kind in colocationEdgeKinds.
type colocationEdge struct {
	src, dst int32
	kind     uint8
}

var colocationEdgeKinds = [...]string{"dataset variant edge", "resource edge", "reference edge"}

// special is the simulation's special nodes: the flattened graph's, found
// once, unless auto mixed precision gave some nodes lookup nodes of their
// own (with their own types): then the simulation's own, found again.
func (s *sim) special() *special {
	if len(s.amp) > 0 {
		if s.ownSpecial == nil {
			s.ownSpecial = findSpecial(s.nodes, &s.links, s.crossAt, s.firstOf, nil, 0, nil)
		}
		return s.ownSpecial
	}
	return s.flat.walk()
}

// Per lookup class (findSpecial): what its op and input types make of its
// nodes.
const (
	classKnown     = 1 << iota
	classColocates // an input type is a resource, a ref or a variant
	classVariant   // an input type is a variant
	classCtrlFlow  // one of fixControlFlow's ops
	classClassAttr // a _class attr
	classOneOut    // one output, not a ref (isGenerator, with no input)
	classMetadata  // isMetadata
	classSystem    // _Arg or _Retval
	classFusion    // an op that may head a fusion
)

// findSpecial walks nodes once. The colocating edges, in the order of
// their consumers and inputs, are the resource and ref edges but those to
// a colocation-exempt op and those crossing a session-graph call
// (docs/placement.md#calls-in-a-session-graph, crossAt), and the
// dataset-to-dataset variant edges, none of them to or from a client feed
// or fetch. With the nodes' lookup classes (classOf, not nil) a class's op,
// attrs and types, which its op and attr map give, are read once. With f
// (not nil) it fills f's flags, kinds (arrays of a flag a node, which
// shared makes) and withClass too. ln are the nodes' inputs.
func findSpecial(nodes []*pnode, ln *links, crossAt map[[2]int32]int32, firstOf []int32, classOf []int32, classes int, f *flattened) *special {
	sp := &special{}
	var memo []uint16
	if classOf != nil {
		memo = make([]uint16, classes)
	}
	kindOf := func(p *pnode) uint16 {
		k := uint16(classKnown)
		if p.src != nil {
			if _, ok := p.src.Attrs["_class"]; ok {
				k |= classClassAttr
			}
		}
		if p.look() != nil {
			if slices.ContainsFunc(p.inTypes(), colocatingType) {
				k |= classColocates
			}
			if slices.Contains(p.inTypes(), tpb.DataType_DT_VARIANT) {
				k |= classVariant
			}
			switch p.op() {
			case "Switch", "RefSwitch", "Exit", "RefExit", "Enter", "NextIteration":
				k |= classCtrlFlow
			case "Conv2D", "MatMul", "FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3":
				k |= classFusion
			}
			if p.oneValueOut() {
				k |= classOneOut
			}
			if p.isMetadata() {
				k |= classMetadata
			}
			if op := p.op(); op == "_Arg" || op == "_Retval" {
				k |= classSystem
			}
		}
		return k
	}
	for i, p := range nodes {
		var k uint16
		// A class's nodes have one op, OpDef and attr map: their graph
		// node's (the _class attr's) when it is their lookup node.
		if memo != nil && classOf[i] >= 0 && p.src == p.look() {
			c := classOf[i]
			if memo[c] == 0 {
				memo[c] = kindOf(p)
			}
			k = memo[c]
		} else {
			k = kindOf(p)
		}
		if f != nil {
			if k&classClassAttr != 0 {
				f.withClass = append(f.withClass, int32(i))
			}
			// opFlagsOf, from the class.
			fl := nodeFlagsOf(p)
			if k&classOneOut != 0 && p.in.n == 0 {
				fl |= flagGenerator
				f.generators++
			}
			if k&classMetadata != 0 {
				fl |= flagMetadata
			}
			if k&classSystem != 0 {
				fl |= flagSystem
			}
			f.flags[i] = fl
			f.kinds[i] = placeKindOf(p)
		}
		if p.is(pFetch) {
			sp.fetch = append(sp.fetch, int32(i))
		}
		if p.is(pGhost) {
			continue
		}
		if k&classFusion != 0 && p.src != nil && p.src.ID >= 0 && p.src.ID < len(firstOf) && int(firstOf[p.src.ID]) == i {
			sp.fusionHeads = append(sp.fusionHeads, int32(i))
		}
		if k&classVariant != 0 {
			sp.variantIn = append(sp.variantIn, int32(i))
		}
		if p.in.n == 0 {
			continue
		}
		if k&classCtrlFlow != 0 {
			sp.ctrlFlow = append(sp.ctrlFlow, int32(i))
		}
		if k&classColocates == 0 {
			continue
		}
		for j, q := range ln.inputs(p) {
			if q.n < 0 || nodes[q.n].is(pGhost) {
				continue
			}
			t := tpb.DataType_DT_INVALID
			if j < len(p.inTypes()) {
				t = p.inTypes()[j]
			}
			src := nodes[q.n]
			var kind uint8
			switch {
			case t == tpb.DataType_DT_VARIANT && isDatasetOp(src) && isDatasetOp(p):
				kind = 0
			case (t == tpb.DataType_DT_RESOURCE || dtype.IsRef(t)) && !colocationExempt[p.op()]:
				kind = 1
				if dtype.IsRef(t) {
					kind = 2
				}
			default:
				continue
			}
			if src.is(pIO) || p.is(pIO) {
				continue
			}
			if _, ok := crossAt[[2]int32{int32(i), int32(j)}]; ok && kind != 0 {
				continue // the call is between them
			}
			sp.coloc = append(sp.coloc, colocationEdge{src: q.n, dst: int32(i), kind: kind})
		}
	}
	return sp
}

// colocatingType is an input type whose edge may colocate its ends.
func colocatingType(t tpb.DataType) bool {
	return t == tpb.DataType_DT_VARIANT || t == tpb.DataType_DT_RESOURCE || dtype.IsRef(t)
}
