//go:build !purego

package kernels

// panel12F32 and panel6F32 write blocks×8 k-steps of a 12-row and a 6-row
// float32 panel from the rows src points to (conv_panel_amd64.s).
//
//go:noescape
func panel12F32(dst *float32, src **float32, blocks int)

//go:noescape
func panel6F32(dst *float32, src **float32, blocks int)

// panelVec writes the first seg/8*8 k-steps of a float32 panel of rows
// rows, 12 or 6, from its rows' sources (convPanelFill's loops, eight
// channels at a time) and returns how many it wrote: none without AVX2.
// It checks the bounds the assembly writes and reads unchecked, and calls
// it directly, so that the row pointers stay on the stack.
func panelVec(dst []float32, src *[16][]float32, seg, rows int) int {
	blocks := seg / 8
	if !useAVX2 || blocks == 0 {
		return 0
	}
	_ = dst[blocks*8*rows-1]
	var p [12]*float32
	for i := range rows {
		s := src[i]
		_ = s[blocks*8-1]
		p[i] = &s[0]
	}
	if rows == 12 {
		panel12F32(&dst[0], &p[0], blocks)
	} else {
		panel6F32(&dst[0], &p[0], blocks)
	}
	return blocks * 8
}
