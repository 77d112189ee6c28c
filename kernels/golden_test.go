package kernels

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/dtype"
)

// The kernels' golden tests against independent implementations of the
// same math, one harness for every file:
//   - testdata/kernels/numpy_goldens.json (NumPy, tools/goldens/numpy_goldens.py);
//   - testdata/kernels/nn/numpy.json and tfjs.json (NumPy, gen_numpy.py, and
//     the TF.js CPU backend, gen_tfjs.js; see testdata/kernels/nn/README.md);
//   - testdata/kernels/extra/numpy.json (NumPy, tools/goldens/extra_goldens.py;
//     see testdata/kernels/extra/README.md).
//
// A case runs one op on its inputs and compares every output it lists:
// same dtype and shape, strings and integers exactly, floats within
// atol + rtol·|want| (NaN matches NaN, infinities exactly).

func TestNumPyGoldens(t *testing.T) {
	cases := runGoldens(t, filepath.Join("..", "testdata", "kernels", "numpy_goldens.json"), 0)
	require.Greater(t, cases, 300)
}

func TestGoldenNumPy(t *testing.T) {
	runGoldens(t, filepath.Join("..", "testdata", "kernels", "nn", "numpy.json"), 1e-4)
}

func TestGoldenTFJS(t *testing.T) {
	runGoldens(t, filepath.Join("..", "testdata", "kernels", "nn", "tfjs.json"), 1e-4)
}

func TestExtraGoldens(t *testing.T) {
	runGoldens(t, filepath.Join("..", "testdata", "kernels", "extra", "numpy.json"), 0)
}

// goldenTensor is a tensor of the golden files: a dtype (TensorFlow's enum
// name "DT_FLOAT" or NumPy's "float32"), a shape and the values in C order
// ("values", or "data" in numpy_goldens.json).
type goldenTensor struct {
	DType  string `json:"dtype"`
	Shape  []int  `json:"shape"`
	Values []any  `json:"values"`
	Data   []any  `json:"data"`
}

type goldenCase struct {
	Name    string                     `json:"name"`
	Op      string                     `json:"op"`
	Attrs   map[string]json.RawMessage `json:"attrs"`
	Inputs  []goldenTensor             `json:"inputs"`
	Outputs []goldenTensor             `json:"outputs"`
	RTol    float64                    `json:"rtol"`
	ATol    float64                    `json:"atol"`
	// Skip lists output indices not compared (e.g. TF.js lacks them).
	Skip []int `json:"skip"`
}

