package kernels

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFloat16FromFloat32Known(t *testing.T) {
	tests := []struct {
		name string
		in   float32
		want Float16
	}{
		{"zero", 0, 0x0000},
		{"neg zero", float32(math.Copysign(0, -1)), 0x8000},
		{"one", 1, 0x3c00},
		{"minus two", -2, 0xc000},
		{"max", 65504, 0x7bff},
		{"below overflow tie rounds down", 65519.99, 0x7bff},
		{"overflow tie to even is Inf", 65520, 0x7c00},
		{"large to Inf", 1e10, 0x7c00},
		{"neg large to -Inf", -1e10, 0xfc00},
		{"Inf", float32(math.Inf(1)), 0x7c00},
		{"-Inf", float32(math.Inf(-1)), 0xfc00},
		{"smallest normal", 6.103515625e-05, 0x0400},
		{"largest subnormal", 6.097555160522461e-05, 0x03ff},
		{"smallest subnormal", 5.960464477539063e-08, 0x0001},
		{"half smallest subnormal ties to zero", 2.9802322387695312e-08, 0x0000},
		{"just above half smallest subnormal", math.Float32frombits(0x33000001), 0x0001},
		{"1.5 smallest subnormal ties to even 2", 8.940696716308594e-08, 0x0002},
		{"tie 1+2^-11 rounds to even 1", math.Float32frombits(0x3f801000), 0x3c00},
		{"tie 1+3*2^-11 rounds to even", math.Float32frombits(0x3f803000), 0x3c02},
		{"one third", 1.0 / 3, 0x3555},
		{"float32 subnormal to zero", math.Float32frombits(1), 0x0000},
		{"float32 max to Inf", math.MaxFloat32, 0x7c00},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Float16FromFloat32(tt.in), "%x", math.Float32bits(tt.in))
		})
	}
}

func TestFloat16NaN(t *testing.T) {
	for _, bits := range []uint32{0x7fc00000, 0xffc00000, 0x7f800001, 0x7fffffff, 0xff800001} {
		h := Float16FromFloat32(math.Float32frombits(bits))
		assert.True(t, h.IsNaN(), "%08x -> %04x", bits, h)
		assert.Equal(t, uint16(bits>>16)&0x8000, uint16(h)&0x8000, "sign kept")
		assert.True(t, math.IsNaN(float64(h.Float32())))
	}
	assert.Equal(t, Float16(0x7e00), Float16FromFloat32(float32(math.NaN())))
}

// TestFloat16AgainstNumPy compares against NumPy's float32→float16 casts
// recorded in testdata/half_golden.txt (see gen_half_golden.py).
func TestFloat16AgainstNumPy(t *testing.T) {
	f, err := os.Open("testdata/half_golden.txt")
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		require.Len(t, fields, 2, line)
		in, err := strconv.ParseUint(fields[0], 16, 32)
		require.NoError(t, err)
		want, err := strconv.ParseUint(fields[1], 16, 16)
		require.NoError(t, err)
		got := Float16FromFloat32(math.Float32frombits(uint32(in)))
		if Float16(want).IsNaN() {
			// NumPy keeps NaN payloads; TensorFlow (Eigen) canonicalises
			// them. Both are NaN with the same sign.
			if !got.IsNaN() || got&0x8000 != Float16(want)&0x8000 {
				t.Errorf("%08x: got %04x, want a NaN like %04x", in, got, want)
			}
		} else if got != Float16(want) {
			t.Errorf("%08x (%g): got %04x, want %04x", in, math.Float32frombits(uint32(in)), got, want)
		}
		n++
	}
	require.NoError(t, sc.Err())
	require.Greater(t, n, 10000)
}

// TestFloat16ToFloat32AgainstNumPy widens all 65536 float16 values and
// compares the bytes' hash with NumPy's.
func TestFloat16ToFloat32AgainstNumPy(t *testing.T) {
	want, err := os.ReadFile("testdata/half_to_float32.sha256")
	require.NoError(t, err)
	buf := make([]byte, 4*65536)
	for i := 0; i < 65536; i++ {
		binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(Float16(i).Float32()))
	}
	sum := sha256.Sum256(buf)
	assert.Equal(t, strings.TrimSpace(string(want)), hex.EncodeToString(sum[:]))
}

func TestFloat16RoundTrip(t *testing.T) {
	for i := 0; i < 65536; i++ {
		h := Float16(i)
		if h.IsNaN() {
			continue
		}
		require.Equal(t, h, Float16FromFloat32(h.Float32()), "%04x", i)
	}
}

