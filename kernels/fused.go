package kernels

import (
	"math"
	"strings"

	"github.com/tfscan/tfscan/dtype"
)

// _FusedConv2D, _FusedDepthwiseConv2dNative and _FusedMatMul: a convolution
// or matmul followed by the ops listed in fused_ops, reading their operands
// from the num_args trailing inputs. Patterns, after TensorFlow's
// conv_ops_fused_impl.h, matmul_op_fused.cc and fused_eigen_output_kernels.h,
// and TF.js's converter (convolution_executor.js, matrices_executor.js,
// which lower-case the names and add Prelu):
//
//	[BiasAdd]                      args: bias
//	[BiasAdd, <act>]               args: bias            act: Relu, Relu6, Elu, LeakyRelu (leakyrelu_alpha), Sigmoid, Tanh, GeluApproximate, GeluExact
//	[BiasAdd, Prelu]               args: bias, alpha     (TF.js)
//	[Prelu]                        args: alpha           (TF.js)
//	[<act>]                        no args               (TF.js, activation only)
//	[BiasAdd, Add(, <act>)]        args: bias, addend
//	[FusedBatchNorm(, <act>)]      args: scale, offset, mean, variance; epsilon
//
// FusedBatchNorm computes (y - mean) * (scale * rsqrt(variance + epsilon)) +
// offset, as FusedBatchNormOutputKernel does.

func init() {
	Register("_FusedConv2D", func(ctx *Context) ([]*Tensor, error) {
		if err := nnInputs(ctx, 2); err != nil {
			return nil, err
		}
		return byFloat(ctx, ctx.Inputs[0].DType, allFloats,
			func(c *Context) ([]*Tensor, error) {
				return fusedConvOp(c, func() (*convResult[float32], error) { return convCompute[float32](c, c.Inputs[0], c.Inputs[1], 2) })
			},
			func(c *Context) ([]*Tensor, error) {
				return fusedConvOp(c, func() (*convResult[float64], error) { return convCompute[float64](c, c.Inputs[0], c.Inputs[1], 2) })
			})
	})
	Register("_FusedDepthwiseConv2dNative", func(ctx *Context) ([]*Tensor, error) {
		if err := nnInputs(ctx, 2); err != nil {
			return nil, err
		}
		return byFloat(ctx, ctx.Inputs[0].DType, allFloats,
			func(c *Context) ([]*Tensor, error) {
				return fusedConvOp(c, func() (*convResult[float32], error) { return depthwiseCompute[float32](c, c.Inputs[0], c.Inputs[1]) })
			},
			func(c *Context) ([]*Tensor, error) {
				return fusedConvOp(c, func() (*convResult[float64], error) { return depthwiseCompute[float64](c, c.Inputs[0], c.Inputs[1]) })
			})
	})
	// _FusedConv3D (ops/mkl_nn_ops.cc:131-148; oneDNN's kernel only): a
	// Conv3D of the input padded by padding_list (the Pad that remapper
	// fused, remapper.cc:3441-3490), then the fused ops.
	Register("_FusedConv3D", func(ctx *Context) ([]*Tensor, error) {
		if err := nnInputs(ctx, 2); err != nil {
			return nil, err
		}
		x, err := padByList(ctx, ctx.Inputs[0])
		if err != nil {
			return nil, err
		}
		return byFloat(ctx, x.DType, allFloats,
			func(c *Context) ([]*Tensor, error) {
				return fusedConvOp(c, func() (*convResult[float32], error) { return convCompute[float32](c, x, c.Inputs[1], 3) })
			},
			func(c *Context) ([]*Tensor, error) {
				return fusedConvOp(c, func() (*convResult[float64], error) { return convCompute[float64](c, x, c.Inputs[1], 3) })
			})
	})
	Register("_FusedMatMul", func(ctx *Context) ([]*Tensor, error) {
		if err := nnInputs(ctx, 2); err != nil {
			return nil, err
		}
		return byFloat(ctx, ctx.Inputs[0].DType, allFloats, fusedMatMulOp[float32], fusedMatMulOp[float64])
	})
}

