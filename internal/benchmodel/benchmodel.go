// Package benchmodel generates the large model that tfscan's benchmarks
// share: a SavedModel of 210,000 nodes (60,000 top-level and 150 functions
// of 1,000) with 64 MiB of Const tensors, so that load, coverage and
// placement are measured on the same input.
package benchmodel

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"syscall"
	"testing"
	"time"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	fpb "github.com/wamuir/graft/tensorflow/core/framework/function_go_proto"
	gpb "github.com/wamuir/graft/tensorflow/core/framework/graph_go_proto"
	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"
	opdefpb "github.com/wamuir/graft/tensorflow/core/framework/op_def_go_proto"
	tensorpb "github.com/wamuir/graft/tensorflow/core/framework/tensor_go_proto"
	shapepb "github.com/wamuir/graft/tensorflow/core/framework/tensor_shape_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/internal/hugepage"
)

// Size of the generated model: top-level nodes, functions and nodes per
// function (60,000 + 150 × 1,000 = 210,000 nodes), plus bigConsts Const
// tensors of bigConstBytes each in the top-level graph.
const (
	benchTopNodes     = 60_000
	benchFunctions    = 150
	benchFuncNodes    = 1_000
	benchBigConsts    = 16
	benchBigConstSize = 4 << 20
)

var (
	benchOnce  sync.Once
	benchBytes []byte
)

func tType(t tpb.DataType) *attrpb.AttrValue {
	return &attrpb.AttrValue{Value: &attrpb.AttrValue_Type{Type: t}}
}
func sAttr(s string) *attrpb.AttrValue {
	return &attrpb.AttrValue{Value: &attrpb.AttrValue_S{S: []byte(s)}}
}
func iList(v ...int64) *attrpb.AttrValue {
	return &attrpb.AttrValue{Value: &attrpb.AttrValue_List{List: &attrpb.AttrValue_ListValue{I: v}}}
}

func constNode(name string, n int) *nodepb.NodeDef {
	return &nodepb.NodeDef{Name: name, Op: "Const", Attr: map[string]*attrpb.AttrValue{
		"dtype": tType(tpb.DataType_DT_FLOAT),
		"value": {Value: &attrpb.AttrValue_Tensor{Tensor: &tensorpb.TensorProto{
			Dtype:         tpb.DataType_DT_FLOAT,
			TensorShape:   &shapepb.TensorShapeProto{Dim: []*shapepb.TensorShapeProto_Dim{{Size: int64(n)}}},
			TensorContent: make([]byte, 4*n),
		}}},
	}}
}

// layer appends a conv block (Const filter, Conv2D, BiasAdd, Relu) fed by
// in, in top-level ("x:0") or function ("x:output:0") reference syntax.
func layer(nodes []*nodepb.NodeDef, prefix, in string, fn bool) ([]*nodepb.NodeDef, string) {
	ref := func(name, arg string) string { return inputRef(name, arg, fn) }
	f32 := tType(tpb.DataType_DT_FLOAT)
	w, conv, bias, add, relu := prefix+"/w", prefix+"/conv", prefix+"/b", prefix+"/bias", prefix+"/relu"
	nodes = append(nodes,
		constNode(w, 64),
		&nodepb.NodeDef{Name: conv, Op: "Conv2D", Input: []string{in, ref(w, "output")}, Device: "/device:GPU:0",
			Attr: map[string]*attrpb.AttrValue{"T": f32, "strides": iList(1, 1, 1, 1), "padding": sAttr("SAME"), "data_format": sAttr("NHWC")}},
		constNode(bias, 8),
		&nodepb.NodeDef{Name: add, Op: "BiasAdd", Input: []string{ref(conv, "output"), ref(bias, "output")}, Attr: map[string]*attrpb.AttrValue{"T": f32}},
		&nodepb.NodeDef{Name: relu, Op: "Relu", Input: []string{ref(add, "output")}, Attr: map[string]*attrpb.AttrValue{"T": f32}},
	)
	return nodes, ref(relu, "activations")
}

