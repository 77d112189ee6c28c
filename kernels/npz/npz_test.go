package npz

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/kernels"
)

// want holds the arrays testdata/gen.py writes with NumPy.
var want = map[string]*kernels.Tensor{
	"f2":     {DType: tpb.DataType_DT_HALF, Shape: []int{2, 3}, Data: []kernels.Float16{0x3c00, 0xc100, 0x7bff, 0, 0x0001, 0x7c00}},
	"f4":     {DType: tpb.DataType_DT_FLOAT, Shape: []int{2, 2}, Data: []float32{1.5, float32(math.Copysign(0, -1)), 3.25, 1e-30}},
	"f8":     {DType: tpb.DataType_DT_DOUBLE, Shape: []int{2}, Data: []float64{math.Pi, -1e300}},
	"i1":     {DType: tpb.DataType_DT_INT8, Shape: []int{3}, Data: []int8{-128, 0, 127}},
	"i2":     {DType: tpb.DataType_DT_INT16, Shape: []int{2}, Data: []int16{-32768, 7}},
	"i4":     {DType: tpb.DataType_DT_INT32, Shape: []int{1, 2, 3}, Data: []int32{0, 1, 2, 3, 4, 5}},
	"i8":     {DType: tpb.DataType_DT_INT64, Shape: []int{2}, Data: []int64{math.MinInt64, 1 << 62}},
	"u1":     {DType: tpb.DataType_DT_UINT8, Shape: []int{2}, Data: []uint8{0, 255}},
	"u2":     {DType: tpb.DataType_DT_UINT16, Shape: []int{1}, Data: []uint16{65535}},
	"u4":     {DType: tpb.DataType_DT_UINT32, Shape: []int{1}, Data: []uint32{math.MaxUint32}},
	"u8":     {DType: tpb.DataType_DT_UINT64, Shape: []int{1}, Data: []uint64{math.MaxUint64}},
	"b1":     {DType: tpb.DataType_DT_BOOL, Shape: []int{3}, Data: []bool{true, false, true}},
	"scalar": {DType: tpb.DataType_DT_FLOAT, Shape: []int{}, Data: []float32{2.5}},
	"empty":  {DType: tpb.DataType_DT_FLOAT, Shape: []int{0, 3}, Data: []float32{}},
	"c8": {DType: tpb.DataType_DT_COMPLEX64, Shape: []int{3}, Data: []complex64{1 + 2i,
		complex(float32(math.Copysign(0, -1)), -1.5), complex(float32(math.Inf(1)), float32(math.Inf(-1)))}},
	"c16": {DType: tpb.DataType_DT_COMPLEX128, Shape: []int{2, 1}, Data: []complex128{complex(math.Pi, -1e300), 0}},
}

func TestBytesStrings(t *testing.T) {
	want := &kernels.Tensor{DType: tpb.DataType_DT_STRING, Shape: []int{3}, Data: [][]byte{[]byte("foo"), {}, []byte("wombat")}}
	got, err := Read(filepath.Join("testdata", "S.npy"))
	require.NoError(t, err)
	assert.Equal(t, want, got["arr_0"])
	var buf bytes.Buffer
	require.NoError(t, WriteNPY(&buf, want))
	np, err := os.ReadFile(filepath.Join("testdata", "S.npy"))
	require.NoError(t, err)
	assert.Equal(t, string(np), buf.String(), "same bytes as numpy.save")
}

func TestReadNumPyFiles(t *testing.T) {
	for name, w := range want {
		t.Run(name, func(t *testing.T) {
			got, err := Read(filepath.Join("testdata", name+".npy"))
			require.NoError(t, err)
			assert.Equal(t, w, got["arr_0"])
		})
	}
	for _, f := range []string{"f4_v2.npy", "f4_v3.npy"} {
		got, err := Read(filepath.Join("testdata", f))
		require.NoError(t, err, f)
		assert.Equal(t, want["f4"], got["arr_0"], f)
	}
	// gen.py writes the complex arrays on their own, not into the archives.
	inAll := map[string]*kernels.Tensor{}
	for k, v := range want {
		if k != "c8" && k != "c16" {
			inAll[k] = v
		}
	}
	for _, f := range []string{"all.npz", "all_compressed.npz"} {
		got, err := Read(filepath.Join("testdata", f))
		require.NoError(t, err, f)
		assert.Equal(t, inAll, got, f)
	}
}

