package executor

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode/utf16"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/kernels"
	"github.com/tfscan/tfscan/savedmodel"
)

// Seeded inputs, identical to the TF.js numeric oracle's
// (../shared/oracle/run_model.js, synthInput) so that tfscan and the oracle
// can be fed the same numbers: each input draws from mulberry32 seeded with
// FNV-1a(name) XOR seed, where name is the input's graph node name (the
// tensor name without ":0", which is what TF.js reports as the input's
// name). Floats are uniform in [0, 1), integers uniform in 0..255, bools
// true with probability 1/2.
//
// Strings are tfscan's own (the oracle has none): a text model's string
// input is a vocabulary lookup (Keras StringLookup, tf.Transform's
// apply_vocabulary) or a tokenizer in front of one (TextVectorization), and
// random bytes would only ever take its out-of-vocabulary path. So element
// i of a string input is, for even i, one word of the model's vocabulary
// (words: the string keys of the tables the model's initialization filled,
// Executor.Vocabulary), and for odd i a sentence of 2 to 4 space-separated
// words, each a vocabulary word or a made-up one with probability 1/2 (out
// of vocabulary as a whole for a lookup, a mix of both for a tokenizer).
// Made-up words are 3 to 8 lowercase ASCII letters; without a vocabulary
// every word is made up. Every choice is a draw of the same generator, so
// the same seed gives the same strings. A string input that a ParseExample
// parses gets serialized tf.Examples instead (examples.go); other strings
// that must parse (a number, a CSV line, an image) are not made: feed
// those with --inputs.

// SeededFeeds returns the seeded value of each input (see Inputs), keyed by
// tensor name; unknown dimensions resolve as InputShape does with dim.
// String inputs draw from the words of the session's tables (Vocabulary);
// one that a ParseExample node parses gets serialized tf.Examples of that
// node's features (examples.go). Call it before running from other
// goroutines: it reads the session's tables.
func (e *Executor) SeededFeeds(inputs []*savedmodel.TensorInfo, seed uint32, dim int) (map[string]*kernels.Tensor, error) {
	return seededFeeds(e, inputs, seed, dim)
}

// SeededFeeds is Executor.SeededFeeds without a session: string inputs
// are made-up words only, never tf.Examples. For a model without string
// inputs the two are the same.
func SeededFeeds(inputs []*savedmodel.TensorInfo, seed uint32, dim int) (map[string]*kernels.Tensor, error) {
	return seededFeeds(nil, inputs, seed, dim)
}

// HasStringInput tells whether one of inputs is a string, which
// Executor.SeededFeeds seeds from the session.
func HasStringInput(inputs []*savedmodel.TensorInfo) bool {
	return slices.ContainsFunc(inputs, func(in *savedmodel.TensorInfo) bool { return in.DType == tpb.DataType_DT_STRING })
}

