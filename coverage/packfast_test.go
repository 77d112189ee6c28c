package coverage

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/tfscan/tfscan/internal/benchmodel"
)

// builtinPackJSON returns the JSON of every embedded pack, by name, each a
// copy a test may change.
func builtinPackJSON(t testing.TB) map[string][]byte {
	t.Helper()
	names, err := builtinNames()
	require.NoError(t, err)
	out := map[string][]byte{}
	for _, name := range names {
		data, err := builtinFile(name)
		require.NoError(t, err)
		out[name] = bytes.Clone(data)
	}
	return out
}

// requireSamePack fails unless got is want: the same header fields and the
// same OpDefs and kernels, in order, by proto.Equal.
func requireSamePack(t testing.TB, want, got *Pack) {
	t.Helper()
	require.Len(t, got.Kernels, len(want.Kernels))
	require.Equal(t, want.Kernels == nil, got.Kernels == nil, "nil kernels")
	require.Equal(t, cap(want.Kernels), cap(got.Kernels), "spare capacity")
	for i := range want.Kernels {
		if !proto.Equal(want.Kernels[i], got.Kernels[i]) {
			t.Fatalf("kernel %d: got %v, want %v", i, got.Kernels[i], want.Kernels[i])
		}
	}
	require.Len(t, got.OpDefs, len(want.OpDefs))
	for i := range want.OpDefs {
		require.True(t, proto.Equal(want.OpDefs[i], got.OpDefs[i]), "op_defs %d", i)
	}
	w, g := *want, *got
	w.Kernels, g.Kernels, w.OpDefs, g.OpDefs = nil, nil, nil, nil
	require.Equal(t, w, g)
}

// kernelLines are the kernel lines of a pack file as WritePack writes them.
func kernelLines(data []byte) [][]byte {
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if line, ok := bytes.CutPrefix(sc.Bytes(), []byte(`    {"op"`)); ok {
			line = append([]byte(`{"op"`), bytes.TrimSuffix(line, []byte(","))...)
			out = append(out, line)
		}
	}
	return out
}

func TestParsePackFastMatchesProtojsonOnBuiltinPacks(t *testing.T) {
	for name, data := range builtinPackJSON(t) {
		t.Run(name, func(t *testing.T) {
			want, err := parsePackProtojson(data)
			require.NoError(t, err)
			got, ok := parsePackFast(data)
			require.True(t, ok, "a built-in pack takes the fast path")
			requireSamePack(t, want, got)

			// Every kernel line but those whose constraints list strings
			// (protojson reads those) is read without protojson.
			d := newKernelDecoder()
			lines := kernelLines(data)
			require.Len(t, lines, len(want.Kernels))
			for i, line := range lines {
				k, end := d.kernel(line, 0)
				if bytes.Contains(line, []byte(`"list":{"s"`)) {
					assert.Nil(t, k, "line %d", i)
					continue
				}
				require.NotNil(t, k, "line %d: %s", i, line)
				require.Equal(t, len(line), end)
				require.True(t, proto.Equal(want.Kernels[i], k), "line %d", i)
			}
		})
	}
}

// packWithKernels is the sample pack's file with its kernels array replaced.
func packWithKernels(t testing.TB, kernels ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, WritePack(&buf, samplePack()))
	s := buf.String()
	i := strings.Index(s, `"kernels": [`)
	require.Positive(t, i)
	return []byte(s[:i] + `"kernels": [` + strings.Join(kernels, ",\n    ") + "]\n}\n")
}

