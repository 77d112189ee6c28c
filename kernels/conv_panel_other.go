//go:build !amd64 || purego

package kernels

// panel12Vec is convPanelFill's vector loop where there is none: it writes
// nothing.
func panel12Vec(dst []float32, src *[16][]float32, seg int) int { return 0 }

// panel6Vec is panel12Vec's 6-row loop where there is none.
func panel6Vec(dst []float32, src *[16][]float32, seg int) int { return 0 }
