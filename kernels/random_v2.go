package kernels

import (
	"math"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/dtype"
)

// tf.random.Generator's ops: RngReadAndSkip (core/kernels/
// stateful_random_ops.cc, RngSkipOp with read_old_value) hands out the
// generator's Philox state and moves its counter on, and the stateless V2
// ops (stateless_random_ops_v2.cc) draw from an explicit Philox key and
// counter. Every draw is integer arithmetic but the normal's Box-Muller
// transform, whose float32 log, sqrt, sin and cos TensorFlow takes from
// glibc (logf, sqrtf, sincosf: random_distributions.h BoxMullerFloat);
// here each is the float64 function rounded to float32. The float64 normal
// takes glibc's double log and sincos, here Go's math (within a few ULP);
// the half types' are the float32 normals rounded.

// rngAlgPhilox and rngAlgAutoSelect are the algorithms TensorFlow's CPU
// kernels run (rng_alg.h; auto-select is Philox off XLA).
const (
	rngAlgPhilox     = 1
	rngAlgThreeFry   = 2
	rngAlgAutoSelect = 3
)

// rngAlg reads an algorithm input and resolves it as ResolveAlg does.
func rngAlg(c *Context, t *Tensor) error {
	v, err := scalarIndex(t, "alg")
	if err != nil {
		return c.Errorf("%v", err)
	}
	switch v {
	case rngAlgPhilox, rngAlgAutoSelect:
		return nil
	case rngAlgThreeFry:
		return c.Errorf("Non-XLA devices don't support the ThreeFry algorithm.")
	}
	return c.Errorf("Unsupported algorithm id: %d", v)
}

// kRngReadAndSkip returns the variable's state (int64 [3]: the 128-bit
// counter, then the key) and adds delta*256 to the counter (SkipPhiloxRandom:
// 256 is FillPhiloxRandomTask's block budget per output element).
func kRngReadAndSkip(c *Context) ([]*Tensor, error) {
	if err := wantInputs(c, 3); err != nil {
		return nil, err
	}
	v, err := variable(c, 0)
	if err != nil {
		return nil, err
	}
	if err := rngAlg(c, c.Inputs[1]); err != nil {
		return nil, err
	}
	var delta uint64
	switch d := c.Inputs[2].Data.(type) {
	case []uint64:
		if len(d) != 1 {
			return nil, c.Errorf("delta must be a scalar")
		}
		delta = d[0]
	default:
		x, err := scalarIndex(c.Inputs[2], "delta")
		if err != nil {
			return nil, c.Errorf("%v", err)
		}
		delta = uint64(x)
	}
	if v.Value == nil {
		return nil, c.Errorf("reading variable %s, which is not initialized (was the checkpoint restored?)", v.Name)
	}
	state, ok := v.Value.Data.([]int64)
	if !ok {
		return nil, c.Errorf("dtype of RNG state variable must be int64, not %s", dtypeName(v.Value.DType))
	}
	if len(v.Value.Shape) != 1 {
		return nil, c.Errorf("RNG state must have one and only one dimension, not %d", len(v.Value.Shape))
	}
	if len(state) < 3 {
		return nil, c.Errorf("For the Philox algorithm, the size of state must be at least 3; got %d", len(state))
	}
	out := &Tensor{DType: tpb.DataType_DT_INT64, Shape: []int{3}, Data: append([]int64(nil), state[:3]...)}
	next := append([]int64(nil), state...)
	p := Philox4x32{Counter: [4]uint32{uint32(state[0]), uint32(uint64(state[0]) >> 32), uint32(state[1]), uint32(uint64(state[1]) >> 32)}}
	p.Skip(delta * 256)
	next[0] = int64(uint64(p.Counter[0]) | uint64(p.Counter[1])<<32)
	next[1] = int64(uint64(p.Counter[2]) | uint64(p.Counter[3])<<32)
	v.Value = &Tensor{DType: v.Value.DType, Shape: v.Value.Shape, Data: next}
	return []*Tensor{out}, nil
}

