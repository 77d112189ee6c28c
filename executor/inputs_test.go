package executor

import (
	"bytes"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	expb "github.com/wamuir/graft/tensorflow/core/example/example_protos_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
	"google.golang.org/protobuf/proto"

	"github.com/tfscan/tfscan/kernels"
)

// TestSeededInput draws every dtype a seeded input can have: the values
// are in the documented range, the same name and seed give the same
// tensor and another seed another one. The first values are the TF.js
// oracle's (../shared/oracle/run_model.js, synthInput, for input "x" and
// seed 1, printed by node: 0.6995990872383118 0.6930073499679565
// 0.1833515614271164; as integers 179 177 46; as bools false false true).
// The oracle has no strings: the first strings are those of the rule in
// inputs.go transcribed into the oracle's JavaScript and run by node.
func TestSeededInput(t *testing.T) {
	vocab := [][]byte{[]byte("cat"), []byte("dog"), []byte("fish")}
	shape := []int{4, 25}
	for _, c := range []struct {
		dt    tpb.DataType
		words [][]byte
		// first are the first three elements, check every element's range.
		first any
		check func(t *testing.T, data any)
	}{
		{dt: tpb.DataType_DT_FLOAT, first: []float32{0.6995990872383118, 0.6930073499679565, 0.1833515614271164},
			check: func(t *testing.T, d any) { inRange(t, d.([]float32), 0, 1) }},
		{dt: tpb.DataType_DT_DOUBLE, first: []float64{float64(float32(0.6995990872383118)), float64(float32(0.6930073499679565)), float64(float32(0.1833515614271164))},
			check: func(t *testing.T, d any) { inRange(t, d.([]float64), 0, 1) }},
		{dt: tpb.DataType_DT_HALF, first: []kernels.Float16{kernels.Float16FromFloat32(0.6995990872383118), kernels.Float16FromFloat32(0.6930073499679565), kernels.Float16FromFloat32(0.1833515614271164)},
			check: func(t *testing.T, d any) {
				for _, v := range d.([]kernels.Float16) {
					assert.True(t, v.Float32() >= 0 && v.Float32() <= 1, "%v", v.Float32())
				}
			}},
		{dt: tpb.DataType_DT_BFLOAT16, first: []kernels.BFloat16{kernels.BFloat16FromFloat32(0.6995990872383118), kernels.BFloat16FromFloat32(0.6930073499679565), kernels.BFloat16FromFloat32(0.1833515614271164)},
			check: func(t *testing.T, d any) {
				for _, v := range d.([]kernels.BFloat16) {
					assert.True(t, v.Float32() >= 0 && v.Float32() <= 1, "%v", v.Float32())
				}
			}},
		{dt: tpb.DataType_DT_INT32, first: []int32{179, 177, 46}, check: func(t *testing.T, d any) { inRange(t, d.([]int32), 0, 255) }},
		{dt: tpb.DataType_DT_INT64, first: []int64{179, 177, 46}, check: func(t *testing.T, d any) { inRange(t, d.([]int64), 0, 255) }},
		{dt: tpb.DataType_DT_INT16, first: []int16{179, 177, 46}, check: func(t *testing.T, d any) { inRange(t, d.([]int16), 0, 255) }},
		{dt: tpb.DataType_DT_UINT8, first: []uint8{179, 177, 46}, check: func(t *testing.T, d any) { inRange(t, d.([]uint8), 0, 255) }},
		{dt: tpb.DataType_DT_UINT16, first: []uint16{179, 177, 46}, check: func(t *testing.T, d any) { inRange(t, d.([]uint16), 0, 255) }},
		{dt: tpb.DataType_DT_UINT32, first: []uint32{179, 177, 46}, check: func(t *testing.T, d any) { inRange(t, d.([]uint32), 0, 255) }},
		{dt: tpb.DataType_DT_UINT64, first: []uint64{179, 177, 46}, check: func(t *testing.T, d any) { inRange(t, d.([]uint64), 0, 255) }},
		// int8 wraps the draw, as a cast of 179 to int8 does.
		{dt: tpb.DataType_DT_INT8, first: []int8{179 - 256, 177 - 256, 46}, check: func(t *testing.T, d any) { inRange(t, d.([]int8), -128, 127) }},
		{dt: tpb.DataType_DT_QINT8, first: []int8{179 - 256, 177 - 256, 46}, check: func(t *testing.T, d any) {}},
		{dt: tpb.DataType_DT_QUINT8, first: []uint8{179, 177, 46}, check: func(t *testing.T, d any) {}},
		{dt: tpb.DataType_DT_BOOL, first: []bool{false, false, true}, check: func(t *testing.T, d any) {
			assert.Contains(t, d, true)
			assert.Contains(t, d, false)
		}},
		{dt: tpb.DataType_DT_STRING, words: vocab,
			first: [][]byte{[]byte("fish"), []byte("cat gvywiawv iilduey dog"), []byte("cat")},
			check: func(t *testing.T, d any) { checkStrings(t, d.([][]byte), vocab) }},
		{dt: tpb.DataType_DT_STRING,
			first: [][]byte{[]byte("secnxgv"), []byte("awvz ildue lgmwe ennx"), []byte("fjwiso")},
			check: func(t *testing.T, d any) { checkStrings(t, d.([][]byte), nil) }},
	} {
		name := dtName(c.dt)
		if c.words != nil {
			name += " with a vocabulary"
		}
		t.Run(name, func(t *testing.T) {
			x, err := SeededInput("x", 1, c.dt, shape, c.words)
			require.NoError(t, err)
			assert.Equal(t, c.dt, x.DType)
			assert.Equal(t, shape, x.Shape)
			assert.Equal(t, c.first, firstThree(x.Data))
			c.check(t, x.Data)

			again, err := SeededInput("x", 1, c.dt, shape, c.words)
			require.NoError(t, err)
			assert.Equal(t, x, again, "same name and seed, same values")
			other, err := SeededInput("x", 2, c.dt, shape, c.words)
			require.NoError(t, err)
			assert.NotEqual(t, x.Data, other.Data, "another seed, other values")
		})
	}

	// What has no seeded values: resources and variants.
	for _, dt := range []tpb.DataType{tpb.DataType_DT_RESOURCE, tpb.DataType_DT_VARIANT} {
		_, err := SeededInput("x", 1, dt, []int{2}, nil)
		require.Error(t, err, dtName(dt))
		assert.Contains(t, err.Error(), "input x: ")
	}
}

