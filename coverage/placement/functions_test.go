package placement

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const mlpLib = `library { function {
  signature { name: "mlp" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }
  node_def { name: "w" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 4 } dim { size: 3 } } float_val: 1 } } } }
  node_def { name: "mm" op: "MatMul" input: "x" input: "w:output:0" attr { key: "T" value { type: DT_FLOAT } } }
  node_def { name: "relu" op: "Relu" input: "mm:product:0" attr { key: "T" value { type: DT_FLOAT } } }
  ret { key: "y" value: "relu:activations:0" }
  arg_attr { key: 0 value { attr { key: "_output_shapes" value { list { shape { dim { size: -1 } dim { size: 4 } } } } } } }
} }`

const mlpReg = `
MatMul GPU T=float32
Relu GPU T=float32
Const GPU dtype=float32
`

// S11: the default device dominates: a function called under
// tf.device("/CPU:0") runs its GPU-capable ops on CPU
// (colocation_graph.cc:1555-1574; process_function_library_runtime.cc:538-550).
func TestS11DefaultDeviceDominates(t *testing.T) {
	g := buildGraph(t, "graph_def { "+mlpLib+" }")
	r := simulate(t, g, "GPU", cpuOps+mlpReg, Options{})
	assert.Equal(t, map[string]string{"w": "GPU:0", "mm": "GPU:0", "relu": "GPU:0"}, devices(r))
	// the argument is fed from the host: one H2D of batch(1)×4 floats
	assert.Equal(t, 2, r.IOTransfers)
	assert.Equal(t, int64(16+12), r.IOBytes)
	assert.Contains(t, r.AssumedDims, "x: dim 0 = 1 (default batch)")

	r = simulate(t, g, "GPU", cpuOps+mlpReg, Options{FunctionDevice: "CPU", Dims: map[string]int64{"batch": 8}})
	assert.Equal(t, map[string]string{"w": "CPU:0", "mm": "CPU:0", "relu": "CPU:0"}, devices(r))
	assert.Equal(t, 0, r.IOTransfers)
	assert.Contains(t, strings.Join(reasonsOf(r, "mm"), "\n"), "the default device")
}

// A PartitionedCall is inlined: body nodes without a device prefer the
// call's device (inline_function_utils.cc:203-247) and fall back softly.
func TestInlinedCall(t *testing.T) {
	g := buildGraph(t, "graph_def { "+
		placeholder("x", "DT_FLOAT", 2, 4)+
		nd("call", "StatefulPartitionedCall", in("x"), tla("Tin", "DT_FLOAT"), tla("Tout", "DT_FLOAT"), funcA("f", "mlp"))+
		nd("out", "Identity", in("call"), ta("T", "DT_FLOAT"))+
		mlpLib+" }", "serving_default=x:0->out:0")
	reg := cpuOps + "MatMul GPU T=float32\nConst GPU dtype=float32\nIdentity GPU T=float32\nPlaceholder DEFAULT\n"
	r := simulate(t, g, "GPU", reg, Options{})
	d := devices(r)
	assert.Equal(t, "GPU:0", d["mm"])
	assert.Equal(t, "CPU:0", d["relu"]) // no GPU Relu in this registry
	assert.Equal(t, "GPU:0", d["out"])
	// mm → relu D2H, relu → out H2D: 2×(2×3 floats)
	assert.Equal(t, 2, r.Transfers)
	assert.Equal(t, int64(48), r.TransferBytes)
	assert.Contains(t, strings.Join(reasonsOf(r, "call"), "\n"), "body inlined")
}

// A function inlined at two call sites is placed at each: its node's
// result speaks for its first instance (the first call in the graph's
// order), and names where the other landed.
func TestInlinedTwiceFirstSpeaks(t *testing.T) {
	for _, firstOnCPU := range []bool{true, false} {
		cpuCall, gpuCall := "call_a", "call_b"
		if !firstOnCPU {
			cpuCall, gpuCall = gpuCall, cpuCall
		}
		call := func(name string) string {
			pin := ""
			if name == cpuCall {
				pin = dev("/device:CPU:0")
			}
			return nd(name, "StatefulPartitionedCall", in("x"), tla("Tin", "DT_FLOAT"), tla("Tout", "DT_FLOAT"), funcA("f", "mlp"), pin)
		}
		g := buildGraph(t, "graph_def { "+
			placeholder("x", "DT_FLOAT", 2, 4)+call("call_a")+call("call_b")+
			nd("out", "AddV2", in("call_a", "call_b"), ta("T", "DT_FLOAT"))+
			mlpLib+" }", "serving_default=x:0->out:0")
		r := simulate(t, g, "GPU", cpuOps+mlpReg+"AddV2 GPU T=float32\n", Options{})
		first, other := "GPU:0", "CPU:0"
		if firstOnCPU {
			first, other = other, first
		}
		assert.Equal(t, first, devices(r)["mm"], "first on CPU: %v", firstOnCPU)
		assert.Contains(t, strings.Join(reasonsOf(r, "mm"), "\n"), "other call sites) are placed on "+other, "first on CPU: %v", firstOnCPU)
	}
}

