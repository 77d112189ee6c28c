package kernels

import (
	"bytes"
	"regexp"
	"strings"
	"unicode"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// The text ops Keras's TextVectorization runs: StringLower
// (core/kernels/string_lower_op.cc), StaticRegexReplace
// (regex_replace_op.cc), StringSplitV2 (string_split_op.cc) and
// RaggedTensorToTensor (ragged_tensor_to_tensor_op.cc).

// stringLowerKernel lowers ASCII letters (absl::AsciiStrToLower) when the
// encoding attr is empty, TensorFlow's default; "utf-8" lowers as ICU's
// root-locale u_strToLower does (icuLower).
func stringLowerKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 1); err != nil {
		return nil, err
	}
	if ctx.HasAttr("encoding") {
		enc, err := ctx.AttrString("encoding")
		if err != nil {
			return nil, err
		}
		if enc != "" && enc != "utf-8" {
			return nil, ctx.Unsupported("encoding %q", enc)
		}
		if enc == "utf-8" {
			in, err := stringData(ctx, ctx.Inputs[0], "input")
			if err != nil {
				return nil, err
			}
			out := make([][]byte, len(in))
			for i, s := range in {
				out[i] = []byte(icuLower([]rune(string(s))))
			}
			return []*Tensor{{DType: tpb.DataType_DT_STRING, Shape: cloneShape(ctx.Inputs[0].Shape), Data: out}}, nil
		}
	}
	in, err := stringData(ctx, ctx.Inputs[0], "input")
	if err != nil {
		return nil, err
	}
	out := make([][]byte, len(in))
	for i, s := range in {
		b := make([]byte, len(s))
		for j, c := range s {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b[j] = c
		}
		out[i] = b
	}
	return []*Tensor{{DType: tpb.DataType_DT_STRING, Shape: cloneShape(ctx.Inputs[0].Shape), Data: out}}, nil
}

// re2Rewrite turns an RE2 rewrite string (\0..\9 for groups, \\ for a
// backslash) into a Go template ($ escaped).
func re2Rewrite(ctx *Context, rw string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(rw); i++ {
		c := rw[i]
		switch {
		case c == '$':
			b.WriteString("$$")
		case c == '\\' && i+1 < len(rw) && rw[i+1] >= '0' && rw[i+1] <= '9':
			b.WriteString("${" + string(rw[i+1]) + "}")
			i++
		case c == '\\' && i+1 < len(rw) && rw[i+1] == '\\':
			b.WriteByte('\\')
			i++
		case c == '\\':
			return "", ctx.Errorf("Invalid rewrite pattern: %s", rw)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// staticRegexReplaceKernel replaces every match of pattern (the first
// when replace_global is false) with rewrite.
func staticRegexReplaceKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 1); err != nil {
		return nil, err
	}
	p, err := ctx.AttrString("pattern")
	if err != nil {
		return nil, err
	}
	rw, err := ctx.AttrString("rewrite")
	if err != nil {
		return nil, err
	}
	global := true
	if ctx.HasAttr("replace_global") {
		if global, err = ctx.AttrBool("replace_global"); err != nil {
			return nil, err
		}
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, ctx.Unsupported("regex %q: %v", p, err)
	}
	tmpl, err := re2Rewrite(ctx, rw)
	if err != nil {
		return nil, err
	}
	in, err := stringData(ctx, ctx.Inputs[0], "input")
	if err != nil {
		return nil, err
	}
	out := make([][]byte, len(in))
	for i, s := range in {
		if global {
			out[i] = re.ReplaceAll(s, []byte(tmpl))
			continue
		}
		loc := re.FindSubmatchIndex(s)
		if loc == nil {
			out[i] = append([]byte(nil), s...)
			continue
		}
		b := append([]byte(nil), s[:loc[0]]...)
		b = re.Expand(b, []byte(tmpl), s, loc)
		out[i] = append(b, s[loc[1]:]...)
	}
	return []*Tensor{{DType: tpb.DataType_DT_STRING, Shape: cloneShape(ctx.Inputs[0].Shape), Data: out}}, nil
}

// asciiSpace is isspace in the C locale, what StringSplitV2 splits on
// when sep is empty.
func asciiSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// splitV2 is SplitV2, Python's str.split: with an empty sep, runs of
// whitespace separate and leading whitespace is dropped (after maxsplit
// pieces the rest is one more piece, trailing whitespace and all, empty
// too); else every sep separates, empty pieces included, and the empty
// string is one empty piece. maxsplit 0 keeps the string whole; < 0 is
// unlimited.
func splitV2(s, sep []byte, maxsplit int) [][]byte {
	if maxsplit == 0 {
		return [][]byte{s}
	}
	var out [][]byte
	if len(sep) == 0 {
		i := 0
		skip := func() {
			for i < len(s) && asciiSpace(s[i]) {
				i++
			}
		}
		skip()
		for i < len(s) {
			j := i
			for j < len(s) && !asciiSpace(s[j]) {
				j++
			}
			out = append(out, s[i:j])
			i = j
			skip()
			if maxsplit > 0 && len(out) == maxsplit {
				return append(out, s[i:])
			}
		}
		return out
	}
	for {
		k := bytes.Index(s, sep)
		if k < 0 {
			break
		}
		out = append(out, s[:k])
		s = s[k+len(sep):]
		if maxsplit > 0 && len(out) == maxsplit {
			break
		}
	}
	return append(out, s)
}

// stringSplitV2Kernel splits each string of a vector: a sparse tensor of
// (row, position) indices, the pieces and the dense shape [rows, longest].
func stringSplitV2Kernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 2); err != nil {
		return nil, err
	}
	if len(ctx.Inputs[0].Shape) != 1 {
		return nil, ctx.Errorf("input must be a vector, got shape: %s", dimsString(ctx.Inputs[0].Shape))
	}
	if len(ctx.Inputs[1].Shape) != 0 {
		return nil, ctx.Errorf("sep must be a scalar, got shape: %s", dimsString(ctx.Inputs[1].Shape))
	}
	in, err := stringData(ctx, ctx.Inputs[0], "input")
	if err != nil {
		return nil, err
	}
	sep, err := stringData(ctx, ctx.Inputs[1], "sep")
	if err != nil {
		return nil, err
	}
	maxsplit := int64(-1)
	if ctx.HasAttr("maxsplit") {
		if maxsplit, err = ctx.AttrInt("maxsplit"); err != nil {
			return nil, err
		}
	}
	var idx []int64
	var vals [][]byte
	longest := 0
	for r, s := range in {
		parts := splitV2(s, sep[0], int(maxsplit))
		for j, p := range parts {
			idx = append(idx, int64(r), int64(j))
			vals = append(vals, append([]byte(nil), p...))
		}
		longest = max(longest, len(parts))
	}
	if vals == nil {
		vals = [][]byte{}
	}
	if idx == nil {
		idx = []int64{}
	}
	return []*Tensor{
		{DType: tpb.DataType_DT_INT64, Shape: []int{len(vals), 2}, Data: idx},
		{DType: tpb.DataType_DT_STRING, Shape: []int{len(vals)}, Data: vals},
		{DType: tpb.DataType_DT_INT64, Shape: []int{2}, Data: []int64{int64(len(in)), int64(longest)}},
	}, nil
}