// Skip adds count to the 128-bit counter (PhiloxRandom::Skip).
func (p *Philox4x32) Skip(count uint64) {
	lo, hi := uint32(count), uint32(count>>32)
	p.Counter[0] += lo
	if p.Counter[0] < lo {
		hi++
	}
	p.Counter[1] += hi
	if p.Counter[1] < hi {
		p.Counter[2]++
		if p.Counter[2] == 0 {
			p.Counter[3]++
		}
	}
}

// rngKeyCounter checks the algorithm, key and counter inputs from i as
// GetKeyCounterAlgFromInputs does (stateless_random_ops_v2_util.h), before
// the output's shape: the key must be [1], and CheckKeyCounterShape takes
// the algorithm's id (auto-select resolved to Philox) as the counter's
// least length, so Philox wants 1, ThreeFry 2, an unknown id that many.
func rngKeyCounter(c *Context, i int) error {
	v, err := scalarIndex(c.Inputs[i+2], "alg")
	if err != nil {
		return c.Errorf("%v", err)
	}
	if v == rngAlgAutoSelect {
		v = rngAlgPhilox
	}
	if k := c.Inputs[i]; len(k.Shape) != 1 || k.Shape[0] != 1 {
		return c.Errorf("key must have shape [1], not %s", dimsString(k.Shape))
	}
	if ct := c.Inputs[i+1]; len(ct.Shape) != 1 || int64(ct.Shape[0]) < int64(v) {
		return c.Errorf("counter must be a vector with length at least %d; got shape: %s", v, dimsString(ct.Shape))
	}
	return nil
}

// philoxKeyCounter reads the key (uint64 [1]) and counter (uint64 [2]) and
// algorithm inputs at i, i+1, i+2 (GetKeyCounterAlgFromInputs).
func philoxKeyCounter(c *Context, i int) (*Philox4x32, error) {
	if err := rngAlg(c, c.Inputs[i+2]); err != nil {
		return nil, err
	}
	key, ok := c.Inputs[i].Data.([]uint64)
	if !ok || len(key) != 1 {
		return nil, c.Errorf("key must have shape [1], not %s", dimsString(c.Inputs[i].Shape))
	}
	ctr, ok := c.Inputs[i+1].Data.([]uint64)
	if !ok || len(ctr) < 2 {
		return nil, c.Errorf("counter must be a vector of length at least 2; got shape %s", dimsString(c.Inputs[i+1].Shape))
	}
	return &Philox4x32{
		Counter: [4]uint32{uint32(ctr[0]), uint32(ctr[0] >> 32), uint32(ctr[1]), uint32(ctr[1] >> 32)},
		Key:     [2]uint32{uint32(key[0]), uint32(key[0] >> 32)},
	}, nil
}

// boxMullerDouble is BoxMullerDouble: two normals from four uint32s, each
// uniform from 52 bits (Uint64ToDouble).
func boxMullerDouble(x0, x1, x2, x3 uint32) (float64, float64) {
	toDouble := func(hi, lo uint32) float64 {
		return math.Float64frombits(1023<<52|uint64(hi&0xfffff)<<32|uint64(lo)) - 1
	}
	u1 := toDouble(x0, x1)
	if u1 < 1.0e-7 {
		u1 = 1.0e-7
	}
	v1 := 2 * math.Pi * toDouble(x2, x3)
	u2 := math.Sqrt(-2.0 * math.Log(u1))
	s, co := math.Sincos(v1)
	return s * u2, co * u2
}

// boxMullerFloat is BoxMullerFloat: two normals from two uint32s.
func boxMullerFloat(x0, x1 uint32) (float32, float32) {
	const epsilon = float32(1.0e-7)
	u1 := math.Float32frombits(127<<23|x0&0x7fffff) - 1
	if u1 < epsilon {
		u1 = epsilon
	}
	// 2.0f * M_PI is a double, so the product is rounded once.
	v1 := float32(2 * math.Pi * float64(math.Float32frombits(127<<23|x1&0x7fffff)-1))
	u2 := float32(math.Sqrt(float64(-2 * glibcLogf(u1, glibcFused))))
	s, co := glibcSincosf(v1, glibcFused)
	return s * u2, co * u2
}