// StringSeeding says what SeededFeeds makes of inputs' strings, for a
// report: "" without string inputs, else the inputs given tf.Examples and
// the words the strings hold (how many of the model's tables).
func (e *Executor) StringSeeding(inputs []*savedmodel.TensorInfo) string {
	var parts []string
	words := false
	for _, in := range inputs {
		if in.DType != tpb.DataType_DT_STRING {
			continue
		}
		node, _, _ := ParseTensorName(in.Name)
		if spec := e.exampleSpecOf(node); spec != nil {
			parts = append(parts, "tf.Examples for "+node)
			words = words || slices.ContainsFunc(slices.Concat(spec.dense, spec.sparse), func(f exampleFeature) bool { return f.dt == tpb.DataType_DT_STRING })
		} else {
			words = true
		}
	}
	if words {
		if n := len(e.Vocabulary()); n > 0 {
			parts = append(parts, fmt.Sprintf("%d words of the model's tables and made-up words", n))
		} else {
			parts = append(parts, "made-up words (no string-keyed table)")
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "strings: " + strings.Join(parts, ", ")
}

func seededFeeds(e *Executor, inputs []*savedmodel.TensorInfo, seed uint32, dim int) (map[string]*kernels.Tensor, error) {
	feeds := make(map[string]*kernels.Tensor, len(inputs))
	var words [][]byte
	if e != nil && HasStringInput(inputs) {
		words = e.Vocabulary()
	}
	for _, in := range inputs {
		node, _, err := ParseTensorName(in.Name)
		if err != nil {
			return nil, err
		}
		shape := InputShape(in.Shape, in.UnknownRank, dim)
		var spec *exampleSpec
		if e != nil && in.DType == tpb.DataType_DT_STRING {
			spec = e.exampleSpecOf(node)
		}
		var t *kernels.Tensor
		if spec != nil {
			t, err = seededExamples(node, seed, shape, spec, words)
		} else {
			t, err = SeededInput(node, seed, in.DType, shape, words)
		}
		if err != nil {
			return nil, err
		}
		feeds[in.Name] = t
	}
	return feeds, nil
}

// InputShape resolves a declared shape the oracle's way: an unknown first
// dimension becomes 1 (the batch), other unknown dimensions become dim, an
// unknown rank (nil shape with unknownRank) a scalar.
func InputShape(declared []int64, unknownRank bool, dim int) []int {
	if unknownRank {
		return []int{}
	}
	shape := make([]int, len(declared))
	for i, d := range declared {
		switch {
		case d >= 0:
			shape[i] = int(d)
		case i == 0:
			shape[i] = 1
		default:
			shape[i] = dim
		}
	}
	return shape
}

// SeededInput returns the oracle's input for name: dtype dt, the given
// shape, values from mulberry32(FNV-1a(name) ^ seed). Float types hold
// float32 draws (converted to the dtype), complex types two of them (the
// real part, then the imaginary); integer types draws in 0..255
// (int8 and qint8 wrap them, as a cast would); strings are words and
// sentences over words (see above).
func SeededInput(name string, seed uint32, dt tpb.DataType, shape []int, words [][]byte) (*kernels.Tensor, error) {
	t, err := kernels.NewTensor(dt, shape)
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", name, err)
	}
	rnd := mulberry32(fnv1a(name) ^ seed)
	switch d := t.Data.(type) {
	case []float32:
		for i := range d {
			d[i] = float32(rnd())
		}
	case []float64:
		for i := range d {
			d[i] = float64(float32(rnd()))
		}
	case []kernels.Float16:
		for i := range d {
			d[i] = kernels.Float16FromFloat32(float32(rnd()))
		}
	case []kernels.BFloat16:
		for i := range d {
			d[i] = kernels.BFloat16FromFloat32(float32(rnd()))
		}
	case []int32:
		for i := range d {
			d[i] = int32(math.Floor(256 * rnd()))
		}
	case []int64:
		for i := range d {
			d[i] = int64(math.Floor(256 * rnd()))
		}
	case []uint8:
		for i := range d {
			d[i] = uint8(math.Floor(256 * rnd()))
		}
	case []int8:
		for i := range d {
			d[i] = int8(int(math.Floor(256 * rnd()))) // 0..255 wraps, as a cast to int8 does
		}
	case []int16:
		for i := range d {
			d[i] = int16(math.Floor(256 * rnd()))
		}
	case []uint16:
		for i := range d {
			d[i] = uint16(math.Floor(256 * rnd()))
		}
	case []uint32:
		for i := range d {
			d[i] = uint32(math.Floor(256 * rnd()))
		}
	case []uint64:
		for i := range d {
			d[i] = uint64(math.Floor(256 * rnd()))
		}
	case []bool:
		for i := range d {
			d[i] = rnd() < 0.5
		}
	case [][]byte:
		for i := range d {
			d[i] = seededString(i, rnd, words)
		}
	case []complex64:
		for i := range d {
			re := float32(rnd())
			d[i] = complex(re, float32(rnd()))
		}
	case []complex128:
		for i := range d {
			re := float64(float32(rnd()))
			d[i] = complex(re, float64(float32(rnd())))
		}
	default:
		return nil, fmt.Errorf("input %s: cannot make seeded values of dtype %s", name, dtName(dt))
	}
	return t, nil
}

// seededString is element i of a string input: a vocabulary word for even
// i, a sentence of 2 to 4 words for odd i (see above).
func seededString(i int, rnd func() float64, words [][]byte) []byte {
	if i%2 == 0 {
		return seededWord(true, rnd, words)
	}
	var s []byte
	for j, n := 0, 2+int(3*rnd()); j < n; j++ {
		if j > 0 {
			s = append(s, ' ')
		}
		s = append(s, seededWord(rnd() < 0.5, rnd, words)...)
	}
	return s
}

// seededWord is a word of words when known and there are words, else a
// made-up one: 3 to 8 lowercase ASCII letters.
func seededWord(known bool, rnd func() float64, words [][]byte) []byte {
	if known && len(words) > 0 {
		return bytes.Clone(words[int(rnd()*float64(len(words)))])
	}
	w := make([]byte, 3+int(6*rnd()))
	for j := range w {
		w[j] = 'a' + byte(26*rnd())
	}
	return w
}

// MaxSeedWords bounds the vocabulary seeded strings draw from: a table of
// millions of keys (a tf.Transform vocabulary) gives this many, evenly
// spaced in byte order.
const MaxSeedWords = 1024

// Vocabulary returns the words seeded string inputs draw from: the string
// keys of every lookup table the session's initialization filled (a
// vocabulary from a constant or from an asset file alike), deduplicated,
// in byte order, at most MaxSeedWords of them (evenly spaced); nil when
// the model has no string-keyed table. The tables are read at the first
// call, which must not run concurrently with a run: call it before running
// from other goroutines; later calls return the same words.
func (e *Executor) Vocabulary() [][]byte {
	e.vocabOnce.Do(func() {
		var keys []string
		for _, h := range kernels.All[kernels.HashTable](e.res) {
			keys = h.StringKeys(keys)
		}
		e.vocab = seedWords(keys)
	})
	return e.vocab
}

// seedWords is keys deduplicated, in byte order, at most MaxSeedWords of
// them evenly spaced; nil for none.
func seedWords(keys []string) [][]byte {
	sort.Strings(keys)
	keys = slices.Compact(keys)
	n := min(len(keys), MaxSeedWords)
	if n == 0 {
		return nil
	}
	words := make([][]byte, n)
	for i := range words {
		words[i] = []byte(keys[i*len(keys)/n])
	}
	return words
}

// fnv1a hashes the UTF-16 code units of s, as the oracle's JavaScript
// (String.charCodeAt) does.
func fnv1a(s string) uint32 {
	h := uint32(0x811c9dc5)
	for _, c := range utf16.Encode([]rune(s)) {
		h ^= uint32(c)
		h *= 0x01000193
	}
	return h
}

// mulberry32 is the oracle's PRNG: uniform float64 values in [0, 1) with 32
// random bits.
func mulberry32(a uint32) func() float64 {
	return func() float64 {
		a += 0x6D2B79F5
		t := a
		t = (t ^ t>>15) * (t | 1)
		t ^= t + (t^t>>7)*(t|61)
		return float64(t^t>>14) / 4294967296
	}
}
