package shape

import (
	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/graph"
)

// What a resource tensor refers to (its handle data) is how TensorFlow
// knows the shape of a variable's value where only its handle is at hand:
// in a function body that receives the handle as an argument, after an
// Identity, across a call. The rules here follow the shape functions of
// tensorflow/core/ops/resource_variable_ops.cc, lookup_ops.cc and
// function_ops.cc (TF 2.15); line numbers below are of that tree.

// forwardsHandle are the ops whose output is their input's resource
// handle: UnchangedShape (framework/common_shape_fns.cc:109-116) and the
// control-flow shape fns that copy handle data (control_flow_ops.cc:30-44
// Switch, :175-199 Enter). IdentityN's shape fn (array_ops.cc:1337) does
// not copy it, but its kernel forwards the same handle tensors
// (kernels/identity_n_op.h), so the variable behind them is the same.
var forwardsHandle = map[string]bool{
	"Identity": true, "Snapshot": true, "IdentityN": true, "Enter": true, "RefEnter": true,
	"Exit": true, "RefExit": true, "NextIteration": true, "RefNextIteration": true,
	"Switch": true, "RefSwitch": true, "RefIdentity": true,
}

// resourceOps are the ops resourceRule has a case for: most nodes are none
// of them, and are told so with one lookup rather than one for each map the
// cases read.
var resourceOps = func() map[string]bool {
	m := map[string]bool{}
	for op := range forwardsHandle {
		m[op] = true
	}
	for op := range tableOps {
		m[op] = true
	}
	for _, op := range []string{"Merge", "RefMerge", "_Arg", "VarHandleOp", "_VarHandlesOp", "ReadVariableOp",
		"_ReadVariablesOp", "VariableShape", "ResourceGather", "LookupTableFindV2", "LookupTableFind",
		"LookupTableExportV2", "LookupTableExport", "LookupTableSizeV2", "LookupTableSize"} {
		m[op] = true
	}
	return m
}()