func whileGraph(lower bool) string {
	low := ""
	if lower {
		low = ba("_lower_using_switch_merge", true)
	}
	return "graph_def { " +
		constNode("i0", "DT_INT32", nil, 0) +
		placeholder("x0", "DT_FLOAT", 4) +
		nd("loop", "While", in("i0", "x0"), tla("T", "DT_INT32", "DT_FLOAT"), funcA("cond", "cond"), funcA("body", "body"),
			ia("parallel_iterations", 10), low) +
		nd("out", "Identity", in("loop:1"), ta("T", "DT_FLOAT")) +
		`library {
  function {
    signature { name: "cond" input_arg { name: "i" type: DT_INT32 } input_arg { name: "x" type: DT_FLOAT } output_arg { name: "c" type: DT_BOOL } }
    node_def { name: "ten" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 10 } } } }
    node_def { name: "less" op: "Less" input: "i" input: "ten:output:0" attr { key: "T" value { type: DT_INT32 } } }
    ret { key: "c" value: "less:z:0" }
  }
  function {
    signature { name: "body" input_arg { name: "i" type: DT_INT32 } input_arg { name: "x" type: DT_FLOAT }
      output_arg { name: "i2" type: DT_INT32 } output_arg { name: "x2" type: DT_FLOAT } }
    node_def { name: "one" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 1 } } } }
    node_def { name: "inc" op: "AddV2" input: "i" input: "one:output:0" attr { key: "T" value { type: DT_INT32 } } }
    node_def { name: "str" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { } string_val: "a" } } } }
    node_def { name: "hash" op: "StringToHashBucketFast" input: "str:output:0" attr { key: "num_buckets" value { i: 10 } } }
    node_def { name: "hf" op: "Cast" input: "hash:output:0" attr { key: "SrcT" value { type: DT_INT64 } } attr { key: "DstT" value { type: DT_FLOAT } } }
    node_def { name: "add" op: "AddV2" input: "x" input: "hf:y:0" attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "i2" value: "inc:z:0" }
    ret { key: "x2" value: "add:z:0" }
  }
} }`
}

const whileReg = `
AddV2 GPU T=float32
Cast GPU
Identity GPU T=float32
Switch GPU T=float32 host=pred
Merge GPU T=float32 host=value_index
Enter GPU T=float32
Exit GPU T=float32
NextIteration GPU T=float32
LoopCond GPU host=input,output
While DEFAULT host=input
Placeholder DEFAULT
`

// S12 lowered: the loop is inlined as Switch/Merge/Enter/Exit; the string
// op goes to CPU, float ops to GPU, and the edge between them transfers
// once per iteration (graph_partition.cc:613-787).
func TestS12LoweredWhile(t *testing.T) {
	g := buildGraph(t, whileGraph(true))
	r := simulate(t, g, "GPU", cpuOps+whileReg, Options{})
	d := devices(r)
	assert.Equal(t, "CPU:0", d["hash"])
	assert.Equal(t, "CPU:0", d["str"])
	assert.Equal(t, "GPU:0", d["add"])
	assert.Equal(t, "GPU:0", d["hf"])
	assert.GreaterOrEqual(t, r.TransfersPerIteration, 1)
	var perIter bool
	for _, x := range r.TransferList {
		if x.PerIteration && strings.Contains(x.Src, "hash") {
			perIter = true
			assert.Equal(t, "h2d", x.Kind)
		}
	}
	assert.True(t, perIter, "%+v", r.TransferList)
	assert.Empty(t, r.Errors)
	assert.Empty(t, r.Warnings)
}

