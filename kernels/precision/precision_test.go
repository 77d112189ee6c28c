package precision

import (
	"bufio"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/kernels"
)

func f32(bits uint32) float32 { return math.Float32frombits(bits) }

func TestFloat16RoundingBits(t *testing.T) {
	tests := []struct {
		name string
		in   float32
		want uint16
	}{
		{"one", 1, 0x3c00},
		{"third", 1.0 / 3, 0x3555},
		{"max", 65504, 0x7bff},
		{"below the max/inf midpoint", 65519, 0x7bff},
		{"tie at the top rounds to even = Inf", 65520, 0x7c00},
		{"overflow", 1e9, 0x7c00},
		{"negative overflow", -70000, 0xfc00},
		{"tie 2049 -> 2048 (even)", 2049, 0x6800},
		{"tie 2051 -> 2052 (even)", 2051, 0x6802},
		{"smallest normal", 0x1p-14, 0x0400},
		{"smallest subnormal", 0x1p-24, 0x0001},
		{"half the smallest subnormal ties to 0", 0x1p-25, 0x0000},
		{"1.5 x half the smallest subnormal", 0x1.8p-25, 0x0001},
		{"subnormal tie 3 x 2^-25 -> 2 x 2^-24", 0x1.8p-24, 0x0002},
		{"largest subnormal + tie goes to smallest normal", 0x1p-14 - 0x1p-25, 0x0400},
		{"float32 subnormal", f32(1), 0x0000},
		{"negative zero", float32(math.Copysign(0, -1)), 0x8000},
		{"inf", float32(math.Inf(1)), 0x7c00},
		{"nan", f32(0x7fc00000), 0x7e00},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, uint16(kernels.Float16FromFloat32(tt.in)))
		})
	}
}

func TestBFloat16RoundingBits(t *testing.T) {
	tests := []struct {
		name string
		in   float32
		want uint16
	}{
		{"one", 1, 0x3f80},
		{"tie 1+2^-8 -> 1 (even)", f32(0x3f808000), 0x3f80},
		{"tie 1+3*2^-8 -> 1+2^-6 (even)", f32(0x3f818000), 0x3f82},
		{"above the tie", f32(0x3f808001), 0x3f81},
		{"100000", 100000, 0x47c3}, // 99840
		{"float32 max overflows", math.MaxFloat32, 0x7f80},
		{"bf16 max", MaxBFloat16, 0x7f7f},
		{"float32 subnormal kept", f32(0x00010000), 0x0001},
		{"nan", f32(0x7fa00000), 0x7fc0},
		{"negative", -2.5, 0xc020},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, uint16(kernels.BFloat16FromFloat32(tt.in)))
		})
	}
	assert.Equal(t, float32(99840), RoundBFloat16(100000))
}

func TestRoundTF32(t *testing.T) {
	tests := []struct {
		name string
		in   uint32
		want uint32
	}{
		{"exact", 0x3f800000, 0x3f800000},
		{"tie 1+2^-11 -> 1 (even)", 0x3f801000, 0x3f800000},
		{"tie 1+3*2^-11 -> 1+2^-9 (even)", 0x3f803000, 0x3f804000},
		{"above the tie rounds up", 0x3f801001, 0x3f802000},
		{"below the tie rounds down", 0x3f800fff, 0x3f800000},
		{"1+3*2^-12 -> 1+2^-10", 0x3f801800, 0x3f802000},
		{"negative", 0xbf801800, 0xbf802000},
		{"float32 max overflows to inf", 0x7f7fffff, 0x7f800000},
		{"carry into the exponent", 0x3fffffff, 0x40000000},
		{"subnormal", 0x00001fff, 0x00002000},
		{"inf", 0x7f800000, 0x7f800000},
		{"nan stays nan", 0x7fc00001, 0x7fc00001},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := math.Float32bits(RoundTF32(f32(tt.in)))
			assert.Equal(t, tt.want, got, "got %08x", got)
			if tt.want&0x7f800000 != 0x7f800000 {
				assert.Zero(t, got&0x1fff, "TF32 keeps 10 mantissa bits")
			}
		})
	}
}

