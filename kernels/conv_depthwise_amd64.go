//go:build !purego

package kernels

//go:noescape
func dwPixelF32(out, x, f *float32, xoff, foff *int, taps, c int)

func init() {
	if !useAVX2 {
		return
	}
	dwPixel32 = func(out, x, f []float32, xoff, foff []int) {
		c := len(out)
		if c == 0 {
			return
		}
		// The offsets come from in-bounds window positions (depthwiseF32);
		// check them here once so the assembly can trust them.
		for t := range xoff {
			_ = x[xoff[t]+c-1]
			_ = f[foff[t]+c-1]
		}
		if len(xoff) == 0 {
			clear(out)
			return
		}
		dwPixelF32(&out[0], &x[0], &f[0], &xoff[0], &foff[0], len(xoff), c)
	}
}