func inRange[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 | float32 | float64](t *testing.T, xs []T, lo, hi T) {
	t.Helper()
	for i, x := range xs {
		require.True(t, x >= lo && x <= hi, "element %d is %v, not in [%v, %v]", i, x, lo, hi)
	}
	assert.NotEqual(t, slices.Min(xs), slices.Max(xs), "the draws vary")
}

// firstThree is data's first three elements, of data's slice type.
func firstThree(data any) any { return reflect.ValueOf(data).Slice(0, 3).Interface() }

var madeUp = regexp.MustCompile(`^[a-z]{3,8}$`)

// checkStrings: even elements are one vocabulary word (a made-up one
// without a vocabulary), odd ones 2 to 4 words, vocabulary words and
// made-up ones both among them.
func checkStrings(t *testing.T, d [][]byte, vocab [][]byte) {
	t.Helper()
	known := func(w string) bool { return slices.ContainsFunc(vocab, func(v []byte) bool { return string(v) == w }) }
	var inVocab, outOfVocab int
	for i, s := range d {
		words := strings.Split(string(s), " ")
		if i%2 == 0 {
			require.Len(t, words, 1, "element %d: %q", i, s)
			if vocab != nil {
				require.True(t, known(words[0]), "element %d: %q is not a vocabulary word", i, s)
			} else {
				require.Regexp(t, madeUp, words[0], "element %d", i)
			}
			continue
		}
		require.True(t, len(words) >= 2 && len(words) <= 4, "element %d: %q", i, s)
		for _, w := range words {
			switch {
			case known(w):
				inVocab++
			case madeUp.MatchString(w):
				outOfVocab++
			default:
				t.Fatalf("element %d: %q is neither a vocabulary word nor a made-up one", i, w)
			}
		}
	}
	if vocab != nil {
		assert.Positive(t, inVocab, "sentences hold vocabulary words")
	}
	assert.Positive(t, outOfVocab, "sentences hold made-up words")
}