// raggedToTensorKernel is RaggedTensorToTensor for one ragged dimension
// given as FIRST_DIM_SIZE and VALUE_ROWIDS (what tf.RaggedTensor.to_tensor
// writes for a ragged rank of one) or as ROW_SPLITS, over values whose
// first dimension is ragged and the rest uniform: row r's k-th
// value lands at [r, k]; a shape of -1 (or a dimension of -1) takes the
// number of rows and the longest row; the rest is default_value.
func raggedToTensorKernel(ctx *Context) ([]*Tensor, error) {
	types, err := ctx.AttrStrings("row_partition_types")
	if err != nil {
		return nil, err
	}
	splits := len(types) == 1 && types[0] == "ROW_SPLITS"
	if !splits && (len(types) != 2 || types[0] != "FIRST_DIM_SIZE" || types[1] != "VALUE_ROWIDS") {
		return nil, ctx.Unsupported("row_partition_types %v (ROW_SPLITS, or FIRST_DIM_SIZE and VALUE_ROWIDS, only)", types)
	}
	if err := wantInputs(ctx, 4+len(types)-1); err != nil {
		return nil, err
	}
	values, def := ctx.Inputs[1], ctx.Inputs[2]
	if len(values.Shape) == 0 {
		return nil, ctx.Errorf("values must have rank at least 1")
	}
	// Each value is a row of the uniform inner dimensions.
	inner := values.Shape[1:]
	nin := product(inner)
	if def.NumElements() != 1 {
		return nil, ctx.Unsupported("default_value of shape %s", dimsString(def.Shape))
	}
	var rows int64
	var rowids []int64
	if splits {
		// Row r holds values splits[r] to splits[r+1]: the row ids of
		// the values, one row fewer than splits.
		sp, err := indexValues(ctx.Inputs[3])
		if err != nil {
			return nil, ctx.Errorf("row_splits: %v", err)
		}
		if len(sp) == 0 || sp[0] != 0 || sp[len(sp)-1] != int64(values.Shape[0]) {
			return nil, ctx.Errorf("Invalid row split size.")
		}
		rows = int64(len(sp) - 1)
		rowids = make([]int64, 0, values.Shape[0])
		for r := 0; r+1 < len(sp); r++ {
			if sp[r+1] < sp[r] {
				return nil, ctx.Errorf("row_splits must be sorted: %v", sp)
			}
			for i := sp[r]; i < sp[r+1]; i++ {
				rowids = append(rowids, int64(r))
			}
		}
	} else {
		rows, err = scalarIndex(ctx.Inputs[3], "first_dim_size")
		if err != nil {
			return nil, ctx.Errorf("%v", err)
		}
		rowids, err = indexValues(ctx.Inputs[4])
		if err != nil {
			return nil, ctx.Errorf("value_rowids: %v", err)
		}
	}
	if len(rowids) != values.Shape[0] {
		return nil, ctx.Errorf("value_rowids has %d elements, values %d", len(rowids), values.Shape[0])
	}
	shape := make([]int64, 2+len(inner))
	for j := range shape {
		shape[j] = -1
	}
	if st := ctx.Inputs[0]; st.NumElements() > 0 {
		s, err := indexValues(st)
		if err != nil {
			return nil, ctx.Errorf("shape: %v", err)
		}
		if len(st.Shape) == 1 {
			if len(s) != len(shape) {
				return nil, ctx.Errorf("shape must have rank %d, got %d dimensions", len(shape), len(s))
			}
			for j, d := range inner {
				if s[2+j] >= 0 && int(s[2+j]) != d {
					return nil, ctx.Unsupported("shape %v narrowing the values' inner dimensions %v", s, inner)
				}
			}
			shape = s
		}
	}
	pos := make([]int, len(rowids))
	longest, prev, k := 0, int64(-1), 0
	for i, r := range rowids {
		if r < prev || r < 0 || r >= rows {
			return nil, ctx.Errorf("value_rowids must be sorted and in [0, %d): %d", rows, r)
		}
		if r != prev {
			k = 0
		}
		pos[i], prev = k, r
		k++
		longest = max(longest, k)
	}
	d0, d1 := int(rows), longest
	if shape[0] >= 0 {
		d0 = int(shape[0])
	}
	if shape[1] >= 0 {
		d1 = int(shape[1])
	}
	outShape := append([]int{d0, d1}, inner...)
	n, err := CheckShape(outShape)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	src := make([]int, n) // flat value index + 1, 0 for the default
	for i, r := range rowids {
		if int(r) < d0 && pos[i] < d1 {
			for t := 0; t < nin; t++ {
				src[(int(r)*d1+pos[i])*nin+t] = i*nin + t + 1
			}
		}
	}
	out := &Tensor{DType: values.DType, Shape: outShape}
	switch v := values.Data.(type) {
	case []int64:
		out.Data = fillFrom(v, def.Data.([]int64)[0], src)
	case []int32:
		out.Data = fillFrom(v, def.Data.([]int32)[0], src)
	case []float32:
		out.Data = fillFrom(v, def.Data.([]float32)[0], src)
	case []float64:
		out.Data = fillFrom(v, def.Data.([]float64)[0], src)
	case []bool:
		out.Data = fillFrom(v, def.Data.([]bool)[0], src)
	case [][]byte:
		out.Data = fillFrom(v, def.Data.([][]byte)[0], src)
	default:
		return nil, ctx.Unsupported("values of dtype %s", dtypeName(values.DType))
	}
	return []*Tensor{out}, nil
}