func TestBFloat16(t *testing.T) {
	tests := []struct {
		name string
		in   uint32
		want BFloat16
	}{
		{"one", 0x3f800000, 0x3f80},
		{"zero", 0, 0},
		{"neg zero", 0x80000000, 0x8000},
		{"below tie rounds down", 0x3f807fff, 0x3f80},
		{"tie to even stays", 0x3f808000, 0x3f80},
		{"tie to even up", 0x3f818000, 0x3f82},
		{"above tie rounds up", 0x3f808001, 0x3f81},
		{"max rounds to Inf", 0x7f7fffff, 0x7f80},
		{"Inf", 0x7f800000, 0x7f80},
		{"-Inf", 0xff800000, 0xff80},
		{"NaN quiet", 0x7fc00000, 0x7fc0},
		{"signalling NaN quietened", 0x7f800001, 0x7fc0},
		{"negative NaN keeps sign", 0xff800001, 0xffc0},
		{"NaN whose rounding would carry", 0x7fffffff, 0x7fc0},
		{"subnormal", 0x00008000, 0x0000},
		{"subnormal tie rounds to even", 0x00018000, 0x0002},
		{"pi", 0x40490fdb, 0x4049},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, BFloat16FromFloat32(math.Float32frombits(tt.in)))
		})
	}
	for i := 0; i < 65536; i++ {
		b := BFloat16(i)
		f := b.Float32()
		assert.Equal(t, uint32(i)<<16, math.Float32bits(f))
		if !math.IsNaN(float64(f)) {
			require.Equal(t, b, BFloat16FromFloat32(f))
		}
	}
	assert.Equal(t, BFloat16(0x3f80), BFloat16TruncFromFloat32(math.Float32frombits(0x3f80ffff)))
}

func FuzzFloat16(f *testing.F) {
	f.Add(uint32(0x3f801000))
	f.Add(uint32(0x33000001))
	f.Fuzz(func(t *testing.T, bits uint32) {
		x := math.Float32frombits(bits)
		h := Float16FromFloat32(x)
		if math.IsNaN(float64(x)) {
			if !h.IsNaN() {
				t.Fatalf("NaN %08x -> %04x", bits, h)
			}
			return
		}
		// The result is a nearest binary16 value: no representable value
		// is strictly closer.
		y := float64(h.Float32())
		if math.IsInf(y, 0) {
			if math.Abs(float64(x)) < 65520 {
				t.Fatalf("%g -> Inf", x)
			}
			return
		}
		for _, n := range []Float16{h + 1, h - 1} {
			if n.IsNaN() || n&0x7fff == 0x7c00 || (h&0x7fff == 0 && n == h-1) {
				continue
			}
			if math.Abs(float64(n.Float32())-float64(x)) < math.Abs(y-float64(x)) {
				t.Fatalf("%g -> %04x but %04x is closer", x, h, n)
			}
		}
	})
}

// The in-place rounding of binary16's normals (Float16FromFloat32,
// RoundFloat16) against the step-by-step conversion, on every exponent and
// sign, every pattern of the bits the rounding reads (the 13 it drops and
// the last one it keeps) and a few of the bits above them; and Float32's
// rebiasing of normals on every binary16 value.
func TestFloat16FastPathsMatch(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		got, want := Float16(h).Float32(), Float16(h).float32Of()
		if math.Float32bits(got) != math.Float32bits(want) {
			t.Fatalf("Float16(%#04x).Float32() = %#08x, want %#08x", h, math.Float32bits(got), math.Float32bits(want))
		}
	}
	highs := []uint32{0, 0x1ff << 14, 0x155 << 14, 0xaa << 14, 0x1 << 14, 0x100 << 14}
	for sign := uint32(0); sign < 2; sign++ {
		for e := uint32(0); e < 256; e++ {
			for _, hi := range highs {
				for lo := uint32(0); lo < 1<<14; lo++ {
					b := sign<<31 | e<<23 | hi | lo
					f := math.Float32frombits(b)
					want := float16Of(f)
					if got := Float16FromFloat32(f); got != want {
						t.Fatalf("Float16FromFloat32(%#08x = %g) = %#04x, want %#04x", b, f, got, want)
					}
					got, wantF := RoundFloat16(f), want.float32Of()
					if math.Float32bits(got) != math.Float32bits(wantF) {
						t.Fatalf("RoundFloat16(%#08x = %g) = %#08x, want %#08x", b, f, math.Float32bits(got), math.Float32bits(wantF))
					}
				}
			}
		}
	}
}
