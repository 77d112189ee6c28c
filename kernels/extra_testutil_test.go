package kernels

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// Golden tests of the "extra" kernels (space/batch, segment, matrix,
// bucketize, histogram, sparse, image_extra) against NumPy:
// testdata/kernels/extra/numpy.json, made by tools/goldens/extra_goldens.py
// (see testdata/kernels/extra/README.md). With rtol = atol = 0 a case must
// match bit for bit.

type xgTensor struct {
	DType  string `json:"dtype"`
	Shape  []int  `json:"shape"`
	Values []any  `json:"values"`
}

type xgCase struct {
	Name    string                     `json:"name"`
	Op      string                     `json:"op"`
	Attrs   map[string]json.RawMessage `json:"attrs"`
	Inputs  []xgTensor                 `json:"inputs"`
	Outputs []xgTensor                 `json:"outputs"`
	RTol    float64                    `json:"rtol"`
	ATol    float64                    `json:"atol"`
}

func (g xgTensor) tensor() (*Tensor, error) {
	dt, ok := tpb.DataType_value[g.DType]
	if !ok {
		return nil, fmt.Errorf("dtype %q", g.DType)
	}
	if g.DType == "DT_STRING" {
		d := make([][]byte, len(g.Values))
		for i, v := range g.Values {
			d[i] = []byte(v.(string))
		}
		t := &Tensor{DType: tpb.DataType_DT_STRING, Shape: append([]int{}, g.Shape...), Data: d}
		return t, t.Validate()
	}
	vals := make([]float64, len(g.Values))
	for i, v := range g.Values {
		f, err := goldenNumber(v)
		if err != nil {
			return nil, err
		}
		vals[i] = f
	}
	t, err := NewTensor(tpb.DataType(dt), g.Shape)
	if err != nil {
		return nil, err
	}
	if len(vals) != t.DataLen() {
		return nil, fmt.Errorf("%d values for shape %v", len(vals), g.Shape)
	}
	for i, v := range vals {
		switch d := t.Data.(type) {
		case []float32:
			d[i] = float32(v)
		case []float64:
			d[i] = v
		case []Float16:
			d[i] = Float16FromFloat32(float32(v))
		case []BFloat16:
			d[i] = BFloat16FromFloat32(float32(v))
		case []int8:
			d[i] = int8(v)
		case []uint8:
			d[i] = uint8(v)
		case []int32:
			d[i] = int32(v)
		case []int64:
			d[i] = int64(v)
		case []bool:
			d[i] = v != 0
		default:
			return nil, fmt.Errorf("dtype %s", g.DType)
		}
	}
	return t, nil
}

// xRun runs op on inputs with attrs, as the executor would.
func xRun(op string, attrs map[string]*attrpb.AttrValue, inputs ...*Tensor) ([]*Tensor, error) {
	k := Lookup(op)
	if k == nil {
		return nil, fmt.Errorf("no kernel for %s", op)
	}
	return k(&Context{Op: op, Path: "test/" + op, Attrs: attrs, Inputs: inputs})
}

// xgSame reports whether got matches want exactly (floats by value, NaN
// matching NaN, signed zeros equal) or within rtol/atol.
func xgSame(got, want *Tensor, rtol, atol float64) error {
	if got.DType != want.DType {
		return fmt.Errorf("dtype %s, want %s", got.DType, want.DType)
	}
	if !slices.Equal(got.Shape, want.Shape) {
		return fmt.Errorf("shape %v, want %v", got.Shape, want.Shape)
	}
	if err := got.Validate(); err != nil {
		return err
	}
	if s, ok := want.Data.([][]byte); ok {
		g := got.Data.([][]byte)
		for i := range s {
			if string(g[i]) != string(s[i]) {
				return fmt.Errorf("[%d] = %q, want %q", i, g[i], s[i])
			}
		}
		return nil
	}
	wv, _ := want.Float64s()
	gv, _ := got.Float64s()
	for i, w := range wv {
		g := gv[i]
		switch {
		case math.IsNaN(w) || math.IsNaN(g):
			if math.IsNaN(w) != math.IsNaN(g) {
				return fmt.Errorf("[%d] = %v, want %v", i, g, w)
			}
		case math.IsInf(w, 0):
			if g != w {
				return fmt.Errorf("[%d] = %v, want %v", i, g, w)
			}
		case math.Abs(g-w) > rtol*math.Abs(w)+atol:
			return fmt.Errorf("[%d] = %v, want %v", i, g, w)
		}
	}
	return nil
}