// statelessShape checks a stateless V2 random op's inputs as TensorFlow
// does before it draws (count, key and counter sizes, then the shape) and
// returns the output shape and its element count.
func statelessShape(c *Context, inputs int) ([]int, int, error) {
	if err := wantInputs(c, inputs); err != nil {
		return nil, 0, err
	}
	if err := rngKeyCounter(c, 1); err != nil {
		return nil, 0, err
	}
	shape, err := dimsFrom(c, c.Inputs[0], "shape")
	if err != nil {
		return nil, 0, err
	}
	n, err := CheckShape(shape)
	if err != nil {
		return nil, 0, c.Errorf("%v", err)
	}
	return shape, n, nil
}

// kStatelessRandomNormalV2 (shape, key, counter, alg): float32 normals,
// four per Philox block.
func kStatelessRandomNormalV2(c *Context) ([]*Tensor, error) {
	shape, n, err := statelessShape(c, 4)
	if err != nil {
		return nil, err
	}
	dt, err := c.AttrType("dtype")
	if err != nil {
		return nil, err
	}
	if dt == tpb.DataType_DT_DOUBLE {
		if n == 0 {
			return []*Tensor{{DType: dt, Shape: shape, Data: []float64{}}}, nil
		}
		g, err := philoxKeyCounter(c, 1)
		if err != nil {
			return nil, err
		}
		d := make([]float64, n)
		for i := 0; i < n; i += 2 {
			s := g.Next()
			a, b := boxMullerDouble(s[0], s[1], s[2], s[3])
			d[i] = a
			if i+1 < n {
				d[i+1] = b
			}
		}
		return []*Tensor{{DType: dt, Shape: shape, Data: d}}, nil
	}
	if dt != tpb.DataType_DT_FLOAT && dt != tpb.DataType_DT_HALF && dt != tpb.DataType_DT_BFLOAT16 {
		return nil, c.Unsupported("dtype %s", dtypeName(dt))
	}
	if n == 0 {
		// An empty output returns before the algorithm runs (Compute).
		return []*Tensor{{DType: dt, Shape: shape, Data: narrowNormal(dt, nil)}}, nil
	}
	g, err := philoxKeyCounter(c, 1)
	if err != nil {
		return nil, err
	}
	d := make([]float32, n)
	for i := 0; i < n; i += 4 {
		s := g.Next()
		a, b := boxMullerFloat(s[0], s[1])
		e, f := boxMullerFloat(s[2], s[3])
		for j, v := range [4]float32{a, b, e, f} {
			if i+j < n {
				d[i+j] = v
			}
		}
	}
	return []*Tensor{{DType: dt, Shape: shape, Data: narrowNormal(dt, d)}}, nil
}

// narrowNormal holds float32 normals as dt: the half types' normals are
// BoxMullerFloat's rounded to nearest (NormalDistribution<Generator,
// Eigen::half> and <…, bfloat16>, random_distributions.h).
func narrowNormal(dt tpb.DataType, d []float32) any {
	switch dt {
	case tpb.DataType_DT_HALF:
		return narrowHalf(d)
	case tpb.DataType_DT_BFLOAT16:
		return narrowBF16(d)
	}
	if d == nil {
		return []float32{}
	}
	return d
}