// TestFloat16MatchesNumPy checks the float16 rounding against NumPy's
// astype(np.float16) on the cases in testdata/parity/float16_numpy.txt
// (written by gen_float16.py with Debian's python3-numpy).
func TestFloat16MatchesNumPy(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "..", "testdata", "parity", "float16_numpy.txt"))
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		a, b, ok := strings.Cut(line, " ")
		require.True(t, ok, line)
		in, err := strconv.ParseUint(a, 16, 32)
		require.NoError(t, err)
		want, err := strconv.ParseUint(b, 16, 16)
		require.NoError(t, err)
		got := kernels.Float16FromFloat32(f32(uint32(in)))
		if !assert.Equal(t, uint16(want), uint16(got), "float32 %08x", in) {
			continue
		}
		// The round trip is what RoundFloat16 stores.
		assert.Equal(t, math.Float32bits(got.Float32()), math.Float32bits(RoundFloat16(f32(uint32(in)))))
		n++
	}
	require.NoError(t, sc.Err())
	assert.Greater(t, n, 4000)
}

func TestFlushToZero(t *testing.T) {
	neg0 := float32(math.Copysign(0, -1))
	assert.Equal(t, float32(0), FlushFloat32(f32(1)))
	assert.Equal(t, math.Float32bits(neg0), math.Float32bits(FlushFloat32(-f32(1))))
	assert.Equal(t, float32(MinNormalFloat32), FlushFloat32(MinNormalFloat32))
	assert.Equal(t, float32(0), FlushFloat16(0x1p-15))
	assert.Equal(t, float32(0x1p-14), FlushFloat16(0x1p-14))

	p, err := Lookup(FP16, true)
	require.NoError(t, err)
	store := p.Store()
	assert.Equal(t, float32(0), store(0x1p-20), "a half subnormal is flushed")
	assert.Equal(t, float32(0x1p-14), store(0x1p-14))
	p, err = Lookup(FP16, false)
	require.NoError(t, err)
	assert.Equal(t, float32(0x1p-20), p.Store()(0x1p-20), "without FTZ the subnormal is kept")
}

func TestULPDistance(t *testing.T) {
	tests := []struct {
		name    string
		a, b    float64
		storage tpb.DataType
		want    uint64
	}{
		{"same", 1, 1, tpb.DataType_DT_HALF, 0},
		{"half neighbours", 1, 1 + 0x1p-10, tpb.DataType_DT_HALF, 1},
		{"rounds to the same half", 1, 1 + 0x1p-12, tpb.DataType_DT_HALF, 0},
		{"across zero", 0x1p-24, -0x1p-24, tpb.DataType_DT_HALF, 2},
		{"+0 and -0", 0, math.Copysign(0, -1), tpb.DataType_DT_FLOAT, 0},
		{"max to inf", 65504, math.Inf(1), tpb.DataType_DT_HALF, 1},
		{"float32 neighbours", 1, float64(math.Nextafter32(1, 2)), tpb.DataType_DT_FLOAT, 1},
		{"bf16 steps", 1, 1 + 4*0x1p-7, tpb.DataType_DT_BFLOAT16, 4},
		{"nan vs number", math.NaN(), 1, tpb.DataType_DT_FLOAT, NaNULP},
		{"nan vs nan", math.NaN(), math.NaN(), tpb.DataType_DT_FLOAT, 0},
		{"float64", 1, math.Nextafter(1, 2), tpb.DataType_DT_DOUBLE, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, ULPDistance(tt.a, tt.b, tt.storage))
			assert.Equal(t, tt.want, ULPDistance(tt.b, tt.a, tt.storage), "symmetric")
		})
	}
}