func TestExtraGoldens(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "kernels", "extra", "numpy.json"))
	require.NoError(t, err)
	var f struct{ Cases []xgCase }
	require.NoError(t, json.Unmarshal(raw, &f))
	require.NotEmpty(t, f.Cases)
	for _, c := range f.Cases {
		t.Run(c.Name, func(t *testing.T) {
			attrs := map[string]*attrpb.AttrValue{}
			for k, raw := range c.Attrs {
				a, err := goldenAttr(raw)
				require.NoError(t, err, k)
				attrs[k] = a
			}
			var ins []*Tensor
			for _, g := range c.Inputs {
				x, err := g.tensor()
				require.NoError(t, err)
				ins = append(ins, x)
			}
			outs, err := xRun(c.Op, attrs, ins...)
			require.NoError(t, err)
			require.Len(t, outs, len(c.Outputs))
			for i, g := range c.Outputs {
				want, err := g.tensor()
				require.NoError(t, err)
				require.NoError(t, xgSame(outs[i], want, c.RTol, c.ATol), "output %d", i)
			}
		})
	}
}

// Constructors and attrs for the extra kernels' table tests.

func xf32(shape []int, v ...float32) *Tensor {
	return &Tensor{DType: tpb.DataType_DT_FLOAT, Shape: shape, Data: v}
}

func xi32(shape []int, v ...int32) *Tensor {
	return &Tensor{DType: tpb.DataType_DT_INT32, Shape: shape, Data: v}
}

func xi64(shape []int, v ...int64) *Tensor {
	return &Tensor{DType: tpb.DataType_DT_INT64, Shape: shape, Data: v}
}

func xstr(shape []int, v ...string) *Tensor {
	d := make([][]byte, len(v))
	for i, s := range v {
		d[i] = []byte(s)
	}
	return &Tensor{DType: tpb.DataType_DT_STRING, Shape: shape, Data: d}
}

func xattrs(kv ...any) map[string]*attrpb.AttrValue {
	m := map[string]*attrpb.AttrValue{}
	for i := 0; i+1 < len(kv); i += 2 {
		var v *attrpb.AttrValue
		switch x := kv[i+1].(type) {
		case bool:
			v = &attrpb.AttrValue{Value: &attrpb.AttrValue_B{B: x}}
		case int:
			v = &attrpb.AttrValue{Value: &attrpb.AttrValue_I{I: int64(x)}}
		case float64:
			v = &attrpb.AttrValue{Value: &attrpb.AttrValue_F{F: float32(x)}}
		case string:
			v = &attrpb.AttrValue{Value: &attrpb.AttrValue_S{S: []byte(x)}}
		case tpb.DataType:
			v = &attrpb.AttrValue{Value: &attrpb.AttrValue_Type{Type: x}}
		case []int64:
			v = &attrpb.AttrValue{Value: &attrpb.AttrValue_List{List: &attrpb.AttrValue_ListValue{I: x}}}
		case []float32:
			v = &attrpb.AttrValue{Value: &attrpb.AttrValue_List{List: &attrpb.AttrValue_ListValue{F: x}}}
		default:
			panic(fmt.Sprintf("xattrs: %T", x))
		}
		m[kv[i].(string)] = v
	}
	return m
}

// xErrCase is a kernel call that must fail with an error containing want.
type xErrCase struct {
	name  string
	op    string
	attrs map[string]*attrpb.AttrValue
	in    []*Tensor
	want  string
}

func xRunErrors(t *testing.T, cases []xErrCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			_, err := xRunSafe(tt.op, tt.attrs, tt.in...)
			require.Error(t, err)
			require.Contains(t, err.Error(), tt.want)
			require.Contains(t, err.Error(), "test/"+tt.op, "errors name the node")
		})
	}
}

// xRunSafe runs a kernel, turning a panic into a test-visible error (a
// kernel must never panic on bad input).
func xRunSafe(op string, attrs map[string]*attrpb.AttrValue, in ...*Tensor) (out []*Tensor, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("PANIC: %v", r)
		}
	}()
	return xRun(op, attrs, in...)
}
