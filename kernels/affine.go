package kernels

// bnRows32 computes batch normalisation's inference map on channels-last
// rows of c values: y = (x - m)*f + o per channel, then Relu when relu is
// set; x holds whole rows. Assembly replaces it where the CPU has AVX2
// (affine_amd64.go), with the same arithmetic.
var bnRows32 = func(y, x, m, f, o []float32, c int, relu bool) {
	m, f, o = m[:c], f[:c], o[:c]
	for r := 0; r+c <= len(x); r += c {
		xr, yr := x[r:r+c], y[r:r+c]
		for j, v := range xr {
			v = (v-m[j])*f[j] + o[j]
			if relu && v < 0 {
				v = 0
			}
			yr[j] = v
		}
	}
}

// clamp32 writes Relu (or Relu6 when six is set) of src to dst, keeping
// NaN and -0 as the comparisons below do; assembly replaces it where the
// CPU has AVX2.
var clamp32 = func(dst, src []float32, six bool) {
	dst = dst[:len(src)]
	for i, v := range src {
		if v < 0 {
			v = 0
		} else if six && v > 6 {
			v = 6
		}
		dst[i] = v
	}
}
