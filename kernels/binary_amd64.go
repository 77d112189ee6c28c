//go:build !purego

package kernels

//go:noescape
func vecF32AVX2(op int, dst, x, y *float32, n, xstep, ystep int)

func init() {
	if !useAVX2 {
		return
	}
	vec32 = func(op int, dst, x, y []float32, xVec, yVec bool) {
		n := len(dst)
		if n == 0 {
			return
		}
		// A scalar operand is read as eight copies of itself, at a step
		// of 0.
		var xs, ys [8]float32
		xp, xstep := operand32(x, n, xVec, &xs)
		yp, ystep := operand32(y, n, yVec, &ys)
		vecF32AVX2(op, &dst[0], xp, yp, n, xstep, ystep)
	}
}

// operand32 is where vecF32AVX2 reads an operand of n values from, and its
// step: v itself for a vector, else splat filled with v[0].
func operand32(v []float32, n int, vec bool, splat *[8]float32) (*float32, int) {
	if vec {
		_ = v[n-1]
		return &v[0], 32
	}
	for i := range splat {
		splat[i] = v[0]
	}
	return &splat[0], 0
}