func fillFrom[T any](v []T, def T, src []int) []T {
	out := make([]T, len(src))
	for i, s := range src {
		if s == 0 {
			out[i] = def
		} else {
			out[i] = v[s-1]
		}
	}
	return out
}

func init() {
	Register("StringLower", stringLowerKernel)
	Register("StaticRegexReplace", staticRegexReplaceKernel)
	Register("StringSplitV2", stringSplitV2Kernel)
	Register("RaggedTensorToTensor", raggedToTensorKernel)
}

// icuLower is ICU's full lowercase mapping in the root locale
// (u_strToLower, SpecialCasing.txt): an invalid byte is U+FFFD, İ (U+0130)
// is i and a combining dot above, and Σ is ς at a word's end (Final_Sigma:
// a cased letter before it and none after, case-ignorable characters
// skipped); every other rune takes its simple lowercase.
func icuLower(rs []rune) string {
	var b []rune
	for i, r := range rs {
		switch {
		case r == 0x130:
			b = append(b, 'i', 0x307)
		case r == 0x3a3 && finalSigma(rs, i):
			b = append(b, 0x3c2)
		default:
			b = append(b, unicode.ToLower(r))
		}
	}
	return string(b)
}

func finalSigma(rs []rune, i int) bool {
	before, after := false, false
	for j := i - 1; j >= 0; j-- {
		if !caseIgnorable(rs[j]) {
			before = cased(rs[j])
			break
		}
	}
	for j := i + 1; j < len(rs); j++ {
		if !caseIgnorable(rs[j]) {
			after = cased(rs[j])
			break
		}
	}
	return before && !after
}

func cased(r rune) bool { return unicode.IsUpper(r) || unicode.IsLower(r) || unicode.IsTitle(r) }

// caseIgnorable is Unicode's Case_Ignorable: the marks, format characters,
// modifier letters and symbols, and the word-internal punctuation
// (Word_Break MidLetter and MidNumLet).
func caseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', 0xb7, 0x387, 0x5f4, 0x2018, 0x2019, 0x2024, 0x2027, 0xfe13, 0xfe52, 0xfe55, 0xff07, 0xff0e, 0xff1a:
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}
