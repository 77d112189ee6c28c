package kernels

import (
	"fmt"
	"testing"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// The expected values are TensorFlow 2.15.0's (gen_string_ops,
// gen_ragged_conversion_ops) on the same inputs.

func strVec(s ...string) *Tensor {
	d := make([][]byte, len(s))
	for i, v := range s {
		d[i] = []byte(v)
	}
	return &Tensor{DType: tpb.DataType_DT_STRING, Shape: []int{len(s)}, Data: d}
}

func textStrs(t *Tensor) []string {
	var out []string
	for _, b := range t.Data.([][]byte) {
		out = append(out, string(b))
	}
	return out
}

var textInputs = []string{"  Hello  World\t", "a,,b", "", "x", "ÀBc$1"}

func TestStringSplitV2(t *testing.T) {
	for _, c := range []struct {
		sep      string
		maxsplit int64
		idx      []int64
		vals     []string
		shape    []int64
	}{
		{"", -1, []int64{0, 0, 0, 1, 1, 0, 3, 0, 4, 0}, []string{"Hello", "World", "a,,b", "x", "ÀBc$1"}, []int64{5, 2}},
		{",", -1, []int64{0, 0, 1, 0, 1, 1, 1, 2, 2, 0, 3, 0, 4, 0}, []string{"  Hello  World\t", "a", "", "b", "", "x", "ÀBc$1"}, []int64{5, 3}},
		{"", 1, []int64{0, 0, 0, 1, 1, 0, 1, 1, 3, 0, 3, 1, 4, 0, 4, 1}, []string{"Hello", "World\t", "a,,b", "", "x", "", "ÀBc$1", ""}, []int64{5, 2}},
		{",", 1, []int64{0, 0, 1, 0, 1, 1, 2, 0, 3, 0, 4, 0}, []string{"  Hello  World\t", "a", ",b", "", "x", "ÀBc$1"}, []int64{5, 2}},
	} {
		ctx := &Context{Op: "StringSplitV2", Inputs: []*Tensor{strVec(textInputs...), ScalarString(c.sep)},
			Attrs: map[string]*attrpb.AttrValue{"maxsplit": {Value: &attrpb.AttrValue_I{I: c.maxsplit}}}}
		out, err := stringSplitV2Kernel(ctx)
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("sep %q maxsplit %d", c.sep, c.maxsplit)
		if got := out[0].Data.([]int64); fmt.Sprint(got) != fmt.Sprint(c.idx) {
			t.Errorf("%s: indices %v, want %v", name, got, c.idx)
		}
		if got := textStrs(out[1]); fmt.Sprintf("%q", got) != fmt.Sprintf("%q", c.vals) {
			t.Errorf("%s: values %q, want %q", name, got, c.vals)
		}
		if got := out[2].Data.([]int64); fmt.Sprint(got) != fmt.Sprint(c.shape) {
			t.Errorf("%s: shape %v, want %v", name, got, c.shape)
		}
	}
}

func TestStringLowerAndRegexReplace(t *testing.T) {
	out, err := stringLowerKernel(&Context{Op: "StringLower", Inputs: []*Tensor{strVec(textInputs...)}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprintf("%q", textStrs(out[0])), fmt.Sprintf("%q", []string{"  hello  world\t", "a,,b", "", "x", "Àbc$1"}); got != want {
		t.Errorf("StringLower: %s, want %s", got, want)
	}
	attrs := func(p, rw string, global bool) map[string]*attrpb.AttrValue {
		return map[string]*attrpb.AttrValue{"pattern": {Value: &attrpb.AttrValue_S{S: []byte(p)}},
			"rewrite": {Value: &attrpb.AttrValue_S{S: []byte(rw)}}, "replace_global": {Value: &attrpb.AttrValue_B{B: global}}}
	}
	for _, c := range []struct {
		pattern, rewrite string
		global           bool
		want             []string
	}{
		{`([a-z])`, `<\1$>`, true, []string{"  H<e$><l$><l$><o$>  W<o$><r$><l$><d$>\t", "<a$>,,<b$>", "", "<x$>", "ÀB<c$>$1"}},
		{`[a-z]`, `_`, false, []string{"  H_llo  World\t", "_,,b", "", "_", "ÀB_$1"}},
	} {
		out, err := staticRegexReplaceKernel(&Context{Op: "StaticRegexReplace", Inputs: []*Tensor{strVec(textInputs...)},
			Attrs: attrs(c.pattern, c.rewrite, c.global)})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := fmt.Sprintf("%q", textStrs(out[0])), fmt.Sprintf("%q", c.want); got != want {
			t.Errorf("%s → %s: %s, want %s", c.pattern, c.rewrite, got, want)
		}
	}
}

func TestRaggedTensorToTensor(t *testing.T) {
	i64 := func(shape []int, v ...int64) *Tensor {
		return &Tensor{DType: tpb.DataType_DT_INT64, Shape: shape, Data: v}
	}
	types := map[string]*attrpb.AttrValue{"row_partition_types": {Value: &attrpb.AttrValue_List{List: &attrpb.AttrValue_ListValue{
		S: [][]byte{[]byte("FIRST_DIM_SIZE"), []byte("VALUE_ROWIDS")}}}}}
	for _, c := range []struct {
		shape *Tensor
		rows  int64
		def   int64
		want  string
	}{
		{i64([]int{2}, -1, 3), 4, 0, "[4 3] [1 2 0 0 0 0 3 4 5 0 0 0]"},
		{i64([]int{}, -1), 3, -1, "[3 3] [1 2 -1 -1 -1 -1 3 4 5]"},
	} {
		out, err := raggedToTensorKernel(&Context{Op: "RaggedTensorToTensor", Attrs: types, Inputs: []*Tensor{c.shape,
			i64([]int{5}, 1, 2, 3, 4, 5), i64([]int{}, c.def), i64([]int{}, c.rows), i64([]int{5}, 0, 0, 2, 2, 2)}})
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(out[0].Shape, " ", out[0].Data); got != c.want {
			t.Errorf("got %s, want %s", got, c.want)
		}
	}
}