// TestWriteMatchesNumPy checks that WriteNPY's bytes equal numpy.save's.
func TestWriteMatchesNumPy(t *testing.T) {
	for name, w := range want {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			require.NoError(t, WriteNPY(&buf, w))
			np, err := os.ReadFile(filepath.Join("testdata", name+".npy"))
			require.NoError(t, err)
			assert.Equal(t, string(np), buf.String())
		})
	}
}

func TestRoundTripNPZ(t *testing.T) {
	in := map[string]*kernels.Tensor{}
	for k, v := range want {
		in[k] = v
	}
	in["bf16"] = &kernels.Tensor{DType: tpb.DataType_DT_BFLOAT16, Shape: []int{2}, Data: []kernels.BFloat16{0x3f80, 0xc000}}
	in["input:0"] = kernels.ScalarInt32(3)
	path := filepath.Join(t.TempDir(), "x.npz")
	require.NoError(t, Write(path, in))
	got, err := Read(path)
	require.NoError(t, err)
	assert.Equal(t, in, got)
	// Deterministic bytes.
	var a, b bytes.Buffer
	require.NoError(t, Encode(&a, in))
	require.NoError(t, Encode(&b, in))
	assert.Equal(t, a.Bytes(), b.Bytes())
}

func TestReadErrors(t *testing.T) {
	tests := []struct {
		file string
		want string
	}{
		{"bad_fortran.npy", "fortran_order"},
		{"bad_bigendian.npy", `unsupported dtype ">i4"`},
		{"bad_unicode.npy", `unsupported dtype "<U2"`},
		{"gen.py", "not an .npz or .npy file"},
		{"missing.npz", "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			_, err := Read(filepath.Join("testdata", tt.file))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.Contains(t, err.Error(), tt.file)
		})
	}
	// Truncated data and trailing bytes.
	np, err := os.ReadFile("testdata/f4.npy")
	require.NoError(t, err)
	_, err = ReadNPY(bytes.NewReader(np[:len(np)-1]))
	assert.ErrorContains(t, err, "truncated")
	_, err = ReadNPY(bytes.NewReader(append(np, 0)))
	assert.ErrorContains(t, err, "after the array data")
	_, err = ReadNPY(bytes.NewReader(np[:20]))
	assert.ErrorContains(t, err, "truncated .npy header")
	// Corrupt member of a zip (CRC).
	z, err := os.ReadFile("testdata/all.npz")
	require.NoError(t, err)
	i := bytes.Index(z, []byte("\x93NUMPY"))
	z[i+200] ^= 0xff
	p := filepath.Join(t.TempDir(), "c.npz")
	require.NoError(t, os.WriteFile(p, z, 0o644))
	_, err = Read(p)
	assert.Error(t, err)
}

func TestParseHeader(t *testing.T) {
	tests := []struct {
		in    string
		shape []int
		err   string
	}{
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", []int{2, 3}, ""},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (), }   \n", []int{}, ""},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (7,)}", []int{7}, ""},
		{`{"descr": "<f4", "fortran_order": False, "shape": (3L,)}`, []int{3}, ""},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}", nil, "unexpected"},
		{"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,)}", nil, "structured"},
		{"{'descr': '<f4', 'fortran_order': False}", nil, "'shape'"},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}", nil, "out of range"},
		{"{'descr': '<f4', 'descr': '<f4'}", nil, "duplicate"},
		{"{'descr': '<f4'", nil, "missing"},
		{"((((((((((1))))))))))", nil, "too deep"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			h, err := ParseHeader(tt.in)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.shape, h.Shape)
		})
	}
}

func FuzzReadNPY(f *testing.F) {
	for _, n := range []string{"f4.npy", "scalar.npy", "b1.npy", "f4_v2.npy"} {
		b, err := os.ReadFile(filepath.Join("testdata", n))
		if err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		x, err := ReadNPY(bytes.NewReader(b))
		if err == nil {
			if err := x.Validate(); err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := WriteNPY(&buf, x); err != nil {
				t.Fatal(err)
			}
		}
	})
}