func TestLookupProfiles(t *testing.T) {
	tests := []struct {
		name             string
		storage          tpb.DataType
		operand, accum   bool
		nilEmu, hasMixed bool
	}{
		{FP32, tpb.DataType_DT_FLOAT, false, false, true, false},
		{TF32, tpb.DataType_DT_FLOAT, true, false, false, false},
		{FP16, tpb.DataType_DT_HALF, true, false, false, false},
		{FP16Acc16, tpb.DataType_DT_HALF, true, true, false, false},
		{BF16, tpb.DataType_DT_BFLOAT16, true, false, false, false},
		{MixedFloat16, tpb.DataType_DT_FLOAT, false, false, false, true},
		{MixedBFloat16, tpb.DataType_DT_FLOAT, false, false, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Lookup(tt.name, false)
			require.NoError(t, err)
			assert.Equal(t, tt.name, p.Name)
			assert.Equal(t, tt.storage, p.Storage)
			assert.Equal(t, tt.operand, p.Operand != nil)
			assert.Equal(t, tt.accum, p.Accum != nil)
			assert.Equal(t, tt.hasMixed, p.Mixed != nil)
			assert.Equal(t, tt.nilEmu, p.Emulation() == nil)
			q, err := Lookup(tt.name, true)
			require.NoError(t, err)
			assert.Equal(t, tt.name+"+ftz", q.Name)
			assert.NotNil(t, q.Emulation(), "FTZ always rounds at stores")
		})
	}
	_, err := Lookup("fp8", false)
	assert.ErrorContains(t, err, `unknown precision profile "fp8"`)
	assert.Len(t, Names(), 7)

	fp16, _ := Lookup(FP16, false)
	e := fp16.Emulation()
	assert.Equal(t, float32(0x1p-10+1), e.RoundStorage(1+0x1.8p-11))
	acc, _ := Lookup(FP16Acc16, false)
	assert.Equal(t, float32(2048), acc.Emulation().RoundAccum(2049))
}

func TestDefaultFor(t *testing.T) {
	assert.Equal(t, TF32, DefaultFor("cuda", "GPU").Profile)
	assert.Contains(t, DefaultFor("cuda", "GPU").Why, "tensor_float_32_utils.cc")
	assert.Equal(t, FP32, DefaultFor("rocm", "GPU").Profile)
	assert.Equal(t, FP32, DefaultFor("cpu", "CPU").Profile)
	assert.Equal(t, FP32, DefaultFor("ascend", "NPU").Profile)
	assert.Contains(t, DefaultFor("xpu", "XPU").Why, "assumed")
}

func TestStorageLimits(t *testing.T) {
	assert.Equal(t, 65504.0, StorageMax(tpb.DataType_DT_HALF))
	assert.Equal(t, float64(math.Float32frombits(0x7f7f0000)), StorageMax(tpb.DataType_DT_BFLOAT16))
	assert.Equal(t, float64(math.MaxFloat32), StorageMax(tpb.DataType_DT_FLOAT))
	assert.Equal(t, 0x1p-14, StorageMinNormal(tpb.DataType_DT_HALF))
}

// TestHalfValuesAreFixedPoints: every finite float16 and bfloat16 value
// survives the store rounding unchanged, and its neighbours' midpoints
// round to the even one.
func TestHalfValuesAreFixedPoints(t *testing.T) {
	for h := 0; h < 0x7c00; h++ {
		v := kernels.Float16(h).Float32()
		require.Equal(t, v, RoundFloat16(v), "half %04x", h)
		require.Equal(t, -v, RoundFloat16(-v), "half %04x", h|0x8000)
		if h+1 < 0x7c00 {
			mid := float32((float64(v) + float64(kernels.Float16(h+1).Float32())) / 2)
			even := uint16(h)
			if h&1 == 1 {
				even = uint16(h + 1)
			}
			require.Equal(t, even, uint16(kernels.Float16FromFloat32(mid)), "midpoint after %04x", h)
		}
	}
	for b := 0; b < 0x7f80; b++ {
		v := kernels.BFloat16(b).Float32()
		require.Equal(t, v, RoundBFloat16(v), "bfloat16 %04x", b)
	}
}
