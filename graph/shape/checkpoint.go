package shape

import (
	"strconv"
	"strings"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/savedmodel/bundle"
)

// A model's checkpoint records the dtype and shape of every tensor it
// holds (its tensor-bundle index, savedmodel/bundle). For what a model
// restores from it that is ground truth, where the graph's own shape
// functions know nothing: RestoreV2 with empty shape-and-slice specs
// (the common case) has unknown output shapes in TensorFlow's shape fn
// (tensorflow/core/ops/io_ops.cc:86-136), and the kernel gives each
// output the shape its checkpoint entry records
// (kernels/save_restore_v2_ops.cc, BundleReader::Lookup).

// OpenCheckpoint opens the index of the checkpoint at prefix (a
// SavedModel's DIR/variables/variables); nil and no error when prefix is
// "" (no checkpoint). An index that cannot be read is an error naming the
// file; the caller goes on without it (Options.Checkpoint nil), and
// nothing restored from it gets a size.
func OpenCheckpoint(prefix string) (*bundle.Reader, error) {
	if prefix == "" {
		return nil, nil
	}
	return bundle.Open(prefix)
}

// checkpointRule infers what is read from a checkpoint; it reports whether
// n was such an op.
func (s *Shapes) checkpointRule(n *graph.Node, _ []Tensor, outs []Tensor) bool {
	if n.Op != "RestoreV2" {
		return false
	}
	if len(n.Inputs) < 3 {
		return true
	}
	names := constStrings(n.Inputs[1], len(outs))
	specs := constStrings(n.Inputs[2], len(outs))
	dts := n.Attrs["dtypes"].GetList().GetType()
	for i := range outs {
		if i < len(specs) && specs[i] != "" {
			// io_ops.cc:114-129: the shape of the slice a spec names.
			if sh, ok := sliceShape(specs[i]); ok {
				outs[i].Shape = sh
			}
			continue
		}
		if s.ckpt == nil || i >= len(names) || i >= len(dts) {
			continue
		}
		e, ok := s.ckpt.Entry(names[i])
		if !ok || e.GetDtype() != dts[i] {
			continue // TensorFlow fails this restore; no size
		}
		outs[i].Shape = fromProto(e.GetShape())
	}
	return true
}

// constStrings are the n strings of a Const string vector feeding in
// (a single string_val fills the tensor, as TensorProto says); nil when
// in is not such a Const.
func constStrings(in graph.Input, n int) []string {
	c := in.Node
	if c == nil || c.Op != "Const" || n > maxValue {
		return nil
	}
	t := c.Attrs["value"].GetTensor()
	sh := fromProto(t.GetTensorShape())
	if k, ok := sh.NumElements(); !ok || k != int64(n) {
		return nil
	}
	sv := t.GetStringVal()
	if len(sv) == 0 || len(sv) > n {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = string(sv[min(i, len(sv)-1)])
	}
	return out
}

// sliceShape parses a shape-and-slice spec, "dim0 dim1 ... slice"
// (util/saved_tensor_slice_util.cc:92-125), whose slice is "-" or
// "start,length" per dimension, ':'-separated
// (framework/tensor_slice.cc:78-109), into the slice's shape.
func sliceShape(spec string) (Shape, bool) {
	parts := strings.Split(spec, " ")
	if len(parts) < 2 || len(parts) > 1<<10 {
		return Shape{}, false
	}
	var items []string
	for _, x := range strings.Split(parts[len(parts)-1], ":") {
		if x != "" {
			items = append(items, x)
		}
	}
	dims := parts[:len(parts)-1]
	if len(items) != len(dims) {
		return Shape{}, false
	}
	out := make([]int64, len(dims))
	for i, ds := range dims {
		d, err := strconv.ParseInt(ds, 10, 64)
		if err != nil || d < 0 || d > maxElems {
			return Shape{}, false
		}
		if items[i] == "-" {
			out[i] = d
			continue
		}
		sl := strings.Split(items[i], ",")
		if len(sl) != 2 {
			return Shape{}, false
		}
		start, err1 := strconv.ParseInt(sl[0], 10, 64)
		length, err2 := strconv.ParseInt(sl[1], 10, 64)
		if err1 != nil || err2 != nil || start < 0 || length <= 0 || start > d || length > d-start {
			return Shape{}, false
		}
		out[i] = length
	}
	return Shape{Dims: out}, true
}