// TestSeedWords: a vocabulary deduplicated, in byte order, and a large
// one evenly thinned to MaxSeedWords, first word included.
func TestSeedWords(t *testing.T) {
	assert.Nil(t, seedWords(nil))
	assert.Equal(t, [][]byte{[]byte("a"), []byte("b"), []byte("c")}, seedWords([]string{"c", "a", "b", "a"}))
	var many []string
	for i := range 3 * MaxSeedWords {
		many = append(many, fmt.Sprintf("w%05d", i))
	}
	got := seedWords(many)
	require.Len(t, got, MaxSeedWords)
	assert.Equal(t, "w00000", string(got[0]))
	assert.Equal(t, "w00003", string(got[1]))
	assert.Equal(t, fmt.Sprintf("w%05d", 3*MaxSeedWords-3), string(got[MaxSeedWords-1]))
}

// TestSeededExamples: every example holds each feature of the spec with
// its dtype and count (dense: the shape's; sparse: 1 to 3), values in the
// documented ranges, bytes from the vocabulary or made up; the same seed
// gives the same bytes, and no example ends in NUL (.npz round trip).
func TestSeededExamples(t *testing.T) {
	vocab := [][]byte{[]byte("cat"), []byte("dog"), []byte("fish")}
	spec := &exampleSpec{
		sparse: []exampleFeature{{key: "tags", dt: tpb.DataType_DT_STRING}, {key: "ids", dt: tpb.DataType_DT_INT64}},
		dense: []exampleFeature{{key: "x", dt: tpb.DataType_DT_FLOAT, n: 3}, {key: "age", dt: tpb.DataType_DT_INT64, n: 1},
			{key: "word", dt: tpb.DataType_DT_STRING, n: 2}},
	}
	x, err := seededExamples("in", 1, []int{64}, spec, vocab)
	require.NoError(t, err)
	assert.Equal(t, []int{64}, x.Shape)
	again, err := seededExamples("in", 1, []int{64}, spec, vocab)
	require.NoError(t, err)
	assert.Equal(t, x, again)

	counts := map[int]int{}
	var known, made int
	for i, b := range x.Data.([][]byte) {
		require.False(t, bytes.HasSuffix(b, []byte{0}), "example %d ends in NUL", i)
		ex := &expb.Example{}
		require.NoError(t, proto.Unmarshal(b, ex), "example %d", i)
		f := ex.GetFeatures().GetFeature()
		require.Len(t, f, 5)
		inRange(t, f["x"].GetFloatList().GetValue(), 0, 1)
		require.Len(t, f["x"].GetFloatList().GetValue(), 3)
		require.Len(t, f["age"].GetInt64List().GetValue(), 1)
		require.Len(t, f["word"].GetBytesList().GetValue(), 2)
		tags, ids := f["tags"].GetBytesList().GetValue(), f["ids"].GetInt64List().GetValue()
		require.True(t, len(tags) >= 1 && len(tags) <= 3 && len(ids) >= 1 && len(ids) <= 3, "example %d", i)
		counts[len(tags)]++
		for _, v := range ids {
			require.True(t, v >= 0 && v <= 255)
		}
		for _, w := range append(tags, f["word"].GetBytesList().GetValue()...) {
			if slices.ContainsFunc(vocab, func(v []byte) bool { return bytes.Equal(v, w) }) {
				known++
			} else {
				require.Regexp(t, madeUp, string(w))
				made++
			}
		}
	}
	assert.Len(t, counts, 3, "sparse features of 1, 2 and 3 values")
	assert.Positive(t, known)
	assert.Positive(t, made)

	// An input of unknown rank (a scalar) is a batch of one: ParseExample
	// takes a vector.
	one, err := seededExamples("in", 1, []int{}, spec, nil)
	require.NoError(t, err)
	assert.Equal(t, []int{1}, one.Shape)
}
