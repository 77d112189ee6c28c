package kernels

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"testing"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// TensorFlow 2.15.0's StatelessRandomNormalV2 (2^20 float32s) and
// StatelessRandomUniformIntV2 (1001 int32s in [-7, 2^31-1), 1001 int64s in
// [-7, 2^40)) for three keys and counters, alg Philox, as SHA-256 of their
// little-endian bytes: gen_stateless_random_ops_v2 on an x86-64 CPU with
// FMA, so the normals went through glibc 2.36's logf and sincosf *_fma
// builds. Every one of the 3·2^20 normals is bit-identical.
var philoxGoldens = []struct {
	key, c0, c1          uint64
	normal, int32s, i64s string
}{
	{12345, 0, 0, "c2a37ed274b9562f443736a08da711e36b981792dd4e9364183a55f942370576",
		"69ea6f1897db567d35d686d7aaecd9730d9a490e40eea0c8f8e3f666ddbdc4c8", "5960dc226b2cc710aa0242eeb30504fe01f8e01c27a258e71f1f13e2760b9084"},
	{9223372036854775885, 18446744073709551613, 5, "76bf7558ec9b8693e8b5afaacf76811cedd08e21ab8ecc9d62eeb485829718f5",
		"74fcc3d3d00f43ee4abb81d2bef37521da159fcf0e2b775aaecb274ecbe3070b", "f20d897e62d132b8bb86f6f0d655120355b57ef711aa0d580aca91124b381689"},
	{987654321, 123456789, 0, "e56ac887ac56519051098545c1354d67c2c09830c0d66fa6a3dbef3cdc21da64",
		"3d777514114f1057a54fac259fbe7ba4b59d0c4ee006fa135d72652ac3bfe37a", "a66a33bd877e7b81f6b51d6d91795fd39493ced1a73159a5a25ed85ed861da2f"},
}

func shaOf(data any) string {
	h := sha256.New()
	if err := binary.Write(h, binary.LittleEndian, data); err != nil {
		panic(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func TestStatelessRandomV2MatchesTensorFlow(t *testing.T) {
	defer func(f bool) { glibcFused = f }(glibcFused)
	glibcFused = true // the goldens' glibc build
	i32 := func(v ...int32) *Tensor { return &Tensor{DType: tpb.DataType_DT_INT32, Shape: []int{len(v)}, Data: v} }
	scalar32 := func(v int32) *Tensor { return &Tensor{DType: tpb.DataType_DT_INT32, Shape: []int{}, Data: []int32{v}} }
	scalar64 := func(v int64) *Tensor { return &Tensor{DType: tpb.DataType_DT_INT64, Shape: []int{}, Data: []int64{v}} }
	for _, g := range philoxGoldens {
		key := &Tensor{DType: tpb.DataType_DT_UINT64, Shape: []int{1}, Data: []uint64{g.key}}
		ctr := &Tensor{DType: tpb.DataType_DT_UINT64, Shape: []int{2}, Data: []uint64{g.c0, g.c1}}
		alg := scalar32(rngAlgPhilox)
		c := &Context{Op: "StatelessRandomNormalV2", Inputs: []*Tensor{i32(1 << 20), key, ctr, alg}}
		c.Attrs = map[string]*attrpb.AttrValue{"dtype": {Value: &attrpb.AttrValue_Type{Type: tpb.DataType_DT_FLOAT}}}
		out, err := kStatelessRandomNormalV2(c)
		if err != nil {
			t.Fatal(err)
		}
		if got := shaOf(out[0].Data); got != g.normal {
			t.Errorf("key %d counter %d,%d: normals differ from TensorFlow's (sha256 %s)", g.key, g.c0, g.c1, got)
		}
		out, err = kStatelessRandomUniformIntV2(&Context{Op: "StatelessRandomUniformIntV2",
			Inputs: []*Tensor{i32(1001), key, ctr, alg, scalar32(-7), scalar32(math.MaxInt32)}})
		if err != nil {
			t.Fatal(err)
		}
		if got := shaOf(out[0].Data); got != g.int32s {
			t.Errorf("key %d: int32s differ from TensorFlow's", g.key)
		}
		out, err = kStatelessRandomUniformIntV2(&Context{Op: "StatelessRandomUniformIntV2",
			Inputs: []*Tensor{i32(1001), key, ctr, alg, scalar64(-7), scalar64(1 << 40)}})
		if err != nil {
			t.Fatal(err)
		}
		if got := shaOf(out[0].Data); got != g.i64s {
			t.Errorf("key %d: int64s differ from TensorFlow's", g.key)
		}
	}
}

// RngReadAndSkip hands out the state and moves the 128-bit counter on by
// delta·256, carrying into the high word.
func TestRngReadAndSkip(t *testing.T) {
	rm := NewResourceMgr(nil)
	attrs := map[string]*attrpb.AttrValue{"dtype": {Value: &attrpb.AttrValue_Type{Type: tpb.DataType_DT_INT64}},
		"shared_name": {Value: &attrpb.AttrValue_S{S: []byte("state")}}}
	run := func(op string, in ...*Tensor) []*Tensor {
		t.Helper()
		k := Find(op)
		if k == nil || !k.Stateful {
			t.Fatalf("%s has no stateful kernel", op)
		}
		out, err := k.Fn(&Context{Op: op, Path: op, Node: op, Attrs: attrs, Inputs: in, Resources: rm})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	h := run("VarHandleOp")[0]
	run("AssignVariableOp", h, &Tensor{DType: tpb.DataType_DT_INT64, Shape: []int{3}, Data: []int64{-256, 7, 99}})
	alg := &Tensor{DType: tpb.DataType_DT_INT64, Shape: []int{}, Data: []int64{rngAlgPhilox}}
	delta := &Tensor{DType: tpb.DataType_DT_UINT64, Shape: []int{}, Data: []uint64{2}}
	if got := run("RngReadAndSkip", h, alg, delta)[0].Data.([]int64); got[0] != -256 || got[1] != 7 || got[2] != 99 {
		t.Errorf("read %v, want the old state", got)
	}
	if got := run("ReadVariableOp", h)[0].Data.([]int64); got[0] != 256 || got[1] != 8 || got[2] != 99 {
		t.Errorf("state %v, want [256 8 99] (the counter plus 512, carried)", got)
	}
}
