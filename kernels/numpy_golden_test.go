package kernels

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/dtype"
)

// Goldens from NumPy (tools/goldens/numpy_goldens.py): an independent
// implementation of the same math. Floats compare with each case's rtol
// (1e-4 for float32), integers and bools exactly.

type npTensor struct {
	DType string `json:"dtype"`
	Shape []int  `json:"shape"`
	Data  []any  `json:"data"`
}

type npAttr struct {
	B     *bool    `json:"b"`
	I     *int64   `json:"i"`
	S     *string  `json:"s"`
	Type  string   `json:"type"`
	ListI *[]int64 `json:"list_i"`
}

type npCase struct {
	Name    string            `json:"name"`
	Op      string            `json:"op"`
	Attrs   map[string]npAttr `json:"attrs"`
	Inputs  []npTensor        `json:"inputs"`
	Outputs []npTensor        `json:"outputs"`
	RTol    float64           `json:"rtol"`
	ATol    float64           `json:"atol"`
}

var npDTypes = map[string]tpb.DataType{
	"float32": tpb.DataType_DT_FLOAT, "float64": tpb.DataType_DT_DOUBLE, "float16": tpb.DataType_DT_HALF,
	"int8": tpb.DataType_DT_INT8, "uint8": tpb.DataType_DT_UINT8, "int16": tpb.DataType_DT_INT16,
	"uint16": tpb.DataType_DT_UINT16, "int32": tpb.DataType_DT_INT32, "int64": tpb.DataType_DT_INT64,
	"uint32": tpb.DataType_DT_UINT32, "uint64": tpb.DataType_DT_UINT64, "bool": tpb.DataType_DT_BOOL,
}

func npFloat(v any) (float64, error) {
	switch x := v.(type) {
	case json.Number:
		return x.Float64()
	case string:
		switch x {
		case "nan":
			return math.NaN(), nil
		case "inf":
			return math.Inf(1), nil
		case "-inf":
			return math.Inf(-1), nil
		}
	}
	return 0, fmt.Errorf("bad number %v", v)
}

// toTensor builds a Tensor from its JSON form (via float64/int64 and
// CastTensor-free conversions, so the decoder does not depend on Cast).
func (g npTensor) toTensor() (*Tensor, error) {
	dt, ok := npDTypes[g.DType]
	if !ok {
		return nil, fmt.Errorf("unknown dtype %q", g.DType)
	}
	t, err := NewTensor(dt, g.Shape)
	if err != nil {
		return nil, err
	}
	if len(g.Data) != t.NumElements() {
		return nil, fmt.Errorf("%d values for shape %v", len(g.Data), g.Shape)
	}
	for i, v := range g.Data {
		switch d := t.Data.(type) {
		case []bool:
			d[i] = v.(bool)
		case []float32, []float64, []Float16:
			f, err := npFloat(v)
			if err != nil {
				return nil, err
			}
			switch d := d.(type) {
			case []float32:
				d[i] = float32(f)
			case []float64:
				d[i] = f
			case []Float16:
				d[i] = Float16FromFloat32(float32(f))
			}
		default:
			num, ok := v.(json.Number)
			if !ok {
				return nil, fmt.Errorf("bad integer %v", v)
			}
			if d, ok := d.([]uint64); ok {
				u, err := strconv.ParseUint(num.String(), 10, 64)
				if err != nil {
					return nil, err
				}
				d[i] = u
				continue
			}
			n, err := strconv.ParseInt(num.String(), 10, 64)
			if err != nil {
				return nil, err
			}
			switch d := d.(type) {
			case []int8:
				d[i] = int8(n)
			case []uint8:
				d[i] = uint8(n)
			case []int16:
				d[i] = int16(n)
			case []uint16:
				d[i] = uint16(n)
			case []int32:
				d[i] = int32(n)
			case []int64:
				d[i] = n
			case []uint32:
				d[i] = uint32(n)
			}
		}
	}
	return t, nil
}

func (a npAttr) proto() *attrpb.AttrValue {
	switch {
	case a.B != nil:
		return &attrpb.AttrValue{Value: &attrpb.AttrValue_B{B: *a.B}}
	case a.I != nil:
		return &attrpb.AttrValue{Value: &attrpb.AttrValue_I{I: *a.I}}
	case a.S != nil:
		return &attrpb.AttrValue{Value: &attrpb.AttrValue_S{S: []byte(*a.S)}}
	case a.Type != "":
		return &attrpb.AttrValue{Value: &attrpb.AttrValue_Type{Type: tpb.DataType(tpb.DataType_value[a.Type])}}
	case a.ListI != nil:
		return &attrpb.AttrValue{Value: &attrpb.AttrValue_List{List: &attrpb.AttrValue_ListValue{I: *a.ListI}}}
	}
	return &attrpb.AttrValue{}
}

// npAssertClose compares got with want: same dtype and shape, floats within
// atol + rtol*|want| (NaN matches NaN, infinities exactly), others exactly.
func npAssertClose(t *testing.T, want, got *Tensor, rtol, atol float64, msg string) {
	t.Helper()
	require.Equal(t, want.DType, got.DType, "%s: dtype", msg)
	require.Equal(t, want.Shape, got.Shape, "%s: shape", msg)
	require.NoError(t, got.Validate(), msg)
	if !dtype.IsFloat(want.DType) {
		require.Equal(t, want.Data, got.Data, msg)
		return
	}
	w, _ := want.Float64s()
	g, _ := got.Float64s()
	for i := range w {
		switch {
		case math.IsNaN(w[i]):
			require.True(t, math.IsNaN(g[i]), "%s: [%d] want NaN, got %v", msg, i, g[i])
		case math.IsInf(w[i], 0):
			require.Equal(t, w[i], g[i], "%s: [%d]", msg, i)
		default:
			require.LessOrEqual(t, math.Abs(g[i]-w[i]), atol+rtol*math.Abs(w[i]), "%s: [%d] want %v got %v", msg, i, w[i], g[i])
		}
	}
}

func TestNumPyGoldens(t *testing.T) {
	path := filepath.Join("..", "testdata", "kernels", "numpy_goldens.json")
	raw, err := os.ReadFile(path)
	require.NoError(t, err, "regenerate with /usr/bin/python3 tools/goldens/numpy_goldens.py")
	var file struct {
		Cases []npCase `json:"cases"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	require.NoError(t, dec.Decode(&file))
	require.Greater(t, len(file.Cases), 300)
	for _, c := range file.Cases {
		t.Run(c.Name, func(t *testing.T) {
			ctx := &Context{Op: c.Op, Path: "golden/" + c.Name, Attrs: map[string]*attrpb.AttrValue{}}
			for k, a := range c.Attrs {
				ctx.Attrs[k] = a.proto()
			}
			for _, in := range c.Inputs {
				x, err := in.toTensor()
				require.NoError(t, err)
				ctx.Inputs = append(ctx.Inputs, x)
			}
			fn := Lookup(c.Op)
			require.NotNil(t, fn, "no kernel for %s", c.Op)
			outs, err := fn(ctx)
			require.NoError(t, err)
			require.Len(t, outs, len(c.Outputs))
			for i, o := range c.Outputs {
				want, err := o.toTensor()
				require.NoError(t, err)
				npAssertClose(t, want, outs[i], c.RTol, c.ATol, fmt.Sprintf("output %d", i))
			}
		})
	}
}