// resourceRule infers the ops that create, forward or read a resource; it
// reports whether n was one of them.
func (s *Shapes) resourceRule(n *graph.Node, ins, outs []Tensor) bool {
	if !resourceOps[n.Op] {
		return false
	}
	in := func(i int) Tensor {
		if i < len(ins) {
			return ins[i]
		}
		return Tensor{Shape: unknownRank()}
	}
	a := n.Attrs
	switch op := n.Op; {
	case forwardsHandle[op]:
		// The shape rules for these ops stay in rule; only the handle here.
		for i := range outs {
			j := 0
			if op == "IdentityN" {
				j = i
			}
			outs[i].Handle = in(j).Handle
		}
		return false
	case op == "Merge" || op == "RefMerge":
		// MergeShape (control_flow_ops.cc:124-147) keeps no handle data; the
		// output is one of the inputs, so it is known when they all agree.
		if h := in(0).Handle; h != nil && len(outs) > 0 {
			same := true
			for _, t := range ins[1:] {
				same = same && sameHandle(h, t.Handle)
			}
			if same {
				outs[0].Handle = h
			}
		}
		return false
	case op == "_Arg":
		// function_ops.cc:30-85: `_output_shapes` (applied by node) gives the
		// shape, `_handle_dtypes`/`_handle_shapes` a resource's handle data.
		if len(outs) > 0 && a["T"].GetType() == tpb.DataType_DT_RESOURCE {
			outs[0].Handle = attrHandle(a["_handle_dtypes"], a["_handle_shapes"])
		}
		return true
	case op == "VarHandleOp":
		// resource_variable_ops.cc:101-112: a scalar handle to a variable
		// of the shape and dtype in its attrs.
		if len(outs) > 0 {
			outs[0].Shape = known()
			outs[0].Handle = []ShapeAndType{{Shape: attrShape(a["shape"]), DType: a["dtype"].GetType()}}
		}
		return true
	case op == "_VarHandlesOp":
		// resource_variable_ops.cc:114-143.
		dts, shs := a["dtypes"].GetList().GetType(), a["shapes"].GetList().GetShape()
		for i := range outs {
			outs[i].Shape = known()
			if len(dts) == len(outs) && len(shs) == len(outs) {
				outs[i].Handle = []ShapeAndType{{Shape: fromProto(shs[i]), DType: dts[i]}}
			}
		}
		return true
	case op == "ReadVariableOp":
		// ReadVariableShapeFn (resource_variable_ops.cc:34-58): a `_shape`
		// annotation wins, else the handle's shape (a dtype that does not
		// match is an error in TensorFlow; the shape stays unknown).
		if len(outs) == 0 {
			return true
		}
		if sh, ok := a["_shape"]; ok && sh.GetShape() != nil {
			outs[0].Shape = fromProto(sh.GetShape())
		} else if v, ok := variable(in(0), a["dtype"].GetType()); ok {
			outs[0].Shape = v.Shape
		}
		return true
	case op == "_ReadVariablesOp":
		// ReadVariablesShapeFn (resource_variable_ops.cc:60-88).
		dts := a["dtypes"].GetList().GetType()
		for i := range outs {
			if i < len(dts) {
				if v, ok := variable(in(i), dts[i]); ok {
					outs[i].Shape = v.Shape
				}
			}
		}
		return true
	case op == "VariableShape":
		// VariableShapeShapeFn (resource_variable_ops.cc:220-231): a vector
		// of the variable's rank; its value is the variable's shape.
		if len(outs) == 0 {
			return true
		}
		outs[0].Shape = known(Unknown)
		if v, ok := variable(in(0), tpb.DataType_DT_INVALID); ok && v.Shape.Rank() >= 0 {
			outs[0].Shape = known(int64(v.Shape.Rank()))
			if v.Shape.FullyKnown() {
				outs[0].Value = append([]int64(nil), v.Shape.Dims...)
			}
		}
		return true
	case op == "ResourceGather":
		// resource_variable_ops.cc:239-293: params[:batch_dims] ++
		// indices[batch_dims:] ++ params[batch_dims+1:].
		v, ok := variable(in(0), a["dtype"].GetType())
		idx, bd := in(1).Shape, int(a["batch_dims"].GetI())
		if ok && len(outs) > 0 && v.Shape.Rank() > bd && idx.Rank() >= bd && bd >= 0 {
			d := append([]int64(nil), v.Shape.Dims[:bd]...)
			d = append(d, idx.Dims[bd:]...)
			d = append(d, v.Shape.Dims[bd+1:]...)
			outs[0].Shape = Shape{Dims: d}
		}
		return true
	case tableOps[op] != nil:
		if len(outs) > 0 {
			outs[0].Handle = tableOps[op](n, ins)
			if op == "HashTable" || op == "MutableHashTable" || op == "MutableHashTableOfTensors" || op == "MutableDenseHashTable" {
				outs[0].Shape = known(2) // a Ref(string) of two elements (lookup_ops.cc:59-62)
			} else {
				outs[0].Shape = known()
			}
		}
		return true
	case op == "LookupTableFindV2" || op == "LookupTableFind":
		if len(outs) > 0 {
			outs[0].Shape = lookup(in(0).Handle, in(1).Shape, a["Tout"].GetType())
		}
		return true
	case op == "LookupTableExportV2" || op == "LookupTableExport":
		// TensorFlow's shape fns give the v1 op keys of Vector(?) and
		// values of rank ≥ 1 (lookup_ops.cc:246-257), the V2 op nothing
		// (:266-281). The kernels export every entry: keys [size] ++ the
		// key shape, values [size] ++ the value shape
		// (kernels/lookup_table_op.cc:124-135, :311-323; a dense table its
		// buckets, :629-660). size is what the table holds when the op
		// runs, data rather than graph: the ranks are known from the
		// table's handle data, the sizes and bytes stay unknown.
		if len(outs) != 2 {
			return true
		}
		outs[0].Shape = known(Unknown)
		if h := in(0).Handle; len(h) == 2 && !h[0].Shape.UnknownRank && !h[1].Shape.UnknownRank {
			outs[0].Shape = Shape{Dims: append([]int64{Unknown}, h[0].Shape.Dims...)}
			outs[1].Shape = Shape{Dims: append([]int64{Unknown}, h[1].Shape.Dims...)}
		}
		return true
	case op == "LookupTableSizeV2" || op == "LookupTableSize":
		// ScalarAndTwoElementVectorInputsAndScalarOutputs (lookup_ops.cc:45-57)
		// and, for the v1 op, TwoElementVectorInputsAndScalarOutputs (:32-43).
		if len(outs) > 0 {
			outs[0].Shape = known()
		}
		return true
	}
	return false
}

