package kernels

// Constructors, attrs and runners for the extra kernels' table tests.

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// xRun runs op on inputs with attrs, as the executor would.
func xRun(op string, attrs map[string]*attrpb.AttrValue, inputs ...*Tensor) ([]*Tensor, error) {
	k := Lookup(op)
	if k == nil {
		return nil, fmt.Errorf("no kernel for %s", op)
	}
	return k(&Context{Op: op, Path: "test/" + op, Attrs: attrs, Inputs: inputs})
}

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

// xattrs builds attrs from name, value pairs (bool, int, float64, string,
// DataType, []int, []int64, []float32, []string).
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
		case []int:
			l := &attrpb.AttrValue_ListValue{}
			for _, e := range x {
				l.I = append(l.I, int64(e))
			}
			v = &attrpb.AttrValue{Value: &attrpb.AttrValue_List{List: l}}
		case []int64:
			v = &attrpb.AttrValue{Value: &attrpb.AttrValue_List{List: &attrpb.AttrValue_ListValue{I: x}}}
		case []string:
			l := &attrpb.AttrValue_ListValue{}
			for _, e := range x {
				l.S = append(l.S, []byte(e))
			}
			v = &attrpb.AttrValue{Value: &attrpb.AttrValue_List{List: l}}
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