// S12 not lowered: While is placed as one op (DEFAULT kernel,
// functional_ops.cc:800-801) and its body runs single-device there, so the
// string op fails at kernel creation (function.cc:930-951).
func TestS12FunctionalWhile(t *testing.T) {
	g := buildGraph(t, whileGraph(false))
	r := simulate(t, g, "GPU", cpuOps+whileReg, Options{})
	d := devices(r)
	assert.Equal(t, "GPU:0", d["loop"])
	assert.Equal(t, "GPU:0", d["hash"])
	require.NotEmpty(t, r.Warnings)
	assert.Contains(t, strings.Join(r.Warnings, "\n"), "No registered 'StringToHashBucketFast' OpKernel for 'GPU' devices")
}

// A variable reaches a function body through a resource argument; the
// target has a kernel for MatMul only, so the variable's value (read on
// CPU, beside its handle) is copied to the device. Its size is the
// variable's: the handle data of the VarHandleOp flows into the body
// (graph/shape), so the transfer's size is known.
func TestVariableThroughResourceArgIsSized(t *testing.T) {
	lib := `library { function {
	  signature { name: "layer" input_arg { name: "x" type: DT_FLOAT } input_arg { name: "kernel" type: DT_RESOURCE }
	    output_arg { name: "y" type: DT_FLOAT } is_stateful: true }
	  node_def { name: "read" op: "ReadVariableOp" input: "kernel" attr { key: "dtype" value { type: DT_FLOAT } } }
	  node_def { name: "mm" op: "MatMul" input: "x" input: "read:value:0" attr { key: "T" value { type: DT_FLOAT } } }
	  ret { key: "y" value: "mm:product:0" }
	  arg_attr { key: 1 value { attr { key: "_output_shapes" value { list { shape { } } } } } }
	} }`
	g := buildGraph(t, "graph_def { "+
		placeholder("x", "DT_FLOAT", 2, 256)+
		nd("kernel", "VarHandleOp", nil, ta("dtype", "DT_FLOAT"), sha("shape", 256, 128), sa("shared_name", "kernel"))+
		nd("call", "StatefulPartitionedCall", in("x", "kernel"), tla("Tin", "DT_FLOAT", "DT_RESOURCE"), tla("Tout", "DT_FLOAT"), funcA("f", "layer"))+
		nd("out", "Identity", in("call"), ta("T", "DT_FLOAT"))+
		lib+" }", "serving_default=x:0->out:0")
	r := simulate(t, g, "GPU", cpuOps+"MatMul GPU T=float32\nPlaceholder DEFAULT\n", Options{})
	d := devices(r)
	require.Equal(t, "CPU:0", d["read"])
	require.Equal(t, "GPU:0", d["mm"])
	var value *Transfer
	for i, x := range r.TransferList {
		if strings.HasSuffix(x.Src, "read:0") {
			value = &r.TransferList[i]
		}
	}
	require.NotNil(t, value, "the variable's value goes to the device")
	assert.True(t, value.BytesKnown)
	assert.Equal(t, int64(256*128*4), value.Bytes)
	assert.Equal(t, 0, r.UnknownBytes)
}

// Nodes of one kernel lookup alone in their groups go where their default
// device says: an inlined body's MatMul prefers the call's device (the
// target), a top-level one has no default, and the two, placed by one
// walk, keep their own reasons.
func TestAloneNodesKeepTheirDefaultDevice(t *testing.T) {
	g := buildGraph(t, "graph_def { "+
		placeholder("x", "DT_FLOAT", 2, 4)+
		placeholder("w_top", "DT_FLOAT", 4, 3)+
		nd("mm_top", "MatMul", in("x", "w_top"), ta("T", "DT_FLOAT"))+
		nd("call", "StatefulPartitionedCall", in("x"), tla("Tin", "DT_FLOAT"), tla("Tout", "DT_FLOAT"), funcA("f", "mlp"))+
		mlpLib+" }", "serving_default=x:0->call:0")
	r := simulate(t, g, "GPU", cpuOps+mlpReg, Options{})
	d := devices(r)
	require.Equal(t, "GPU:0", d["mm_top"])
	require.Equal(t, "GPU:0", d["mm"])
	assert.Equal(t, "GPU:0: kernel on GPU", reasonsOf(r, "mm_top")[0])
	assert.Equal(t, "GPU:0: kernel on GPU, the default device", reasonsOf(r, "mm")[0])
}