// SavedModel returns the bytes of the generated saved_model.pb, built once.
func SavedModel() []byte {
	benchOnce.Do(func() {
		gd := &gpb.GraphDef{Library: &fpb.FunctionDefLibrary{}}
		gd.Node = append(gd.Node, &nodepb.NodeDef{Name: "input", Op: "Placeholder", Attr: map[string]*attrpb.AttrValue{"dtype": tType(tpb.DataType_DT_FLOAT)}})
		for i := 0; i < benchBigConsts; i++ {
			gd.Node = append(gd.Node, constNode(fmt.Sprintf("big_%d", i), benchBigConstSize/4))
		}
		in := "input"
		calls := 0
		for len(gd.Node) < benchTopNodes-10 {
			l := len(gd.Node)
			gd.Node, in = layer(gd.Node, fmt.Sprintf("block%d", l), in, false)
			if calls < benchFunctions && (l/5)%60 == 0 {
				name := fmt.Sprintf("call_%d", calls)
				gd.Node = append(gd.Node, &nodepb.NodeDef{Name: name, Op: "StatefulPartitionedCall", Input: []string{in},
					Attr: map[string]*attrpb.AttrValue{
						"Tin":  {Value: &attrpb.AttrValue_List{List: &attrpb.AttrValue_ListValue{Type: []tpb.DataType{tpb.DataType_DT_FLOAT}}}},
						"Tout": {Value: &attrpb.AttrValue_List{List: &attrpb.AttrValue_ListValue{Type: []tpb.DataType{tpb.DataType_DT_FLOAT}}}},
						"f":    {Value: &attrpb.AttrValue_Func{Func: &attrpb.NameAttrList{Name: fmt.Sprintf("__inference_fn_%d", calls)}}},
					}})
				in = name
				calls++
			}
		}
		if calls != benchFunctions {
			panic(fmt.Sprintf("only %d of %d functions called", calls, benchFunctions))
		}
		gd.Node = append(gd.Node, &nodepb.NodeDef{Name: "output", Op: "Identity", Input: []string{in}, Attr: map[string]*attrpb.AttrValue{"T": tType(tpb.DataType_DT_FLOAT)}})
		for i := 0; i < benchFunctions; i++ {
			fd := &fpb.FunctionDef{
				Signature: &opdefpb.OpDef{Name: fmt.Sprintf("__inference_fn_%d", i),
					InputArg:  []*opdefpb.OpDef_ArgDef{{Name: "x", Type: tpb.DataType_DT_FLOAT}},
					OutputArg: []*opdefpb.OpDef_ArgDef{{Name: "y", Type: tpb.DataType_DT_FLOAT}}},
			}
			fin := "x"
			for len(fd.NodeDef) < benchFuncNodes {
				fd.NodeDef, fin = layer(fd.NodeDef, fmt.Sprintf("f%d", len(fd.NodeDef)), fin, true)
			}
			fd.Ret = map[string]string{"y": fin}
			gd.Library.Function = append(gd.Library.Function, fd)
		}
		benchBytes = marshal(serving(gd))
	})
	return benchBytes
}

// WriteDir writes the generated SavedModel into dir (saved_model.pb).
func WriteDir(dir string) error {
	return os.WriteFile(filepath.Join(dir, "saved_model.pb"), SavedModel(), 0o644)
}

// ReportCPU adds a cpu-ns/op metric (user+system time of the process,
// GC included): on a shared machine wall time says more about the
// neighbours than about the code. Use: defer ReportCPU(b)().
func ReportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() {
		b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
	}
}

func cpuTime() int64 {
	return int64(usage().cpu)
}

// rusage is what the process has used so far: its CPU time (user and
// system), the system part, and its minor page faults.
type rusage struct {
	cpu, sys time.Duration
	faults   int64
}

// usage is the process's rusage (zero where getrusage fails).
func usage() rusage {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return rusage{}
	}
	sys := time.Duration(ru.Stime.Nano())
	return rusage{cpu: time.Duration(ru.Utime.Nano()) + sys, sys: sys, faults: ru.Minflt}
}

// ReportPeakHeap adds a peak-heap-MiB metric: the most heap the benchmark
// held at once (live and not yet collected objects, sampled every
// millisecond from runtime/metrics), above what was held when it started.
// Use: defer ReportPeakHeap(b)().
func ReportPeakHeap(b *testing.B) func() {
	stop := sampleHeap()
	return func() {
		b.ReportMetric(float64(stop())/(1<<20), "peak-heap-MiB")
	}
}

// sampleHeap collects garbage and returns the freed memory to the
// operating system, takes back the huge pages earlier steps asked for
// (hugepage.Forget), then samples the heap every millisecond until the
// returned function is called; that returns the most heap held above what
// was held at the start.
//
// Returning the memory makes every measured step pay for the pages it
// touches, as a step of a fresh tfscan process does (on this project's
// 2-core virtual machines a page first touched costs several
// microseconds: a step's memory is a large part of its time). After a plain collection, which step paid
// for fresh pages depended on when the runtime's background scavenger had
// last returned memory, not on the step: the first large step after a few
// small ones paid for 15,000 page faults the next one did not.
func sampleHeap() func() uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() (uint64, bool) {
		metrics.Read(sample)
		return sample[0].Value.Uint64(), true
	}
	debug.FreeOSMemory()
	hugepage.Forget()
	base, _ := read()
	stop := samplePeak(read)
	return func() uint64 { return max(stop(), base) - base }
}

// samplePeak reads a value every millisecond, from now until the returned
// function is called, and once more then; that returns the largest value
// read (0 when no read succeeded).
func samplePeak(read func() (uint64, bool)) (stop func() uint64) {
	var peak uint64
	keep := func() {
		if v, ok := read(); ok && v > peak {
			peak = v
		}
	}
	stopped, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			keep()
			select {
			case <-stopped:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(stopped)
		<-done
		keep()
		return peak
	}
}