func TestParsePackOddKernelsAsProtojson(t *testing.T) {
	// fast: the kernel reader builds the kernel itself; otherwise protojson
	// does, inside the fast decode.
	tests := []struct {
		name, kernel string
		fast         bool
	}{
		{"canonical", `{"op":"A","device_type":"GPU","constraint":[{"name":"T","allowed_values":{"list":{"type":["DT_FLOAT","DT_HALF"]}}},{"name":"U","allowed_values":{"list":{"type":["DT_INT32"]}}}],"host_memory_arg":["x","y"],"label":"l","priority":-3}`, true},
		{"constraint without values", `{"op":"A","device_type":"GPU","constraint":[{"name":"T"}]}`, true},
		{"DT_INVALID", `{"op":"A","device_type":"GPU","constraint":[{"name":"T","allowed_values":{"list":{"type":["DT_INVALID"]}}}]}`, true},
		{"largest priority", `{"op":"A","device_type":"GPU","priority":2147483647}`, true},
		{"smallest priority", `{"op":"A","device_type":"GPU","priority":-2147483648}`, true},
		{"priority 0", `{"op":"A","device_type":"GPU","priority":0}`, true},
		{"empty label", `{"op":"A","device_type":"GPU","label":""}`, true},
		{"fields out of order", `{"device_type":"GPU","op":"A"}`, false},
		{"camelCase", `{"op":"A","deviceType":"GPU","hostMemoryArg":["x"],"constraint":[{"name":"T","allowedValues":{"list":{"type":["DT_FLOAT"]}}}]}`, false},
		{"numeric enum", `{"op":"A","device_type":"GPU","constraint":[{"name":"T","allowed_values":{"list":{"type":[1,19]}}}]}`, false},
		{"list.s", `{"op":"A","device_type":"GPU","constraint":[{"name":"k","allowed_values":{"list":{"s":["YWJj","eA=="]}}}]}`, false},
		{"list.i as strings", `{"op":"A","device_type":"GPU","constraint":[{"name":"N","allowed_values":{"list":{"i":["1","-2","0"]}}}]}`, true},
		{"list.i at int64's bounds", `{"op":"A","device_type":"GPU","constraint":[{"name":"N","allowed_values":{"list":{"i":["-9223372036854775808","9223372036854775807"]}}}]}`, true},
		{"list.i as numbers", `{"op":"A","device_type":"GPU","constraint":[{"name":"N","allowed_values":{"list":{"i":[1,2]}}}]}`, false},
		{"list.i -0", `{"op":"A","device_type":"GPU","constraint":[{"name":"N","allowed_values":{"list":{"i":["-0"]}}}]}`, false},
		{"list.i with exponent", `{"op":"A","device_type":"GPU","constraint":[{"name":"N","allowed_values":{"list":{"i":["1e2"]}}}]}`, false},
		{"list.b", `{"op":"A","device_type":"GPU","constraint":[{"name":"b","allowed_values":{"list":{"b":[true,false]}}}]}`, true},
		{"list.b then a shared constraint", `{"op":"A","device_type":"GPU","constraint":[{"name":"b","allowed_values":{"list":{"b":[true]}}},{"name":"b","allowed_values":{"list":{"b":[true]}}}]}`, true},
		{"two lists", `{"op":"A","device_type":"GPU","constraint":[{"name":"b","allowed_values":{"list":{"b":[true],"i":["1"]}}}]}`, false},
		{"single type", `{"op":"A","device_type":"GPU","constraint":[{"name":"T","allowed_values":{"type":"DT_FLOAT"}}]}`, false},
		{"empty type list", `{"op":"A","device_type":"GPU","constraint":[{"name":"T","allowed_values":{"list":{"type":[]}}}]}`, false},
		{"empty list", `{"op":"A","device_type":"GPU","constraint":[{"name":"T","allowed_values":{"list":{}}}]}`, false},
		{"empty constraints", `{"op":"A","device_type":"GPU","constraint":[]}`, false},
		{"spaces", `{ "op": "A", "device_type" : "GPU" }`, false},
		{"escape", `{"op":"A\u0042","device_type":"GPU"}`, false},
		{"non-ASCII", `{"op":"A","device_type":"GPU","label":"über"}`, false},
		{"null label", `{"op":"A","device_type":"GPU","label":null}`, false},
		{"priority as string", `{"op":"A","device_type":"GPU","priority":"7"}`, false},
		{"priority with exponent", `{"op":"A","device_type":"GPU","priority":1e1}`, false},
		{"priority -0", `{"op":"A","device_type":"GPU","priority":-0}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := newKernelDecoder()
			k, _ := d.kernel([]byte(tc.kernel), 0)
			assert.Equal(t, tc.fast, k != nil, "read by the fast kernel reader")

			want := &kdpb.KernelDef{}
			require.NoError(t, protojson.Unmarshal([]byte(tc.kernel), want), "a valid kernel")
			if k != nil {
				require.True(t, proto.Equal(want, k))
			}
			data := packWithKernels(t, `{"op":"Z","device_type":"GPU"}`, tc.kernel)
			wantPack, err := parsePackProtojson(data)
			require.NoError(t, err)
			got, ok := parsePackFast(data)
			require.True(t, ok, "the fast decode reads it, through protojson if need be")
			requireSamePack(t, wantPack, got)
		})
	}
}

func TestParsePackOddDocumentsAsProtojson(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WritePack(&buf, samplePack()))
	good := buf.String()
	tests := []struct {
		name, doc string
		fast      bool
	}{
		{"as written", good, true},
		{"kernels first", strings.Replace(good[:strings.Index(good, ",\n  \"kernels\"")]+"\n}\n",
			"{\n", "{\"kernels\" : [ {\"op\":\"Add\",\"device_type\":\"GPU\"} ] ,\n", 1), true},
		{"no kernels", good[:strings.Index(good, ",\n  \"kernels\"")] + "\n}\n", false},
		{"kernels null", good[:strings.Index(good, "\"kernels\"")] + "\"kernels\": null\n}\n", false},
		{"empty kernels", good[:strings.Index(good, "\"kernels\"")] + "\"kernels\": [ ]\n}\n", true},
		{"escaped key", strings.Replace(good, `"kernels"`, `"kernel\u0073"`, 1), false},
		{"trailing data", good + "garbage", true},
		{"escaped header value", strings.Replace(good, `"vendor": "Test"`, `"vendor": "T\u00e9st \"q\""`, 1), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want, err := parsePackProtojson([]byte(tc.doc))
			require.NoError(t, err)
			got, ok := parsePackFast([]byte(tc.doc))
			assert.Equal(t, tc.fast, ok, "read by the fast decode")
			if ok {
				requireSamePack(t, want, got)
			}
			got, err = parsePack([]byte(tc.doc))
			require.NoError(t, err)
			requireSamePack(t, want, got)
		})
	}
}

func TestParsePackFastRefusesWhatProtojsonRefuses(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WritePack(&buf, samplePack()))
	good := buf.String()
	kernel := func(k string) string { return string(packWithKernels(t, `{"op":"Z","device_type":"GPU"}`, k)) }
	tests := []struct{ name, doc, want string }{
		{"Op", kernel(`{"Op":"A","device_type":"GPU"}`), `kernel 1: proto:`},
		{"OP", kernel(`{"OP":"A","device_type":"GPU"}`), `kernel 1: proto:`},
		{"unknown field", kernel(`{"op":"A","device_type":"GPU","labl":"x"}`), `unknown field "labl"`},
		{"duplicate field", kernel(`{"op":"A","device_type":"GPU","op":"B"}`), `duplicate field`},
		{"unknown dtype", kernel(`{"op":"A","device_type":"GPU","constraint":[{"name":"T","allowed_values":{"list":{"type":["DT_FOO"]}}}]}`), `kernel 1: proto:`},
		{"priority overflow", kernel(`{"op":"A","device_type":"GPU","priority":2147483648}`), `kernel 1: proto:`},
		{"list.i overflow", kernel(`{"op":"A","device_type":"GPU","constraint":[{"name":"N","allowed_values":{"list":{"i":["9223372036854775808"]}}}]}`), `kernel 1: proto:`},
		{"list.i leading zero", kernel(`{"op":"A","device_type":"GPU","constraint":[{"name":"N","allowed_values":{"list":{"i":["07"]}}}]}`), `kernel 1: proto:`},
		{"list.b as a string", kernel(`{"op":"A","device_type":"GPU","constraint":[{"name":"b","allowed_values":{"list":{"b":["true"]}}}]}`), `kernel 1: proto:`},
		{"invalid UTF-8", kernel("{\"op\":\"A\xff\",\"device_type\":\"GPU\"}"), `invalid UTF-8 in string`},
		{"no op", kernel(`{"op":"","device_type":"GPU"}`), `kernel 1: kernel has no op`},
		{"no device", kernel(`{"op":"A"}`), `kernel 1: kernel for op "A" has no device_type`},
		{"unnamed constraint", kernel(`{"op":"A","device_type":"GPU","constraint":[{"name":""}]}`), `constraint without an attr name`},
		{"empty object", kernel(`{}`), `kernel 1: kernel has no op`},
		{"not an object", kernel(`"A"`), `kernel 1: proto:`},
		{"trailing comma", kernel(`{"op":"A","device_type":"GPU"},`), `not a tfscan pack`},
		{"missing comma", strings.Replace(kernel(`{"op":"A","device_type":"GPU"}`), "},\n", "}\n", 1), `not a tfscan pack`},
		{"two kernels keys", strings.Replace(good, "\n}\n", ",\n\"kernels\": []\n}\n", 1), ``},
		{"Kernels after kernels", strings.Replace(good, "\n}\n", ",\n\"Kernels\": null\n}\n", 1), ``},
		{"KERNELS after kernels", strings.Replace(good, "\n}\n", ",\n\"KERNELS\": [{}]\n}\n", 1), `kernel 0: kernel has no op`},
		{"Kelvin sign", strings.Replace(good, "\n}\n", ",\n\"\u212aernels\": [{}]\n}\n", 1), `kernel 0: kernel has no op`},
		{"bad header after kernels", strings.Replace(good, "\n}\n", ",\n\"vendr\": 1\n}\n", 1), `unknown field "vendr"`},
		{"bad name", strings.Replace(good, `"name": "sample"`, `"name": "a b"`, 1), `spaces, commas or slashes`},
		{"truncated", good[:len(good)/2], `not a tfscan pack`},
		{"unterminated kernel", good[:strings.Index(good, `{"op":"Add"`)+8], `not a tfscan pack`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, ok := parsePackFast([]byte(tc.doc))
			want, wantErr := parsePackProtojson([]byte(tc.doc))
			got, err := parsePack([]byte(tc.doc))
			if tc.want == "" {
				// Valid, but not for the fast decode: the result is the plain one.
				require.NoError(t, wantErr)
				require.NoError(t, err)
				assert.False(t, ok)
				requireSamePack(t, want, got)
				return
			}
			assert.False(t, ok, "the fast decode gives up")
			require.Error(t, wantErr)
			assert.Contains(t, wantErr.Error(), tc.want)
			require.EqualError(t, err, wantErr.Error())
		})
	}
}

// FuzzParsePackFast checks that whatever the fast decode reads, the plain
// decode reads the same (when it gives up, parsePack is the plain decode).
func FuzzParsePackFast(f *testing.F) {
	var good bytes.Buffer
	_ = WritePack(&good, samplePack())
	f.Add(good.Bytes())
	f.Add([]byte(`{"format":"tfscan-pack/v1","name":"x","device_type":"CPU","source":"s","mechanism":"kernel","method":"live_dump","kernels":[{"op":"A","device_type":"CPU","priority":1}]}`))
	f.Add([]byte(`{"kernels":[],"Kernels":null}`))
	for _, p := range builtinPackJSON(f) {
		lines := kernelLines(p)
		f.Add(packWithKernels(f, string(lines[0]), string(lines[len(lines)-1])))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := parsePackFast(data)
		if !ok {
			return
		}
		want, err := parsePackProtojson(data)
		if err != nil {
			t.Fatalf("the fast decode read what the plain one refuses: %v", err)
		}
		requireSamePack(t, want, got)
	})
}

// FuzzKernelLine checks the kernel reader on its own (what it reads is valid
// JSON that protojson reads as the same KernelDef), and a pack holding the
// line: parsePack gives the plain decode's pack or its error.
func FuzzKernelLine(f *testing.F) {
	for _, p := range builtinPackJSON(f) {
		lines := kernelLines(p)
		for i := 0; i < len(lines); i += len(lines)/8 + 1 {
			f.Add(lines[i])
		}
	}
	f.Add([]byte(`{"op":"A","device_type":"GPU","constraint":[{"name":"T"}],"host_memory_arg":["x"],"label":"l","priority":-3}`))
	f.Add([]byte(`{"op":"A","device_type":"GPU","constraint":[{"name":"b","allowed_values":{"list":{"b":[true,false]}}},{"name":"n","allowed_values":{"list":{"i":["-1","7"]}}}]}`))
	doc := string(packWithKernels(f, `{"op":"Z","device_type":"GPU"}`, "KERNEL"))
	f.Fuzz(func(t *testing.T, line []byte) {
		data := []byte(strings.Replace(doc, "KERNEL", string(line), 1))
		want, wantErr := parsePackProtojson(data)
		got, err := parsePack(data)
		if wantErr != nil || err != nil {
			if wantErr == nil || err == nil || err.Error() != wantErr.Error() {
				t.Fatalf("parsePack: %v, plain decode: %v", err, wantErr)
			}
		} else {
			requireSamePack(t, want, got)
		}

		d := newKernelDecoder()
		k, end := d.kernel(line, 0)
		if k == nil {
			return
		}
		if !json.Valid(line[:end]) {
			t.Fatalf("read invalid JSON %q", line[:end])
		}
		wantK := &kdpb.KernelDef{}
		if err := protojson.Unmarshal(line[:end], wantK); err != nil {
			t.Fatalf("read what protojson refuses: %v", err)
		}
		if !proto.Equal(wantK, k) {
			t.Fatalf("got %v, protojson %v", k, wantK)
		}
	})
}

// BenchmarkParsePack reads the CPU pack (what every scan with placement
// reads) and every built-in pack from their embedded files as loadBuiltin
// does (fast) and as BuiltinPackLazy does (lazy: the kernels found, none
// decoded), with the plain decode as the same-run baseline (the plain
// decode: io.ReadAll of the file, parsePackProtojson). A step's peak
// heap counts its packs, held to its end as the caches hold them;
// fast-kept-MiB, lazy-kept-MiB and protojson-kept-MiB are what they hold
// after collection.
func BenchmarkParsePack(b *testing.B) {
	all := map[string][]byte{}
	names, err := builtinNames()
	require.NoError(b, err)
	for _, name := range names {
		all[name], err = builtinFile(name)
		require.NoError(b, err)
	}
	plain := func(file []byte) (*Pack, error) {
		data, err := io.ReadAll(bytes.NewReader(file))
		if err != nil {
			return nil, err
		}
		return parsePackProtojson(data)
	}
	// lazy is what a scan reads (BuiltinPackLazy): the pack, its kernels
	// found but none decoded.
	lazy := func(data []byte) (*Pack, error) {
		p, ok := parsePackLazy("", data)
		if !ok {
			return nil, errors.New("not read lazily")
		}
		return p, nil
	}
	read := func(decode func([]byte) (*Pack, error), names []string) []*Pack {
		var packs []*Pack
		for _, name := range names {
			p, err := decode(all[name])
			if err != nil {
				b.Fatal(err)
			}
			packs = append(packs, p)
		}
		return packs
	}
	// kept is the heap the decoded packs hold once the decode's garbage is
	// collected: what a scan keeps (loadBuiltin caches every pack it reads).
	kept := func(decode func([]byte) (*Pack, error), names []string) float64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		before := ms.HeapAlloc
		packs := read(decode, names)
		runtime.GC()
		runtime.ReadMemStats(&ms)
		runtime.KeepAlive(packs)
		return float64(ms.HeapAlloc-before) / (1 << 20)
	}
	for _, set := range []struct {
		name  string
		packs []string
	}{{"cpu", []string{"cpu"}}, {"all", names}} {
		b.Run(set.name, func(b *testing.B) {
			benchmodel.Compare(b,
				benchmodel.Step{Name: "protojson", Run: func() { read(plain, set.packs) }},
				benchmodel.Step{Name: "fast", Run: func() { read(parsePack, set.packs) }},
				benchmodel.Step{Name: "lazy", Run: func() { read(lazy, set.packs) }},
			)
			b.ReportMetric(kept(plain, set.packs), "protojson-kept-MiB")
			b.ReportMetric(kept(parsePack, set.packs), "fast-kept-MiB")
			b.ReportMetric(kept(lazy, set.packs), "lazy-kept-MiB")
		})
	}
}