// Body nodes that request a partial device take the fields they leave
// unset from their caller's (inline_function_utils.cc:218-239), though a
// top-level node requested the same partial device before them: the
// builder's last parsed device is the top level's, not the body's.
func TestBodyRequestFilledFromCallerAfterTheSameRequest(t *testing.T) {
	job := dev("/job:localhost")
	lib := strings.NewReplacer(`name: "mm" op: "MatMul"`, `name: "mm" op: "MatMul" `+job,
		`name: "relu" op: "Relu"`, `name: "relu" op: "Relu" `+job).Replace(mlpLib)
	g := buildGraph(t, "graph_def { "+
		nd("x", "Placeholder", nil, ta("dtype", "DT_FLOAT"), job)+
		nd("call", "StatefulPartitionedCall", in("x"), tla("Tin", "DT_FLOAT"), tla("Tout", "DT_FLOAT"), funcA("f", "mlp"), dev("/device:CPU:0"))+
		nd("out", "Identity", in("call"), ta("T", "DT_FLOAT"), job)+
		lib+" }", "serving_default=x:0->out:0")
	r := simulate(t, g, "GPU", cpuOps+mlpReg+"Identity GPU T=float32\n", Options{})
	d := devices(r)
	assert.Equal(t, "CPU:0", d["mm"])
	assert.Equal(t, "CPU:0", d["relu"])
	assert.Equal(t, "GPU:0", d["out"])
}

// A call of a function that is being called (recursion, direct or through
// other functions) is not inlined: the flattening inlines each call whose
// function is neither its body's function nor one of its callers'
// (onStack), and leaves that one a node of its own, where inlining it
// again would repeat the bodies up to maxInlineDepth.
func TestRecursiveCallsAreNotInlined(t *testing.T) {
	call := func(name, fn, input string) string {
		return strings.Replace(nd(name, "PartitionedCall", in(input), tla("Tin", "DT_FLOAT"), tla("Tout", "DT_FLOAT"), funcA("f", fn)), "node {", "node_def {", 1)
	}
	// fn's body calls each of calls, one after the other, then returns.
	fn := func(name string, calls ...string) string {
		body, last := "", "x"
		for i, c := range calls {
			n := fmt.Sprintf("c%d", i)
			body += call(n, c, last)
			last = n + ":output:0"
		}
		return fmt.Sprintf(`function { signature { name: %q input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } } %s ret { key: "y" value: %q } }`, name, body, last)
	}
	for _, c := range []struct {
		name string
		lib  []string
		// inlined are the calls inlined, the top-level one's included;
		// left those left a node of their own.
		inlined, left int
	}{
		{"direct", []string{fn("f", "f")}, 1, 1},
		{"through another", []string{fn("f", "g"), fn("g", "f")}, 2, 1},
		{"through two others", []string{fn("f", "g"), fn("g", "h"), fn("h", "f")}, 3, 1},
		{"a callee's own callee", []string{fn("f", "g"), fn("g", "g")}, 2, 1},
		{"siblings are not callers", []string{fn("f", "g", "g"), fn("g")}, 3, 0},
		{"a sibling's callee", []string{fn("f", "g", "h"), fn("g", "h"), fn("h")}, 4, 0},
	} {
		// The build refuses recursion as TensorFlow does, and gives the
		// graph still (graph.Build).
		g, _ := buildGraphErr(t, "graph_def { "+placeholder("x", "DT_FLOAT", 2)+
			nd("call", "StatefulPartitionedCall", in("x"), tla("Tin", "DT_FLOAT"), tla("Tout", "DT_FLOAT"), funcA("f", "f"))+
			nd("out", "Identity", in("call"), ta("T", "DT_FLOAT"))+
			" library { "+strings.Join(c.lib, " ")+" } }", "serving_default=x:0->out:0")
		tm, cm := matchers(t, "GPU", cpuOps)
		s := newSim(g, tm, cm, Options{})
		f, err := s.shared()
		require.NoError(t, err, c.name)
		inlined, calls := 0, 0
		for _, p := range f.nodes {
			if p.src != nil && callOps[p.src.Op] {
				calls++
				if p.is(pGhost) {
					inlined++
				}
			}
		}
		assert.Equal(t, c.inlined, inlined, c.name)
		assert.Equal(t, c.left, calls-inlined, "%s: calls left a node of their own", c.name)
	}
}
