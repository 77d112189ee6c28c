//go:build !purego

package kernels

//go:noescape
func sigmoidF32(d *float32, n int)

func init() {
	if !useAVX2 {
		return
	}
	sigmoidPackets32 = func(d []float32) {
		if n := len(d) / 8 * 8; n > 0 {
			sigmoidF32(&d[0], n)
		}
	}
}
