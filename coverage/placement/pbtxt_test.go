package placement

import (
	"fmt"
	"strings"
)

// Small writers of text GraphDef pieces for hand-built test graphs.

func nd(name, op string, ins []string, attrs ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "node { name: %q op: %q ", name, op)
	for _, in := range ins {
		fmt.Fprintf(&b, "input: %q ", in)
	}
	for _, a := range attrs {
		b.WriteString(a + " ")
	}
	b.WriteString("}\n")
	return b.String()
}

func in(xs ...string) []string { return xs }

func dev(d string) string { return fmt.Sprintf("device: %q", d) }

func ta(k, dt string) string { return fmt.Sprintf("attr { key: %q value { type: %s } }", k, dt) }

func tla(k string, dts ...string) string {
	var b strings.Builder
	for _, d := range dts {
		b.WriteString("type: " + d + " ")
	}
	return fmt.Sprintf("attr { key: %q value { list { %s } } }", k, b.String())
}

func ba(k string, v bool) string { return fmt.Sprintf("attr { key: %q value { b: %v } }", k, v) }

func ia(k string, v int64) string { return fmt.Sprintf("attr { key: %q value { i: %d } }", k, v) }

func sa(k, v string) string { return fmt.Sprintf("attr { key: %q value { s: %q } }", k, v) }

func shapeProto(dims ...int64) string {
	var b strings.Builder
	for _, d := range dims {
		fmt.Fprintf(&b, "dim { size: %d } ", d)
	}
	return "{ " + b.String() + "}"
}

func sha(k string, dims ...int64) string {
	return fmt.Sprintf("attr { key: %q value { shape %s } }", k, shapeProto(dims...))
}

func classA(names ...string) string {
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "s: %q ", "loc:@"+n)
	}
	return fmt.Sprintf("attr { key: \"_class\" value { list { %s } } }", b.String())
}

func funcA(k, fn string) string {
	return fmt.Sprintf("attr { key: %q value { func { name: %q } } }", k, fn)
}

// constNode is a Const of dtype with shape dims; int values are written
// for int32/int64.
func constNode(name, dtype string, dims []int64, ints ...int64) string {
	var vals strings.Builder
	field := ""
	switch dtype {
	case "DT_INT32":
		field = "int_val"
	case "DT_INT64":
		field = "int64_val"
	case "DT_FLOAT":
		field = "float_val"
	case "DT_STRING":
		field = "string_val"
	}
	for _, v := range ints {
		fmt.Fprintf(&vals, "%s: %d ", field, v)
	}
	if dtype == "DT_FLOAT" && len(ints) == 0 {
		vals.WriteString("float_val: 1 ")
	}
	if dtype == "DT_STRING" {
		vals.Reset()
		vals.WriteString(`string_val: "a" `)
	}
	return nd(name, "Const", nil, ta("dtype", dtype),
		fmt.Sprintf("attr { key: \"value\" value { tensor { dtype: %s tensor_shape %s %s } } }", dtype, shapeProto(dims...), vals.String()))
}

func placeholder(name, dtype string, dims ...int64) string {
	return nd(name, "Placeholder", nil, ta("dtype", dtype), sha("shape", dims...))
}

func graphText(nodes ...string) string {
	return "graph_def { " + strings.Join(nodes, "") + " }"
}