// padByList pads x with zeros by the padding_list attr (before/after
// pairs per dimension), as a Pad node would; x itself when it is unset.
func padByList(ctx *Context, x *Tensor) (*Tensor, error) {
	if !ctx.HasAttr("padding_list") {
		return x, nil
	}
	list, err := ctx.AttrInts("padding_list")
	if err != nil || len(list) == 0 {
		return x, err
	}
	if len(list) != 2*len(x.Shape) {
		return nil, ctx.Errorf("padding_list has %d values for a rank-%d input", len(list), len(x.Shape))
	}
	maps := make([][]int, len(x.Shape))
	for d, dim := range x.Shape {
		lo, hi := int(list[2*d]), int(list[2*d+1])
		if lo < 0 || hi < 0 || lo+dim+hi > maxPadded {
			return nil, ctx.Errorf("padding_list %v is out of range", list)
		}
		m := make([]int, lo+dim+hi)
		for j := range m {
			if k := j - lo; k >= 0 && k < dim {
				m[j] = k
			} else {
				m[j] = -1
			}
		}
		maps[d] = m
	}
	fill, err := NewTensor(dtype.Base(x.DType), []int{})
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	out, err := gatherDims(x, maps, fill)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	return out, nil
}

// maxPadded bounds one padded dimension, so that a hostile padding_list
// cannot make the kernel allocate without bound.
const maxPadded = 1 << 24

// fusedEpilogue is a parsed fused_ops list with its operands.
type fusedEpilogue[T nnFloat] struct {
	bias                      []T
	addend                    []T
	bnScale, bnOffset, bnMean []T // batch norm: scale' = scale*rsqrt(var+eps)
	act                       actKind
	alpha                     T   // LeakyRelu
	prelu                     []T // Prelu alpha, with its shape
	preluShape                []int
	hasBias, hasBN, hasPrelu  bool
}

// parseFused reads fused_ops, num_args and the args (inputs from index 2)
// for an output with c channels (last dim) of shape outShape.
func parseFused[T nnFloat](ctx *Context, c int, outShape []int) (*fusedEpilogue[T], error) {
	ops, err := ctx.AttrStrings("fused_ops")
	if err != nil {
		return nil, err
	}
	args := ctx.Inputs[2:]
	if ctx.HasAttr("num_args") {
		n, err := ctx.AttrInt("num_args")
		if err != nil {
			return nil, err
		}
		if int(n) != len(args) {
			return nil, ctx.Errorf("num_args is %d but the node has %d args", n, len(args))
		}
	}
	e := &fusedEpilogue[T]{}
	next := 0
	arg := func(what string, want int) ([]T, []int, error) {
		if next >= len(args) || args[next] == nil {
			return nil, nil, ctx.Errorf("fused_ops %v: missing %s argument", ops, what)
		}
		a := args[next]
		next++
		d, err := floatsOf[T](a)
		if err != nil {
			return nil, nil, ctx.Errorf("%s argument: %v", what, err)
		}
		if want >= 0 && len(d) != want {
			return nil, nil, ctx.Errorf("%s argument has %d elements, want %d", what, len(d), want)
		}
		return d, a.Shape, nil
	}
	lower := make([]string, len(ops))
	for i, o := range ops {
		lower[i] = strings.ToLower(o)
	}
	i := 0
	switch {
	case len(lower) > 0 && lower[0] == "biasadd":
		e.hasBias = true
		n := 1
		for _, d := range outShape {
			n *= d
		}
		if e.bias, _, err = arg("bias", -1); err != nil {
			return nil, err
		}
		// The TF.js converter also fuses a MatMul with an AddV2 of a
		// whole [rows, c] tensor (an LSTM cell's recurrent sum), which
		// TF.js's fused matMul adds with broadcasting; TensorFlow's own
		// graphs only ever carry a vector bias.
		// It fuses a Conv2D with an AddV2 of a scalar too (MobileNetV3's
		// hard sigmoid, Relu6(x + 3)), which TF.js's fused conv2d adds
		// with broadcasting.
		if len(e.bias) == n && n != c {
			e.addend, e.bias, e.hasBias = e.bias, nil, false
		} else if len(e.bias) == 1 && c != 1 {
			b := make([]T, c)
			for j := range b {
				b[j] = e.bias[0]
			}
			e.bias = b
		} else if len(e.bias) != c {
			return nil, ctx.Errorf("bias argument has %d elements, want %d", len(e.bias), c)
		}
		i = 1
		if len(lower) > 1 && lower[1] == "add" {
			if e.addend != nil {
				return nil, ctx.Errorf("fused_ops %v: a whole-tensor bias and an add", ops)
			}
			if e.addend, _, err = arg("addend", n); err != nil {
				return nil, err
			}
			i = 2
		}
	case len(lower) > 0 && lower[0] == "fusedbatchnorm":
		e.hasBN = true
		var scale, offset, mean, variance []T
		for _, p := range []struct {
			name string
			dst  *[]T
		}{{"scale", &scale}, {"offset", &offset}, {"mean", &mean}, {"variance", &variance}} {
			if *p.dst, _, err = arg(p.name, c); err != nil {
				return nil, err
			}
		}
		eps, err := ctx.AttrFloat("epsilon")
		if err != nil {
			return nil, err
		}
		e.bnScale = make([]T, c)
		for j := range e.bnScale {
			e.bnScale[j] = T(1/math.Sqrt(float64(variance[j]+T(eps)))) * scale[j]
		}
		e.bnOffset, e.bnMean = offset, mean
		i = 1
	}
	if i < len(lower) {
		name := lower[i]
		switch name {
		case "prelu":
			e.hasPrelu = true
			if e.prelu, e.preluShape, err = arg("alpha", -1); err != nil {
				return nil, err
			}
		case "relu", "relu6", "elu", "selu", "leakyrelu", "sigmoid", "tanh", "geluapproximate", "geluexact":
			e.act = map[string]actKind{"relu": actRelu, "relu6": actRelu6, "elu": actElu, "selu": actSelu,
				"leakyrelu": actLeakyRelu, "sigmoid": actSigmoid, "tanh": actTanh,
				"geluapproximate": actGeluApprox, "geluexact": actGeluExact}[name]
			if e.act == actLeakyRelu {
				a, err := ctx.AttrFloat("leakyrelu_alpha")
				if err != nil {
					return nil, err
				}
				e.alpha = T(a)
			}
		default:
			return nil, ctx.Unsupported("fused_ops %v", ops)
		}
		i++
	}
	if i != len(lower) || len(lower) == 0 {
		return nil, ctx.Unsupported("fused_ops %v", ops)
	}
	if next != len(args) {
		return nil, ctx.Errorf("fused_ops %v use %d args, the node has %d", ops, next, len(args))
	}
	return e, nil
}