// kStatelessRandomUniformIntV2 (shape, key, counter, alg, minval, maxval):
// lo + bits % (hi - lo), one uint32 per int32 and two per int64
// (UniformDistribution<Generator, int32/int64>).
func kStatelessRandomUniformIntV2(c *Context) ([]*Tensor, error) {
	shape, n, err := statelessShape(c, 6)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		// An empty output returns before minval, maxval and the algorithm
		// are looked at (Compute, then Fill).
		switch dt := c.Inputs[4].DType; dt {
		case tpb.DataType_DT_INT32:
			return []*Tensor{{DType: dt, Shape: shape, Data: []int32{}}}, nil
		case tpb.DataType_DT_INT64:
			return []*Tensor{{DType: dt, Shape: shape, Data: []int64{}}}, nil
		}
	}
	g, err := philoxKeyCounter(c, 1)
	if err != nil {
		return nil, err
	}
	lo, err := scalarIndex(c.Inputs[4], "minval")
	if err != nil {
		return nil, c.Errorf("minval must be 0-D, got shape %s", dimsString(c.Inputs[4].Shape))
	}
	hi, err := scalarIndex(c.Inputs[5], "maxval")
	if err != nil {
		return nil, c.Errorf("maxval must be 0-D, got shape %s", dimsString(c.Inputs[5].Shape))
	}
	if n > 0 && lo >= hi {
		return nil, c.Errorf("Need minval < maxval: %d >= %d", lo, hi)
	}
	switch c.Inputs[4].DType {
	case tpb.DataType_DT_INT32:
		d := make([]int32, n)
		rng := uint32(int32(hi)) - uint32(int32(lo))
		for i := 0; i < n; i += 4 {
			s := g.Next()
			for j := 0; j < 4 && i+j < n; j++ {
				d[i+j] = int32(lo) + int32(s[j]%rng)
			}
		}
		return []*Tensor{{DType: tpb.DataType_DT_INT32, Shape: shape, Data: d}}, nil
	case tpb.DataType_DT_INT64:
		d := make([]int64, n)
		rng := uint64(hi) - uint64(lo)
		for i := 0; i < n; i += 2 {
			s := g.Next()
			for j := 0; j < 2 && i+j < n; j++ {
				bits := uint64(s[2*j]) | uint64(s[2*j+1])<<32
				d[i+j] = lo + int64(bits%rng)
			}
		}
		return []*Tensor{{DType: tpb.DataType_DT_INT64, Shape: shape, Data: d}}, nil
	}
	return nil, c.Unsupported("dtype %s", dtypeName(c.Inputs[4].DType))
}

func init() {
	RegisterStateful("RngReadAndSkip", kRngReadAndSkip)
	Register("StatelessRandomNormalV2", kStatelessRandomNormalV2)
	Register("StatelessRandomUniformIntV2", kStatelessRandomUniformIntV2)
	Register("Bitcast", kBitcast)
}

// kBitcast reinterprets the input's bytes as dtype "type" (core/kernels/
// bitcast_op.cc): the same shape for dtypes of one size, a last dimension
// of in/out elements more for a smaller one, the last dimension (which must
// be out/in) dropped for a larger one. tf.random.Generator splits its
// int64 state into uint64 key and counter this way.
func kBitcast(c *Context) ([]*Tensor, error) {
	if err := wantInputs(c, 1); err != nil {
		return nil, err
	}
	in := c.Inputs[0]
	to, err := c.AttrType("type")
	if err != nil {
		return nil, err
	}
	isz, osz := dtype.Size(in.DType), dtype.Size(to)
	if isz == 0 || osz == 0 {
		return nil, c.Unsupported("Bitcast from %s to %s", dtypeName(in.DType), dtypeName(to))
	}
	shape := append([]int(nil), in.Shape...)
	switch {
	case isz > osz:
		shape = append(shape, isz/osz)
	case isz < osz:
		if len(shape) == 0 || shape[len(shape)-1]*isz != osz {
			return nil, c.Errorf("Cannot bitcast from %d to %d: shape %s has the wrong last dimension", in.DType, to, dimsString(in.Shape))
		}
		shape = shape[:len(shape)-1]
	}
	raw, err := EncodeRaw(in)
	if err != nil {
		return nil, c.Errorf("%v", err)
	}
	out, err := DecodeRaw(to, shape, raw)
	if err != nil {
		return nil, c.Errorf("%v", err)
	}
	return []*Tensor{out}, nil
}
