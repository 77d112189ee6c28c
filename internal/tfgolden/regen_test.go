package tfgolden

import (
	"math"
	"strings"
	"testing"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/kernels"
)

func TestRegenerated(t *testing.T) {
	f32 := func(v ...float32) *kernels.Tensor {
		return &kernels.Tensor{DType: tpb.DataType_DT_FLOAT, Shape: []int{len(v)}, Data: v}
	}
	file := func(op string, out float32) *File {
		return &File{TensorFlow: "2.15.0", Generator: Generator, Family: "f", Cases: []*Case{{
			Op: op, Attrs: map[string]*attrpb.AttrValue{}, Inputs: []*kernels.Tensor{f32(1, 2)}, Outputs: []*kernels.Tensor{f32(out)},
		}}}
	}
	next := math.Nextafter32(3, 4)
	tests := []struct {
		name      string
		got, want *File
		diff      string // "" for none, else a substring
	}{
		{"same", file("Add", 3), file("Add", 3), ""},
		{"exact op differs by one ULP", file("Add", next), file("Add", 3), "beyond bit-identical"},
		{"contraction within its tolerance", file("MatMul", next), file("MatMul", 3), ""},
		{"contraction beyond it", file("MatMul", 3.5), file("MatMul", 3), "beyond"},
		// TensorFlow's MatMul under ONEDNN_MAX_CPU_ISA=AVX against its AVX-512 result
		{"contraction on another CPU's sgemm", file("MatMul", -30.544113159179688), file("MatMul", -30.544095993041992), ""},
		{"exact op on another CPU", file("Add", -30.544113159179688), file("Add", -30.544095993041992), "beyond bit-identical"},
		// TensorFlow's Reciprocal of 0.001 on an Intel Sapphire Rapids against an AMD Zen 4
		{"estimate on another CPU maker's rcpps", file("Reciprocal", 999.99994), file("Reciprocal", 1000), ""},
		{"estimate beyond its tolerance", file("Rsqrt", 3.00001), file("Rsqrt", 3), "beyond"},
		{"another op", file("Sub", 3), file("Add", 3), "is Sub"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := strings.Join(Regenerated(tt.got, tt.want), "; ")
			if tt.diff == "" && d != "" || tt.diff != "" && !strings.Contains(d, tt.diff) {
				t.Errorf("Regenerated = %q, want %q", d, tt.diff)
			}
		})
	}
}