// variable is the handle data of a variable handle whose value has dtype
// want (DT_INVALID: any), as ValidateVariableResourceHandle
// (framework/shape_inference.cc) checks it.
func variable(t Tensor, want tpb.DataType) (ShapeAndType, bool) {
	if len(t.Handle) == 0 {
		return ShapeAndType{}, false
	}
	v := t.Handle[0]
	if want != tpb.DataType_DT_INVALID && v.DType != want {
		return ShapeAndType{}, false
	}
	return v, true
}

func sameHandle(a, b []ShapeAndType) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].DType != b[i].DType || !sameShape(a[i].Shape, b[i].Shape) {
			return false
		}
	}
	return true
}

func sameShape(a, b Shape) bool {
	if a.UnknownRank || b.UnknownRank {
		return a.UnknownRank == b.UnknownRank
	}
	if len(a.Dims) != len(b.Dims) {
		return false
	}
	for i := range a.Dims {
		if a.Dims[i] != b.Dims[i] {
			return false
		}
	}
	return true
}

// attrHandle reads handle data written as `_handle_dtypes` and
// `_handle_shapes` (an _Arg's attrs, or a FunctionDef's arg_attr, which
// instantiation copies onto the _Arg: framework/function.cc:223-225). TF
// takes the first entry (function_ops.cc:76-82).
func attrHandle(dtypes, shapes *attrpb.AttrValue) []ShapeAndType {
	dts, shs := dtypes.GetList().GetType(), shapes.GetList().GetShape()
	if len(dts) == 0 || len(shs) == 0 {
		return nil
	}
	return []ShapeAndType{{Shape: fromProto(shs[0]), DType: dts[0]}}
}

// tableOps give the handle data of a lookup table: its keys' shape and
// dtype, then its values'. TensorFlow's shape fns set it for the mutable
// V2 tables (lookup_ops.cc:319-358); for the initializable ones
// (HashTable, HashTableV2) and the v1 Ref(string) tables
// (TwoElementOutput) they set none (lookup_ops.cc:360-385), but the
// kernels' keys and values are the same (scalars for the initializable
// tables, kernels/initializable_lookup_table.h:72-74), which is what
// LookupTableFindOp sizes its output by (kernels/lookup_table_op.cc:923-925).
var tableOps = map[string]func(n *graph.Node, ins []Tensor) []ShapeAndType{
	"HashTable":                          scalarTable,
	"HashTableV2":                        scalarTable,
	"AnonymousHashTable":                 scalarTable,
	"MutableHashTable":                   scalarTable,
	"MutableHashTableV2":                 scalarTable,
	"AnonymousMutableHashTable":          scalarTable,
	"MutableHashTableOfTensors":          tensorTable,
	"MutableHashTableOfTensorsV2":        tensorTable,
	"AnonymousMutableHashTableOfTensors": tensorTable,
	"MutableDenseHashTable":              denseTable,
	"MutableDenseHashTableV2":            denseTable,
	"AnonymousMutableDenseHashTable":     denseTable,
}

func scalarTable(n *graph.Node, _ []Tensor) []ShapeAndType {
	return []ShapeAndType{{Shape: known(), DType: n.Attrs["key_dtype"].GetType()}, {Shape: known(), DType: n.Attrs["value_dtype"].GetType()}}
}

