package kernels

import (
	"math"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// StatelessRandomUniform (core/kernels/stateless_random_ops.cc): uniform
// [0, 1) values that depend only on the shape and the 2-element seed, so a
// reference run reproduces TensorFlow's numbers exactly. The pieces are
// integer operations TensorFlow spells out:
//
//   - GenerateKey scrambles the seed into a Philox key and counter (one
//     Philox4x32-10 call on counter = seed words, key 0x3ec8f720/0x02461e29);
//   - FillPhiloxRandom draws one 128-bit Philox block per group of samples
//     (4 floats, 4 halfs/bfloat16s from the low 16 bits, or 2 doubles from
//     32-bit pairs), in output order;
//   - Uint32ToFloat / Uint64ToDouble / Uint16ToHalf / Uint16ToGfloat16
//     (tsl/lib/random/random_distributions*.h) put random mantissa bits on
//     1.0 and subtract 1.
//
// Philox itself is tsl/lib/random/philox_random.h. StatelessRandomNormal
// (Box-Muller through logf/sinf/cosf) and the V2 ops are not implemented.

// Philox4x32 is TensorFlow's PhiloxRandom generator: a 128-bit counter and a
// 64-bit key.
type Philox4x32 struct {
	Counter [4]uint32
	Key     [2]uint32
}

const (
	philoxW32A = 0x9E3779B9
	philoxW32B = 0xBB67AE85
	philoxM4A  = 0xD2511F53
	philoxM4B  = 0xCD9E8D57
)

// Next returns the next 128-bit block (ten rounds) and advances the counter.
func (p *Philox4x32) Next() [4]uint32 {
	c, k := p.Counter, p.Key
	for r := 0; r < 10; r++ {
		if r > 0 {
			k[0] += philoxW32A
			k[1] += philoxW32B
		}
		p0 := uint64(philoxM4A) * uint64(c[0])
		p1 := uint64(philoxM4B) * uint64(c[2])
		c = [4]uint32{uint32(p1>>32) ^ c[1] ^ k[0], uint32(p1), uint32(p0>>32) ^ c[3] ^ k[1], uint32(p0)}
	}
	for i := range p.Counter { // SkipOne
		p.Counter[i]++
		if p.Counter[i] != 0 {
			break
		}
	}
	return c
}

// statelessPhilox is GenerateKey: the generator for a (seed0, seed1) pair.
func statelessPhilox(seed0, seed1 uint64) *Philox4x32 {
	g := &Philox4x32{
		Counter: [4]uint32{uint32(seed0), uint32(seed0 >> 32), uint32(seed1), uint32(seed1 >> 32)},
		Key:     [2]uint32{0x3ec8f720, 0x02461e29},
	}
	mix := g.Next()
	return &Philox4x32{Counter: [4]uint32{0, 0, mix[2], mix[3]}, Key: [2]uint32{mix[0], mix[1]}}
}

func statelessUniformKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 2); err != nil {
		return nil, err
	}
	shape, err := dimsFrom(ctx, ctx.Inputs[0], "shape")
	if err != nil {
		return nil, err
	}
	seedT := ctx.Inputs[1]
	if len(seedT.Shape) != 1 || seedT.Shape[0] != 2 {
		return nil, ctx.Errorf("seed must have shape [2], not %s", dimsString(seedT.Shape))
	}
	seed, err := indexValues(seedT)
	if err != nil {
		return nil, ctx.Errorf("Invalid seed type: %s", dtypeName(seedT.DType))
	}
	dt, err := ctx.AttrType("dtype")
	if err != nil {
		return nil, err
	}
	n, err := CheckShape(shape)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	g := statelessPhilox(uint64(seed[0]), uint64(seed[1]))
	out := &Tensor{DType: dt, Shape: shape}
	switch dt {
	case tpb.DataType_DT_FLOAT:
		d := make([]float32, n)
		for i := 0; i < n; i += 4 {
			s := g.Next()
			for j := 0; j < 4 && i+j < n; j++ {
				d[i+j] = math.Float32frombits(127<<23|s[j]&0x7fffff) - 1
			}
		}
		out.Data = d
	case tpb.DataType_DT_DOUBLE:
		d := make([]float64, n)
		for i := 0; i < n; i += 2 {
			s := g.Next()
			for j := 0; j < 2 && i+j < n; j++ {
				man := uint64(s[2*j]&0xfffff)<<32 | uint64(s[2*j+1])
				d[i+j] = math.Float64frombits(1023<<52|man) - 1
			}
		}
		out.Data = d
	case tpb.DataType_DT_HALF:
		d := make([]Float16, n)
		for i := 0; i < n; i += 4 {
			s := g.Next()
			for j := 0; j < 4 && i+j < n; j++ {
				// (15<<10 | 10 random bits) - 1 is exact in binary16.
				d[i+j] = Float16FromFloat32(Float16(15<<10|uint16(s[j])&0x3ff).Float32() - 1)
			}
		}
		out.Data = d
	case tpb.DataType_DT_BFLOAT16:
		d := make([]BFloat16, n)
		for i := 0; i < n; i += 4 {
			s := g.Next()
			for j := 0; j < 4 && i+j < n; j++ {
				d[i+j] = BFloat16FromFloat32(BFloat16(127<<7|uint16(s[j])&0x7f).Float32() - 1)
			}
		}
		out.Data = d
	default:
		return nil, ctx.Unsupported("dtype %s", dtypeName(dt))
	}
	return []*Tensor{out}, nil
}

func init() {
	Register("StatelessRandomUniform", statelessUniformKernel)
}
