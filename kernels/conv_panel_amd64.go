//go:build !purego

package kernels

//go:noescape
func panel12F32(dst *float32, src *[12]*float32, blocks int)

//go:noescape
func panel6F32(dst *float32, src *[6]*float32, blocks int)

// panel12Vec writes the first seg/8*8 k-steps of a 12-row float32 panel
// from its rows' sources (the mr == 12 loop of convPanelFill, eight
// channels at a time) and returns how many it wrote: none without AVX2.
func panel12Vec(dst []float32, src *[16][]float32, seg int) int {
	blocks := seg / 8
	if !useAVX2 || blocks == 0 {
		return 0
	}
	_ = dst[blocks*8*12-1]
	var p [12]*float32
	for i := range p {
		s := src[i]
		_ = s[blocks*8-1]
		p[i] = &s[0]
	}
	panel12F32(&dst[0], &p, blocks)
	return blocks * 8
}

// panel6Vec is panel12Vec for a 6-row panel, the AVX2 GEMM's.
func panel6Vec(dst []float32, src *[16][]float32, seg int) int {
	blocks := seg / 8
	if !useAVX2 || blocks == 0 {
		return 0
	}
	_ = dst[blocks*8*6-1]
	var p [6]*float32
	for i := range p {
		s := src[i]
		_ = s[blocks*8-1]
		p[i] = &s[0]
	}
	panel6F32(&dst[0], &p, blocks)
	return blocks * 8
}
