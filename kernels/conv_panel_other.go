//go:build !amd64 || purego

package kernels

// panel12Vec is convPanelFill's vector loop where there is none: it writes
// nothing.
func panel12Vec(dst []float32, src *[16][]float32, seg int) int { return 0 }
