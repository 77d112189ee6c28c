//go:build !purego

package kernels

//go:noescape
func erfF32(dst, src *float32, n int)

func init() {
	if !useAVX2 {
		return
	}
	erfPackets32 = func(dst, src []float32) {
		if n := len(src) / 8 * 8; n > 0 {
			erfF32(&dst[0], &src[0], n)
		}
	}
}
