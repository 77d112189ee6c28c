package executor

import (
	"bytes"
	"fmt"
	"math"

	expb "github.com/wamuir/graft/tensorflow/core/example/example_protos_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
	"google.golang.org/protobuf/proto"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/kernels"
)

// Seeded tf.Examples. A string input that a ParseExample node parses (the
// classify and regress signatures of TF1 SavedModels, an Estimator's
// serving input receiver) is a batch of serialized tf.Example protos, not
// text: words would only ever fail to parse. Such an input gets examples
// built from the parsing node's own feature spec (its dense and sparse
// keys, Tdense and sparse_types, dense_shapes: core/ops/parsing_ops.cc),
// each feature present, drawn from the input's generator as other inputs
// are: floats uniform in [0, 1), int64s in 0..255, bytes words of the
// model's vocabulary or made-up ones (1/2 each); a dense feature holds as
// many values as its shape (an unknown dimension counts 1), a sparse one 1
// to 3. ParseExample takes a vector (example_parsing_ops.cc), so an input
// of unknown rank is a batch of one. Protos are marshalled
// deterministically, so the same seed gives the same bytes. An example
// whose bytes end in NUL (a last value of 0) is drawn again, up to 16
// times: NumPy's fixed-width bytes arrays, which the .npz of `tfscan run`'s
// inputs holds them in, drop trailing NULs, and the example would not
// parse the same when fed back.

// maxExampleValues bounds a dense feature's values: a spec asking for more
// gets no examples (its input is seeded as text).
const maxExampleValues = 1 << 16

// exampleSpec is what a ParseExample node reads from each example.
type exampleSpec struct {
	dense  []exampleFeature
	sparse []exampleFeature
}

type exampleFeature struct {
	key string
	dt  tpb.DataType
	// n is the number of values of a dense feature (0 for sparse).
	n int
}

// exampleSpecOf returns the spec of the ParseExample node that parses
// node's output 0 (directly or through Identity nodes), nil when none
// does or its keys are not Consts.
func (e *Executor) exampleSpecOf(node string) *exampleSpec {
	n := e.byName[node]
	for hops := 0; n != nil && hops < 8; hops++ {
		var next *graph.Node
		for _, c := range e.g.Consumers(n) {
			if len(c.Inputs) == 0 || c.Inputs[0].Node != n || c.Inputs[0].Output != 0 {
				continue
			}
			switch c.Op {
			case "ParseExample":
				if s := parseExampleSpec(c); s != nil {
					return s
				}
			case "Identity":
				next = c
			}
		}
		n = next
	}
	return nil
}

// parseExampleSpec reads ParseExample's inputs (serialized, names,
// sparse_keys × Nsparse, dense_keys × Ndense, dense_defaults × Ndense)
// and attrs.
func parseExampleSpec(n *graph.Node) *exampleSpec {
	ns, nd := int(n.Attrs["Nsparse"].GetI()), int(n.Attrs["Ndense"].GetI())
	sparseTypes, denseTypes := n.Attrs["sparse_types"].GetList().GetType(), n.Attrs["Tdense"].GetList().GetType()
	shapes := n.Attrs["dense_shapes"].GetList().GetShape()
	if ns < 0 || nd < 0 || len(n.Inputs) != 2+ns+2*nd || len(sparseTypes) != ns || len(denseTypes) != nd || len(shapes) != nd {
		return nil
	}
	s := &exampleSpec{}
	for j := 0; j < ns+nd; j++ {
		key, ok := constString(n.Inputs[2+j].Node)
		if !ok {
			return nil
		}
		if j < ns {
			s.sparse = append(s.sparse, exampleFeature{key: key, dt: sparseTypes[j]})
			continue
		}
		count := 1
		for _, d := range shapes[j-ns].GetDim() {
			size := d.GetSize()
			if size < 0 {
				size = 1
			}
			if size > maxExampleValues || int64(count)*size > maxExampleValues {
				return nil
			}
			count *= int(size)
		}
		s.dense = append(s.dense, exampleFeature{key: key, dt: denseTypes[j-ns], n: count})
	}
	return s
}

// constString is the value of a scalar string Const.
func constString(n *graph.Node) (string, bool) {
	if n == nil || n.Op != "Const" {
		return "", false
	}
	t, err := kernels.FromProto(n.Attrs["value"].GetTensor())
	if err != nil {
		return "", false
	}
	d, ok := t.Data.([][]byte)
	if !ok || len(d) != 1 {
		return "", false
	}
	return string(d[0]), true
}

// seededExamples is a string input of the given shape holding serialized
// tf.Examples per spec (see above).
func seededExamples(name string, seed uint32, shape []int, spec *exampleSpec, words [][]byte) (*kernels.Tensor, error) {
	if len(shape) == 0 {
		shape = []int{1}
	}
	t, err := kernels.NewTensor(tpb.DataType_DT_STRING, shape)
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", name, err)
	}
	rnd := mulberry32(fnv1a(name) ^ seed)
	d := t.Data.([][]byte)
	for i := range d {
		for try := 0; try < 16 && (try == 0 || bytes.HasSuffix(d[i], []byte{0})); try++ {
			ex := &expb.Example{Features: &expb.Features{Feature: map[string]*expb.Feature{}}}
			for _, f := range spec.sparse {
				ex.Features.Feature[f.key] = seededFeature(f.dt, 1+int(3*rnd()), rnd, words)
			}
			for _, f := range spec.dense {
				ex.Features.Feature[f.key] = seededFeature(f.dt, f.n, rnd, words)
			}
			if d[i], err = (proto.MarshalOptions{Deterministic: true}).Marshal(ex); err != nil {
				return nil, fmt.Errorf("input %s: %w", name, err)
			}
		}
	}
	return t, nil
}

// seededFeature is a feature of n values of dtype dt.
func seededFeature(dt tpb.DataType, n int, rnd func() float64, words [][]byte) *expb.Feature {
	switch dt {
	case tpb.DataType_DT_FLOAT:
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rnd())
		}
		return &expb.Feature{Kind: &expb.Feature_FloatList{FloatList: &expb.FloatList{Value: v}}}
	case tpb.DataType_DT_INT64:
		v := make([]int64, n)
		for i := range v {
			v[i] = int64(math.Floor(256 * rnd()))
		}
		return &expb.Feature{Kind: &expb.Feature_Int64List{Int64List: &expb.Int64List{Value: v}}}
	}
	v := make([][]byte, n)
	for i := range v {
		v[i] = seededWord(rnd() < 0.5, rnd, words)
	}
	return &expb.Feature{Kind: &expb.Feature_BytesList{BytesList: &expb.BytesList{Value: v}}}
}