// tensorTable: scalar keys, values of the value_shape attr
// (MutableHashTableOfTensorsShapeFn, lookup_ops.cc:344-350).
func tensorTable(n *graph.Node, _ []Tensor) []ShapeAndType {
	return []ShapeAndType{{Shape: known(), DType: n.Attrs["key_dtype"].GetType()}, {Shape: attrShape(n.Attrs["value_shape"]), DType: n.Attrs["value_dtype"].GetType()}}
}

// denseTable: keys shaped like the empty_key input, values of the
// value_shape attr (MutableDenseHashTableShapeFn, lookup_ops.cc:352-358).
func denseTable(n *graph.Node, ins []Tensor) []ShapeAndType {
	key := unknownRank()
	if len(ins) > 0 {
		key = ins[0].Shape
	}
	return []ShapeAndType{{Shape: key, DType: n.Attrs["key_dtype"].GetType()}, {Shape: attrShape(n.Attrs["value_shape"]), DType: n.Attrs["value_dtype"].GetType()}}
}

// lookup is the shape of a table lookup's values: the keys' shape without
// the table's key dimensions, then the table's value shape
// (ValidateTableResourceHandle, lookup_ops.cc:116-158).
func lookup(table []ShapeAndType, keys Shape, tout tpb.DataType) Shape {
	if len(table) != 2 || table[1].DType != tout || keys.UnknownRank || table[0].Shape.UnknownRank || table[1].Shape.UnknownRank {
		return unknownRank()
	}
	kr := table[0].Shape.Rank()
	if keys.Rank() < kr {
		return unknownRank()
	}
	d := append([]int64(nil), keys.Dims[:keys.Rank()-kr]...)
	return Shape{Dims: append(d, table[1].Shape.Dims...)}
}

// argHandle is the handle data of f's argument i where f's callers do not
// give it: the signature's handle_data (op_def.proto:50, what
// function_def_to_graph.py:391-409 sets on the argument), the arg_attr
// `_handle_dtypes`/`_handle_shapes`, or the variable a SavedModel's object
// graph binds to a captured argument.
func (s *Shapes) argHandle(f *graph.Function, i int) []ShapeAndType {
	if args := f.Def.GetSignature().GetInputArg(); i < len(args) {
		if hd := args[i].GetHandleData(); len(hd) > 0 {
			out := make([]ShapeAndType, len(hd))
			for k, h := range hd {
				out[k] = ShapeAndType{Shape: fromProto(h.GetShape()), DType: h.GetDtype()}
			}
			return out
		}
	}
	if aa := f.Def.GetArgAttr()[uint32(i)].GetAttr(); aa != nil {
		if h := attrHandle(aa["_handle_dtypes"], aa["_handle_shapes"]); h != nil {
			return h
		}
	}
	if c := s.captured[f.Name]; i < len(c) {
		return c[i]
	}
	return nil
}

// capturedHandles reads a SavedModel's object graph: a concrete
// function's bound_inputs are the objects its last arguments capture
// (core/function/capture/restore_captures.py:95-97), and a SavedVariable
// records its dtype and shape. Functions without variables are left out.
func capturedHandles(g *graph.Graph) map[string][][]ShapeAndType {
	if g.MetaGraph == nil {
		return nil
	}
	og := g.MetaGraph.Def.GetObjectGraphDef()
	nodes := og.GetNodes()
	out := map[string][][]ShapeAndType{}
	for name, cf := range og.GetConcreteFunctions() {
		f := g.FunctionByName[name]
		bound := cf.GetBoundInputs()
		if f == nil || len(bound) == 0 {
			continue
		}
		nargs := len(f.Def.GetSignature().GetInputArg())
		if len(bound) > nargs {
			continue
		}
		args := make([][]ShapeAndType, nargs)
		found := false
		for k, id := range bound {
			if int(id) >= len(nodes) {
				continue
			}
			if v := nodes[id].GetVariable(); v != nil {
				args[nargs-len(bound)+k] = []ShapeAndType{{Shape: fromProto(v.GetShape()), DType: v.GetDtype()}}
				found = true
			}
		}
		if found {
			out[name] = args
		}
	}
	return out
}