// runGoldens runs every case of the golden file at path and returns how
// many there are; rtol is the tolerance of a case that gives none.
func runGoldens(t *testing.T, path string, rtol float64) int {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err, "the golden files are made by the generators named in kernels/golden_test.go")
	var f struct {
		Cases []goldenCase `json:"cases"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	require.NoError(t, dec.Decode(&f), path)
	require.NotEmpty(t, f.Cases, path)
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
			k := Lookup(c.Op)
			require.NotNil(t, k, "no kernel for %s", c.Op)
			outs, err := k(&Context{Op: c.Op, Path: "test/" + c.Op, Attrs: attrs, Inputs: ins})
			require.NoError(t, err)
			if len(c.Skip) > 0 {
				require.GreaterOrEqual(t, len(outs), len(c.Outputs))
			} else {
				require.Len(t, outs, len(c.Outputs))
			}
			r := c.RTol
			if r == 0 {
				r = rtol
			}
			for i, g := range c.Outputs {
				if slices.Contains(c.Skip, i) {
					continue
				}
				want, err := g.tensor()
				require.NoError(t, err)
				require.NoError(t, goldenClose(want, outs[i], r, c.ATol), "output %d", i)
			}
		})
	}
	return len(f.Cases)
}

// goldenClose compares got with want: same dtype and shape, strings,
// integers and bools exactly, floats within atol + rtol·|want| (NaN
// matches NaN, infinities exactly).
func goldenClose(want, got *Tensor, rtol, atol float64) error {
	if got.DType != want.DType {
		return fmt.Errorf("dtype %s, want %s", dtype.Name(got.DType), dtype.Name(want.DType))
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
			if !bytes.Equal(g[i], s[i]) {
				return fmt.Errorf("[%d] = %q, want %q", i, g[i], s[i])
			}
		}
		return nil
	}
	wv, _ := want.Float64s()
	gv, _ := got.Float64s()
	float := dtype.IsFloat(want.DType)
	for i, w := range wv {
		g := gv[i]
		switch {
		case !float:
			if fmt.Sprint(elementAt(got, i)) != fmt.Sprint(elementAt(want, i)) {
				return fmt.Errorf("[%d] = %v, want %v", i, elementAt(got, i), elementAt(want, i))
			}
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

// elementAt is element i of t's data, exactly as stored.
func elementAt(t *Tensor, i int) any {
	switch d := t.Data.(type) {
	case []int8:
		return d[i]
	case []uint8:
		return d[i]
	case []int16:
		return d[i]
	case []uint16:
		return d[i]
	case []int32:
		return d[i]
	case []int64:
		return d[i]
	case []uint32:
		return d[i]
	case []uint64:
		return d[i]
	case []bool:
		return d[i]
	}
	return nil
}

func (g goldenTensor) tensor() (*Tensor, error) {
	dt, ok := dtype.Parse(g.DType)
	if !ok {
		return nil, fmt.Errorf("dtype %q", g.DType)
	}
	vals := g.Values
	if vals == nil {
		vals = g.Data
	}
	if dt == tpb.DataType_DT_STRING {
		d := make([][]byte, len(vals))
		for i, v := range vals {
			s, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("bad string %v", v)
			}
			d[i] = []byte(s)
		}
		t := &Tensor{DType: dt, Shape: append([]int{}, g.Shape...), Data: d}
		return t, t.Validate()
	}
	t, err := NewTensor(dt, g.Shape)
	if err != nil {
		return nil, err
	}
	if len(vals) != t.DataLen() {
		return nil, fmt.Errorf("%d values for shape %v", len(vals), g.Shape)
	}
	for i, v := range vals {
		if err := setGolden(t, i, v); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// setGolden stores v, a value of the golden files, as element i of t:
// integers exactly from their decimal digits, floats rounded to t's dtype.
func setGolden(t *Tensor, i int, v any) error {
	if d, ok := t.Data.([]uint64); ok {
		if n, ok := v.(json.Number); ok {
			u, err := strconv.ParseUint(n.String(), 10, 64)
			d[i] = u
			return err
		}
	}
	if n, ok := v.(json.Number); ok {
		if x, err := strconv.ParseInt(n.String(), 10, 64); err == nil && !dtype.IsFloat(t.DType) {
			return setInt(t, i, x)
		}
	}
	f, err := goldenNumber(v)
	if err != nil {
		return err
	}
	switch d := t.Data.(type) {
	case []float32:
		d[i] = float32(f)
	case []float64:
		d[i] = f
	case []Float16:
		d[i] = Float16FromFloat32(float32(f))
	case []BFloat16:
		d[i] = BFloat16FromFloat32(float32(f))
	case []bool:
		d[i] = f != 0
	case []uint64:
		d[i] = uint64(f)
	default:
		return setInt(t, i, int64(f))
	}
	return nil
}

// setInt stores x as element i of an integer or bool tensor, wrapped to
// its width as a C cast does.
func setInt(t *Tensor, i int, x int64) error {
	switch d := t.Data.(type) {
	case []int8:
		d[i] = int8(x)
	case []uint8:
		d[i] = uint8(x)
	case []int16:
		d[i] = int16(x)
	case []uint16:
		d[i] = uint16(x)
	case []int32:
		d[i] = int32(x)
	case []int64:
		d[i] = x
	case []uint32:
		d[i] = uint32(x)
	case []uint64:
		d[i] = uint64(x)
	case []bool:
		d[i] = x != 0
	default:
		return fmt.Errorf("dtype %s", dtype.Name(t.DType))
	}
	return nil
}

// goldenNumber reads a number of the golden files: a JSON number, a bool,
// or NaN and the infinities spelt as strings (JavaScript's "NaN",
// "Infinity", "-Infinity" or NumPy's "nan", "inf", "-inf").
func goldenNumber(v any) (float64, error) {
	switch x := v.(type) {
	case json.Number:
		return x.Float64()
	case float64:
		return x, nil
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case string:
		switch x {
		case "NaN", "nan":
			return math.NaN(), nil
		case "Infinity", "inf":
			return math.Inf(1), nil
		case "-Infinity", "-inf":
			return math.Inf(-1), nil
		}
	}
	return 0, fmt.Errorf("bad golden value %v", v)
}

// goldenAttr decodes an attr of the golden files: {"b"|"i"|"f"|"s"|"type"|
// "ints" (or "list_i")|"floats"|"strs": value}.
func goldenAttr(raw json.RawMessage) (*attrpb.AttrValue, error) {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	for k, v := range m {
		switch k {
		case "b":
			return &attrpb.AttrValue{Value: &attrpb.AttrValue_B{B: v.(bool)}}, nil
		case "i":
			i, err := v.(json.Number).Int64()
			return &attrpb.AttrValue{Value: &attrpb.AttrValue_I{I: i}}, err
		case "f":
			f, err := v.(json.Number).Float64()
			return &attrpb.AttrValue{Value: &attrpb.AttrValue_F{F: float32(f)}}, err
		case "s":
			return &attrpb.AttrValue{Value: &attrpb.AttrValue_S{S: []byte(v.(string))}}, nil
		case "type":
			return &attrpb.AttrValue{Value: &attrpb.AttrValue_Type{Type: tpb.DataType(tpb.DataType_value[v.(string)])}}, nil
		case "ints", "list_i":
			l := &attrpb.AttrValue_ListValue{}
			for _, e := range v.([]any) {
				i, err := e.(json.Number).Int64()
				if err != nil {
					return nil, err
				}
				l.I = append(l.I, i)
			}
			return &attrpb.AttrValue{Value: &attrpb.AttrValue_List{List: l}}, nil
		case "floats":
			l := &attrpb.AttrValue_ListValue{}
			for _, e := range v.([]any) {
				f, err := e.(json.Number).Float64()
				if err != nil {
					return nil, err
				}
				l.F = append(l.F, float32(f))
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
