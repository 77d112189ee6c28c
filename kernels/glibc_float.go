package kernels

import "math"

// glibc's float32 logf and sincosf (sysdeps/ieee754/flt-32/e_logf.c,
// s_sincosf.c and their data files, from Arm's optimized-routines; glibc
// 2.28 and later), which TensorFlow's CPU kernels call for float32 log,
// sin and cos outside Eigen's vectorised paths (the normal distribution's
// Box-Muller transform). They are not correctly rounded: the float64
// function rounded to float32 differs from them in about one value of 150.
// On x86-64 with FMA glibc picks its *_fma builds, where GCC contracts each
// a*b+c into one fused multiply-add; fused selects that build.

var logfTab = [16][2]float64{
	{0x1.661ec79f8f3bep+0, -0x1.57bf7808caadep-2},
	{0x1.571ed4aaf883dp+0, -0x1.2bef0a7c06ddbp-2},
	{0x1.49539f0f010bp+0, -0x1.01eae7f513a67p-2},
	{0x1.3c995b0b80385p+0, -0x1.b31d8a68224e9p-3},
	{0x1.30d190c8864a5p+0, -0x1.6574f0ac07758p-3},
	{0x1.25e227b0b8eap+0, -0x1.1aa2bc79c81p-3},
	{0x1.1bb4a4a1a343fp+0, -0x1.a4e76ce8c0e5ep-4},
	{0x1.12358f08ae5bap+0, -0x1.1973c5a611cccp-4},
	{0x1.0953f419900a7p+0, -0x1.252f438e10c1ep-5},
	{0x1p+0, 0x0p+0},
	{0x1.e608cfd9a47acp-1, 0x1.aa5aa5df25984p-5},
	{0x1.ca4b31f026aap-1, 0x1.c5e53aa362eb4p-4},
	{0x1.b2036576afce6p-1, 0x1.526e57720db08p-3},
	{0x1.9c2d163a1aa2dp-1, 0x1.bc2860d22477p-3},
	{0x1.886e6037841edp-1, 0x1.1058bc8a07ee1p-2},
	{0x1.767dcf5534862p-1, 0x1.4043057b6ee09p-2},
}

const (
	logfLn2 = 0x1.62e42fefa39efp-1
	logfA0  = -0x1.00ea348b88334p-2
	logfA1  = 0x1.5575b0be00b6ap-2
	logfA2  = -0x1.ffffef20a4123p-2
)

// madd is a*b+c, fused or not as the glibc build does it.
func madd(fused bool, a, b, c float64) float64 {
	if fused {
		return math.FMA(a, b, c)
	}
	return a*b + c
}

// glibcLogf is __logf for positive normal and subnormal x, NaN, 0 and Inf
// as IEEE says.
func glibcLogf(x float32, fused bool) float32 {
	ix := math.Float32bits(x)
	if ix == 0x3f800000 {
		return 0
	}
	if ix-0x00800000 >= 0x7f800000-0x00800000 {
		switch {
		case ix*2 == 0:
			return float32(math.Inf(-1))
		case ix == 0x7f800000:
			return x
		case ix&0x80000000 != 0 || ix*2 >= 0xff000000:
			return float32(math.NaN())
		}
		ix = math.Float32bits(x * 0x1p23)
		ix -= 23 << 23
	}
	const off = 0x3f330000
	tmp := ix - off
	i := (tmp >> (23 - 4)) % 16
	k := int32(tmp) >> 23
	iz := ix - (tmp & (0x1ff << 23))
	invc, logc := logfTab[i][0], logfTab[i][1]
	z := float64(math.Float32frombits(iz))
	r := madd(fused, z, invc, -1)
	y0 := madd(fused, float64(k), logfLn2, logc)
	r2 := r * r
	y := madd(fused, logfA1, r, logfA2)
	y = madd(fused, logfA0, r2, y)
	y = madd(fused, y, r2, y0+r)
	return float32(y)
}

// sincosfTable is __sincosf_table: the second entry gives -cos.
var sincosfTable = [2]struct{ c0, c1, c2, c3, c4, s1, s2, s3 float64 }{
	{0x1p0, -0x1.ffffffd0c621cp-2, 0x1.55553e1068f19p-5, -0x1.6c087e89a359dp-10, 0x1.99343027bf8c3p-16,
		-0x1.555545995a603p-3, 0x1.1107605230bc4p-7, -0x1.994eb3774cf24p-13},
	{-0x1p0, 0x1.ffffffd0c621cp-2, -0x1.55553e1068f19p-5, 0x1.6c087e89a359dp-10, -0x1.99343027bf8c3p-16,
		-0x1.555545995a603p-3, 0x1.1107605230bc4p-7, -0x1.994eb3774cf24p-13},
}

var sincosfSign = [4]float64{1, -1, -1, 1}

func abstop12(y float32) uint32 { return (math.Float32bits(y) >> 20) & 0x7ff }

// glibcSincosf is __sincosf for |y| < 120 (the Box-Muller angle is in
// [0, 2π)); larger arguments take the float64 functions.
func glibcSincosf(y float32, fused bool) (float32, float32) {
	x := float64(y)
	switch {
	case abstop12(y) < abstop12(0x1.921FB6p-1):
		if abstop12(y) < abstop12(0x1p-12) {
			return y, 1
		}
		return sincosfPoly(x, x*x, 0, 0, fused)
	case abstop12(y) < abstop12(120):
		r := x * 0x1.45F306DC9C883p+23
		n := (int32(r) + 0x800000) >> 24
		x = madd(fused, -float64(n), 0x1.921FB54442D18p0, x)
		s := sincosfSign[n&3]
		t := 0
		if n&2 != 0 {
			t = 1
		}
		return sincosfPoly(x*s, x*x, t, n, fused)
	}
	s, c := math.Sincos(x)
	return float32(s), float32(c)
}

func sincosfPoly(x, x2 float64, t int, n int32, fused bool) (float32, float32) {
	p := &sincosfTable[t]
	x4 := x2 * x2
	x3 := x2 * x
	c2 := madd(fused, x2, p.c4, p.c3)
	s1 := madd(fused, x2, p.s3, p.s2)
	c1 := madd(fused, x2, p.c1, p.c0)
	x5 := x3 * x2
	x6 := x4 * x2
	s := madd(fused, x3, p.s1, x)
	c := madd(fused, x4, p.c2, c1)
	sin, cos := float32(madd(fused, x5, s1, s)), float32(madd(fused, x6, c2, c))
	if n&1 != 0 {
		return cos, sin
	}
	return sin, cos
}

// glibcFused says which glibc build TensorFlow's process runs: the *_fma
// one where the CPU has FMA (glibc's ifunc selection for x86-64).
var glibcFused = hasFMA()
