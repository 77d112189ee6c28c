//go:build !amd64 || purego

package kernels

// panelVec is convPanelFill's vector loop where there is none: it writes
// nothing.
func panelVec(dst []float32, src *[16][]float32, seg, rows int) int { return 0 }
