package tflog

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.json")

// The fixtures in testdata are written from the message templates cited in
// patterns.go; the golden files hold what the parser reads from them.
// The fixtures in testdata/tf2.15 are real TensorFlow 2.15 logs
// (tools/tf/make_logs.py, testdata/tf2.15/README.md).
func TestParseFixtures(t *testing.T) {
	logs, err := filepath.Glob("testdata/*.log")
	require.NoError(t, err)
	real, err := filepath.Glob("testdata/tf2.15/*.log")
	require.NoError(t, err)
	require.NotEmpty(t, logs)
	require.NotEmpty(t, real)
	logs = append(logs, real...)
	for _, path := range logs {
		t.Run(strings.TrimPrefix(path, "testdata/"), func(t *testing.T) {
			l, err := ParseFile(path, nil)
			require.NoError(t, err)
			got, err := json.MarshalIndent(l, "", "  ")
			require.NoError(t, err)
			got = append(got, '\n')
			golden := strings.TrimSuffix(path, ".log") + ".golden.json"
			if *update {
				require.NoError(t, os.WriteFile(golden, got, 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run go test ./tflog -update")
			assert.Equal(t, string(want), string(got))
		})
	}
}

func TestParseEmptyAndPlainText(t *testing.T) {
	for _, in := range []string{"", "\n\n", "epoch 1/10 loss 0.31\nepoch 2/10 loss 0.29\n"} {
		l, err := Parse(strings.NewReader(in))
		require.NoError(t, err)
		assert.Empty(t, l.Messages)
		assert.Empty(t, l.Placements)
		assert.Zero(t, l.Unparsed)
	}
}

func TestParseBinaryRefused(t *testing.T) {
	_, err := Parse(bytes.NewReader([]byte{0x08, 0x01, 0x12, 0x00, 0x1a}))
	assert.ErrorIs(t, err, ErrBinary)
	assert.ErrorContains(t, err, "NUL byte at offset 3")
}

func TestParseGzip(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write([]byte("x: (Placeholder): /job:localhost/replica:0/task:0/device:XPU:0\n"))
	require.NoError(t, zw.Close())
	l, err := Parse(&buf)
	require.NoError(t, err)
	assert.Equal(t, []Placement{{Name: "x", Op: "Placeholder", Device: "XPU:0", Line: 1}}, l.Placements)

	_, err = Parse(bytes.NewReader([]byte{0x1f, 0x8b, 0x00}))
	assert.ErrorContains(t, err, "bad gzip data")
}

// A line past MaxLine is cut, not an error and not an unbounded buffer; the
// lines after it are read as usual.
func TestParseLongLine(t *testing.T) {
	in := strings.Repeat("x", 3*MaxLine) + "\n" +
		"No OpKernel was registered to support Op 'Erf' used by {{node e}} with these attrs: [T=DT_DOUBLE" + strings.Repeat("y", MaxLine) + "]\n" +
		"mm: (MatMul): /job:localhost/replica:0/task:0/device:XPU:0\n"
	l, err := Parse(strings.NewReader(in))
	require.NoError(t, err)
	assert.Equal(t, 3, l.Lines)
	assert.Equal(t, 2, l.CutLines)
	require.Len(t, l.Messages, 1, "the cut header still opens its message")
	assert.Equal(t, "e", l.Messages[0].Node)
	assert.LessOrEqual(t, len(l.Messages[0].Text), MaxText)
	assert.Len(t, l.Placements, 1)
}

// Repeated messages are counted once each, so a log of many retries holds
// what one holds.
func TestParseRepeats(t *testing.T) {
	msg := "InvalidArgumentError: No OpKernel was registered to support Op 'Erf' used by {{node e}} with these attrs: [T=DT_DOUBLE]\nRegistered devices: [CPU, XPU]\nRegistered kernels:\n  <no registered kernels>\n\n"
	l, err := Parse(strings.NewReader(strings.Repeat(msg, 1000)))
	require.NoError(t, err)
	require.Len(t, l.Messages, 1)
	assert.Equal(t, 1000, l.Messages[0].Count)
	assert.True(t, l.Messages[0].KernelsListed)
	assert.Empty(t, l.Messages[0].Kernels)
	assert.Equal(t, []string{"CPU", "XPU"}, l.Messages[0].RegisteredDevices)
}

func TestParseKernel(t *testing.T) {
	long := `["` + strings.Repeat("a", 100) + `"]`
	var thirty []string
	for i := 0; i < 30; i++ {
		thirty = append(thirty, "DT_FLOAT")
	}
	elidedList := "[" + strings.Join(append(append(thirty[:5:5], "..."), thirty[:6]...), ", ") + "]{attr_hash=123}"
	for _, tc := range []struct {
		in     string
		want   Kernel
		elided bool
		ok     bool
	}{
		{"device='CPU'", Kernel{DeviceType: "CPU"}, false, true},
		{"device='XPU'; T in [DT_HALF, DT_FLOAT]", Kernel{DeviceType: "XPU", Constraints: []Constraint{{Name: "T", Types: []string{"DT_HALF", "DT_FLOAT"}}}}, false, true},
		{"device='GPU'; label='cudnn'; T in [DT_HALF]; Tidx in [DT_INT32, DT_INT64]",
			Kernel{DeviceType: "GPU", Label: "cudnn", Constraints: []Constraint{{Name: "T", Types: []string{"DT_HALF"}}, {Name: "Tidx", Types: []string{"DT_INT32", "DT_INT64"}}}}, false, true},
		{`device='CPU'; data_format in ["NHWC", "a, \"b\""]`, Kernel{DeviceType: "CPU", Constraints: []Constraint{{Name: "data_format", Strings: []string{"NHWC", `a, "b"`}}}}, false, true},
		{"device='CPU'; N in [1, 2]; keep_dims in [true]", Kernel{DeviceType: "CPU", Constraints: []Constraint{{Name: "N", Ints: []int64{1, 2}}, {Name: "keep_dims", Bools: []bool{true}}}}, false, true},
		{"device='CPU'; T in " + elidedList, Kernel{}, true, true},
		{`device='CPU'; s in ["aaaaaaaaaa...aaaaaaaaaa"]`, Kernel{}, true, true},
		{"device='CPU'; s in " + long, Kernel{DeviceType: "CPU", Constraints: []Constraint{{Name: "s", Strings: []string{strings.Repeat("a", 100)}}}}, false, true},
		{"device='CPU'; T in []", Kernel{}, false, false},
		{"device='CPU'; T in [DT_FLOAT", Kernel{}, false, false},
		{"device='CPU' T in [DT_FLOAT]", Kernel{}, false, false},
		{"device=CPU", Kernel{}, false, false},
	} {
		k, elided, ok := parseKernel(tc.in)
		assert.Equal(t, tc.ok, ok, tc.in)
		assert.Equal(t, tc.elided, elided, tc.in)
		if tc.ok && !tc.elided {
			assert.Equal(t, tc.want, k, tc.in)
		}
	}
}

func TestNormDevice(t *testing.T) {
	for in, want := range map[string]string{
		"/job:localhost/replica:0/task:0/device:XPU:0": "XPU:0",
		"/device:GPU:1":                   "GPU:1",
		"/device:npu":                     "NPU",
		"/gpu:0":                          "GPU:0",
		"/job:localhost/replica:0/task:0": "",
		"XPU":                             "XPU",
		"CPU:0":                           "CPU:0",
		"":                                "",
	} {
		assert.Equal(t, want, normDevice(in), in)
	}
}

// What counts as unparsed (unparsed.go): marker phrases and warnings of the
// sources tfscan reads; nothing else.
func TestUnparsedRule(t *testing.T) {
	for line, want := range map[string]bool{
		"Incompatible shapes: [2] vs. [3]\n\t [[{{node add}}]]":                                         true,
		"2026-03-02 10:00:00.000000: W tensorflow/core/common_runtime/placer.cc:999] something new":     true,
		"2026-03-02 10:00:00.000000: I tensorflow/core/common_runtime/placer.cc:999] something new":     false,
		"W0302 10:00:00.000000   1234 colocation_graph.cc:1] a warning":                                 true,
		"[ERROR] GE(1,python):2026-03-02-10:00:00.000.000 [dnnengine_manager.cc:1]1 a GE error":         true,
		"[ERROR] GE(1,python):2026-03-02-10:00:00.000.000 [graph_manager.cc:1]1 a GE error":             false,
		"2026-03-02 10:00:00.000000: W tensorflow/core/kernels/data/iterator_ops.cc:1] end of sequence": false,
		"Epoch 1/3": false,
		"The op Foo has no OpKernel for this dtype": true,
	} {
		l, err := Parse(strings.NewReader(line))
		require.NoError(t, err)
		assert.Equal(t, want, l.Unparsed > 0, line)
	}
}

func FuzzParse(f *testing.F) {
	for _, path := range []string{"tf_graph_errors.log", "tf_soft_placement.log", "ascend_tf1.log", "ascend_tf2.log", "tf2.15/explicit_device_group.log"} {
		b, err := os.ReadFile(filepath.Join("testdata", path))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("device='CPU'; T in [DT_FLOAT]")
	f.Fuzz(func(t *testing.T, s string) {
		l, err := Parse(strings.NewReader(s))
		if err != nil {
			return
		}
		if l.Unparsed > l.Lines || l.CutLines > l.Lines {
			t.Fatalf("counts past the line count: %+v", l)
		}
		for _, m := range l.Messages {
			if m.Line < 1 || m.Line > l.Lines || m.Count < 1 || len(m.Text) > MaxText {
				t.Fatalf("bad message %+v", m)
			}
		}
		if _, err := json.Marshal(l); err != nil {
			t.Fatal(err)
		}
	})
}

// benchLog is a 20 MB placement log, built once.
var benchLog = sync.OnceValue(func() string {
	var sb strings.Builder
	sb.Grow(21 << 20)
	for i := 0; sb.Len() < 20<<20; i++ {
		sb.WriteString("2026-03-02 10:00:00.000000: I tensorflow/core/common_runtime/placer.cc:125] model/layer_")
		sb.WriteString(strings.Repeat("x", i%7))
		sb.WriteString("/MatMul: (MatMul): /job:localhost/replica:0/task:0/device:XPU:0\n")
		sb.WriteString("Epoch 1/10 - loss: 0.3120 - accuracy: 0.9011\n")
	}
	return sb.String()
})

// BenchmarkParse measures the parser on a 20 MB log against reading the
// same lines with bufio.Scanner, the floor any line parser pays.
func BenchmarkParse(b *testing.B) {
	data := benchLog()
	b.Run("baseline_scanner", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for i := 0; i < b.N; i++ {
			sc := bufio.NewScanner(strings.NewReader(data))
			n := 0
			for sc.Scan() {
				n++
			}
		}
	})
	b.Run("parse", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for i := 0; i < b.N; i++ {
			if _, err := Parse(strings.NewReader(data)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func TestEveryHeaderKindIsListed(t *testing.T) {
	for _, h := range headers {
		assert.Contains(t, Kinds(), string(h.kind))
		assert.NotEmpty(t, h.source, h.kind)
	}
}

// repeatReader streams a text n times without holding it n times.
type repeatReader struct {
	text string
	n, i int
	off  int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.i >= r.n {
		return 0, io.EOF
	}
	k := copy(p, r.text[r.off:])
	r.off += k
	if r.off == len(r.text) {
		r.off, r.i = 0, r.i+1
	}
	return k, nil
}

// A long log of repeated messages and placements is read in bounded memory:
// what is kept grows with the distinct messages, not with the bytes.
func TestParseStreamsInBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 16 MB")
	}
	b, err := os.ReadFile(filepath.Join("testdata", "tf_graph_errors.log"))
	require.NoError(t, err)
	text := string(b) + "pool1/MaxPool: (MaxPool): /job:localhost/replica:0/task:0/device:CPU:0\n"
	n := (16 << 20) / len(text)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	l, err := Parse(&repeatReader{text: text, n: n})
	require.NoError(t, err)
	runtime.GC()
	runtime.ReadMemStats(&after)
	assert.Equal(t, n*strings.Count(text, "\n"), l.Lines)
	assert.Len(t, l.Messages, 7)
	assert.Equal(t, n, l.Messages[0].Count)
	assert.Len(t, l.Placements, 1)
	assert.Less(t, int64(after.HeapAlloc)-int64(before.HeapAlloc), int64(4<<20), "16 MB of log keep less than 4 MB")
}

// Editors and log collectors strip trailing blanks; TensorFlow ends each
// "Op: TYPE " line of a colocation debug block with one. A real log read
// with them stripped says the same (the kernel list after the block
// included).
func TestParseRealTrimmed(t *testing.T) {
	logs, err := filepath.Glob("testdata/tf2.15/*.log")
	require.NoError(t, err)
	require.NotEmpty(t, logs)
	for _, path := range logs {
		t.Run(filepath.Base(path), func(t *testing.T) {
			raw, err := os.ReadFile(path)
			require.NoError(t, err)
			want, err := Parse(bytes.NewReader(raw))
			require.NoError(t, err)
			var trimmed strings.Builder
			for _, line := range strings.SplitAfter(string(raw), "\n") {
				trimmed.WriteString(strings.TrimRight(line, " \t\n"))
				if strings.HasSuffix(line, "\n") {
					trimmed.WriteString("\n")
				}
			}
			got, err := Parse(strings.NewReader(trimmed.String()))
			require.NoError(t, err)
			for _, m := range append(want.Messages, got.Messages...) {
				m.Text = strings.TrimRight(m.Text, " \t")
			}
			assert.Equal(t, want, got)
		})
	}
}