// apply runs the epilogue in place on out [rows, c] (channels last).
func (e *fusedEpilogue[T]) apply(ctx *Context, out []T, shape []int, c int) error {
	if e.hasBias {
		addBiasInPlace(out, e.bias, c)
	}
	if e.addend != nil {
		for i := range out {
			out[i] += e.addend[i]
		}
	}
	if e.hasBN && c > 0 {
		nnParallel(len(out)/c, c, func(r int) {
			row := out[r*c : (r+1)*c]
			for j := range row {
				row[j] = (row[j]-e.bnMean[j])*e.bnScale[j] + e.bnOffset[j]
			}
		})
	}
	if e.hasPrelu {
		return applyPrelu(ctx, out, shape, e.prelu, e.preluShape)
	}
	if e.act != actIdentity {
		activate(e.act, out, e.alpha)
	}
	return nil
}

func fusedConvOp[T nnFloat](ctx *Context, conv func() (*convResult[T], error)) ([]*Tensor, error) {
	r, err := conv()
	if err != nil {
		return nil, err
	}
	e, err := parseFused[T](ctx, r.channels(), r.shape)
	if err != nil {
		return nil, err
	}
	if err := e.apply(ctx, r.data, r.shape, r.channels()); err != nil {
		return nil, err
	}
	return []*Tensor{r.finish(ctx.Inputs[0].DType)}, nil
}

func fusedMatMulOp[T nnFloat](ctx *Context) ([]*Tensor, error) {
	ta, err := ctx.AttrBool("transpose_a")
	if err != nil {
		return nil, err
	}
	tb, err := ctx.AttrBool("transpose_b")
	if err != nil {
		return nil, err
	}
	x, y := ctx.Inputs[0], ctx.Inputs[1]
	if len(x.Shape) != 2 || len(y.Shape) != 2 {
		return nil, ctx.Errorf("In[0] and In[1] must be matrices, got shapes %v and %v", x.Shape, y.Shape)
	}
	if x.DType != y.DType {
		return nil, ctx.Errorf("dtypes %s and %s differ", x.DType, y.DType)
	}
	p, err := planMatMul(ctx, x.Shape, y.Shape, ta, tb, false)
	if err != nil {
		return nil, err
	}
	xd, err := floatsOf[T](x)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	yd, err := floatsOf[T](y)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	out := matMulFloat(nil, p, xd, yd, ctx.Emu)
	e, err := parseFused[T](ctx, p.n, p.outShape)
	if err != nil {
		return nil, err
	}
	if err := e.apply(ctx, out, p.outShape, p.n); err != nil {
		return nil, err
	}
	return []*Tensor{tensorFrom(x.DType, p.outShape, out)}, nil
}
