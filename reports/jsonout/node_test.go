package jsonout

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/reports"
)

// appendNode writes what encoding/json writes for the same node, field by
// field and character by character.
func TestAppendNodeIsEncodingJSON(t *testing.T) {
	full := reports.NodeResult{
		Path: "model/dense/MatMul", Op: "MatMul", DTypes: []string{"float32", "half"},
		Reason: "covered", Reachable: true, Phase: "step", LoweredTo: "half", Device: "/device:GPU:0",
		Reasons: []string{"a", "b"}, SourceDevice: "/device:CPU:0", Change: "new_fallback",
		RequestedDevice: "/device:GPU:1", Part: "forward",
	}
	require.Equal(t, reflect.TypeOf(full).NumField(), nonZeroFields(full), "every field of the full node is set")
	for name, n := range map[string]reports.NodeResult{
		"zero":        {},
		"full":        full,
		"empty lists": {Path: "p", DTypes: []string{}, Reasons: []string{}},
		"escapes":     {Path: "a\"b\\c<d>e&f\x00\x01\b\f\n\r\t\x1f\x7f", Op: "\u2028\u2029é日本", Reason: "bad \xff\xfe utf8 \xe2\x82"},
		"one of each": {Path: "x", Phase: "load", Change: "already_on_cpu", Part: "backward"},
	} {
		t.Run(name, func(t *testing.T) {
			requireSameAsEncodingJSON(t, &n)
		})
	}
}

func FuzzAppendNode(f *testing.F) {
	f.Add("model/x", "Relu", "float32", "covered", true, "/device:GPU:0")
	f.Add("<&>", "\u2028", "\xff", "\x00\n", false, "")
	f.Fuzz(func(t *testing.T, path, op, dtype, reason string, reachable bool, device string) {
		n := reports.NodeResult{Path: path, Op: op, DTypes: []string{dtype, reason}, Reason: reason,
			Reachable: reachable, Device: device, Reasons: []string{path}, SourceDevice: op, Part: dtype}
		requireSameAsEncodingJSON(t, &n)
	})
}

func requireSameAsEncodingJSON(t *testing.T, n *reports.NodeResult) {
	t.Helper()
	want, err := json.Marshal(n)
	require.NoError(t, err)
	require.Equal(t, string(want), string(appendNode(nil, n)))
}

func nonZeroFields(v any) int {
	rv := reflect.ValueOf(v)
	k := 0
	for i := range rv.NumField() {
		if !rv.Field(i).IsZero() {
			k++
		}
	}
	return k
}

// BenchmarkAppendNode writes a typical node entry by hand and, as the
// baseline, with encoding/json:
//
//	go test -run '^$' -bench AppendNode -benchmem ./reports/jsonout/
func BenchmarkAppendNode(b *testing.B) {
	n := reports.NodeResult{Path: "model/block_17/dense_3/MatMul", Op: "MatMul", DTypes: []string{"float32"},
		Reason: "covered", Reachable: true, Phase: "step", Device: "/device:MUSA:0",
		Reasons: []string{"MUSA: kernel MatMul for T=DT_FLOAT registered"}, SourceDevice: "/device:GPU:0"}
	b.Run("encoding-json", func(b *testing.B) {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		for range b.N {
			buf.Reset()
			if err := enc.Encode(&n); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("appendNode", func(b *testing.B) {
		var buf []byte
		for range b.N {
			buf = appendNode(buf[:0], &n)
		}
	})
}
