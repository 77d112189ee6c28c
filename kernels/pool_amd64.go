//go:build !purego

package kernels

//go:noescape
func addToF32(dst, src *float32, n int)

//go:noescape
func maxToF32(dst, src *float32, n int)

func init() {
	if !useAVX2 {
		return
	}
	poolAdd32 = func(dst, src []float32) {
		n := len(dst) / 8 * 8
		if n > 0 {
			addToF32(&dst[0], &src[0], n)
		}
		addTo(dst[n:], src[n:len(dst)])
	}
	poolMax32 = func(dst, src []float32) {
		n := len(dst) / 8 * 8
		if n > 0 {
			maxToF32(&dst[0], &src[0], n)
		}
		maxTo(dst[n:], src[n:len(dst)])
	}
}
