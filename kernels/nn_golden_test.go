package kernels

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// Golden tests of the NN kernels against independent implementations:
// testdata/kernels/nn/numpy.json (NumPy, gen_numpy.py) and tfjs.json
// (TF.js CPU backend, gen_tfjs.js). See testdata/kernels/nn/README.md.

type nnGoldenTensor struct {
	DType  string `json:"dtype"`
	Shape  []int  `json:"shape"`
	Values []any  `json:"values"`
}

type nnGoldenCase struct {
	Name    string                     `json:"name"`
	Op      string                     `json:"op"`
	Attrs   map[string]json.RawMessage `json:"attrs"`
	Inputs  []nnGoldenTensor           `json:"inputs"`
	Outputs []nnGoldenTensor           `json:"outputs"`
	RTol    float64                    `json:"rtol"`
	ATol    float64                    `json:"atol"`
	// Skip lists output indices not compared (e.g. TF.js lacks them).
	Skip []int `json:"skip"`
}

type nnGoldenFile struct {
	Cases []nnGoldenCase `json:"cases"`
}

// goldenNumber reads a number of the JSON golden files: a JSON number, a
// bool, or NaN/Infinity/-Infinity spelt as strings.
func goldenNumber(v any) (float64, error) {
	switch x := v.(type) {
	case float64:
		return x, nil
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case string:
		switch x {
		case "NaN":
			return math.NaN(), nil
		case "Infinity":
			return math.Inf(1), nil
		case "-Infinity":
			return math.Inf(-1), nil
		}
	}
	return 0, fmt.Errorf("bad golden value %v", v)
}

func (g nnGoldenTensor) tensor() (*Tensor, error) {
	dt, ok := tpb.DataType_value[g.DType]
	if !ok {
		return nil, fmt.Errorf("dtype %q", g.DType)
	}
	vals := make([]float64, len(g.Values))
	for i, v := range g.Values {
		f, err := goldenNumber(v)
		if err != nil {
			return nil, err
		}
		vals[i] = f
	}
	t := &Tensor{DType: tpb.DataType(dt), Shape: append([]int{}, g.Shape...)}
	switch t.DType {
	case tpb.DataType_DT_FLOAT:
		d := make([]float32, len(vals))
		for i, v := range vals {
			d[i] = float32(v)
		}
		t.Data = d
	case tpb.DataType_DT_DOUBLE:
		t.Data = vals
	case tpb.DataType_DT_INT32:
		d := make([]int32, len(vals))
		for i, v := range vals {
			d[i] = int32(v)
		}
		t.Data = d
	case tpb.DataType_DT_INT64:
		d := make([]int64, len(vals))
		for i, v := range vals {
			d[i] = int64(v)
		}
		t.Data = d
	default:
		return nil, fmt.Errorf("dtype %s", g.DType)
	}
	return t, t.Validate()
}

// goldenAttr decodes an attr of the JSON golden files: {"b"|"i"|"f"|"s"|
// "type"|"ints"|"floats"|"strs": value}.
func goldenAttr(raw json.RawMessage) (*attrpb.AttrValue, error) {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	for k, v := range m {
		switch k {
		case "b":
			return &attrpb.AttrValue{Value: &attrpb.AttrValue_B{B: v.(bool)}}, nil
		case "i":
			return &attrpb.AttrValue{Value: &attrpb.AttrValue_I{I: int64(v.(float64))}}, nil
		case "f":
			return &attrpb.AttrValue{Value: &attrpb.AttrValue_F{F: float32(v.(float64))}}, nil
		case "s":
			return &attrpb.AttrValue{Value: &attrpb.AttrValue_S{S: []byte(v.(string))}}, nil
		case "type":
			return &attrpb.AttrValue{Value: &attrpb.AttrValue_Type{Type: tpb.DataType(tpb.DataType_value[v.(string)])}}, nil
		case "ints":
			l := &attrpb.AttrValue_ListValue{}
			for _, e := range v.([]any) {
				l.I = append(l.I, int64(e.(float64)))
			}
			return &attrpb.AttrValue{Value: &attrpb.AttrValue_List{List: l}}, nil
		case "floats":
			l := &attrpb.AttrValue_ListValue{}
			for _, e := range v.([]any) {
				l.F = append(l.F, float32(e.(float64)))
			}
			return &attrpb.AttrValue{Value: &attrpb.AttrValue_List{List: l}}, nil
		case "strs":
			l := &attrpb.AttrValue_ListValue{}
			for _, e := range v.([]any) {
				l.S = append(l.S, []byte(e.(string)))
			}
			return &attrpb.AttrValue{Value: &attrpb.AttrValue_List{List: l}}, nil
		}
	}
	return nil, fmt.Errorf("bad attr %s", raw)
}

func nnLoadGolden(t *testing.T, name string) []nnGoldenCase {
	t.Helper()
	p := filepath.Join("..", "testdata", "kernels", "nn", name)
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	var f nnGoldenFile
	require.NoError(t, json.Unmarshal(b, &f), p)
	require.NotEmpty(t, f.Cases, p)
	return f.Cases
}

func nnRunGoldenFile(t *testing.T, name string) {
	for _, c := range nnLoadGolden(t, name) {
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
			outs, err := nnRunOp(t, c.Op, attrs, ins...)
			require.NoError(t, err)
			require.GreaterOrEqual(t, len(outs), len(c.Outputs))
			for i, g := range c.Outputs {
				if nnContains(c.Skip, i) {
					continue
				}
				want, err := g.tensor()
				require.NoError(t, err)
				got := outs[i]
				require.NoError(t, got.Validate())
				require.Equal(t, want.Shape, got.Shape, "output %d shape", i)
				wv, _ := want.Float64s()
				gv, _ := got.Float64s()
				rtol, atol := c.RTol, c.ATol
				if rtol == 0 {
					rtol = 1e-4
				}
				for j := range wv {
					w, g := wv[j], gv[j]
					if math.IsNaN(w) || math.IsNaN(g) {
						require.True(t, math.IsNaN(w) && math.IsNaN(g), "output %d[%d]: got %v want %v", i, j, g, w)
						continue
					}
					if math.IsInf(w, 0) {
						require.Equal(t, w, g, "output %d[%d]", i, j)
						continue
					}
					require.LessOrEqual(t, math.Abs(g-w), rtol*math.Abs(w)+atol, "output %d[%d]: got %v want %v", i, j, g, w)
				}
			}
		})
	}
}

func nnContains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func TestGoldenNumPy(t *testing.T) { nnRunGoldenFile(t, "numpy.json") }

func TestGoldenTFJS(t *testing.T) { nnRunGoldenFile(t, "tfjs.json") }
