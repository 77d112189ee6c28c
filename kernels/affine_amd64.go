//go:build !purego

package kernels

//go:noescape
func bnRowsF32(y, x, m, f, o *float32, rows, c, relu int)

//go:noescape
func clampF32(dst, src *float32, n int, six int)

func init() {
	if !useAVX2 {
		return
	}
	bnRows32 = func(y, x, m, f, o []float32, c int, relu bool) {
		if len(x) == 0 || c == 0 {
			return
		}
		rows := len(x) / c
		_ = y[rows*c-1]
		_ = m[c-1]
		_ = f[c-1]
		_ = o[c-1]
		r := 0
		if relu {
			r = 1
		}
		bnRowsF32(&y[0], &x[0], &m[0], &f[0], &o[0], rows, c, r)
	}
	clamp32 = func(dst, src []float32, six bool) {
		n := len(src)
		if n == 0 {
			return
		}
		_ = dst[n-1]
		s := 0
		if six {
			s = 1
		}
		clampF32(&dst[0], &src[0], n, s)
	}
}
