package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/require"
)

// stack is a sample's functions from the leaf and its CPU time; a function
// named file:name is in that file.
type stack struct {
	funcs []string
	ns    int64
}

func cpuProfile(stacks []stack) *profile.Profile {
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:     10_000_000,
	}
	fns := map[string]*profile.Function{}
	for _, s := range stacks {
		var locs []*profile.Location
		for _, name := range s.funcs {
			fn := fns[name]
			if fn == nil {
				file, fname, ok := strings.Cut(name, ":")
				if !ok {
					file, fname = "", name
				}
				fn = &profile.Function{ID: uint64(len(fns) + 1), Name: fname, Filename: file}
				fns[name] = fn
				p.Function = append(p.Function, fn)
			}
			loc := &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: fn}}}
			p.Location = append(p.Location, loc)
			locs = append(locs, loc)
		}
		p.Sample = append(p.Sample, &profile.Sample{Location: locs, Value: []int64{1, s.ns}})
	}
	return p
}

func TestSplit(t *testing.T) {
	const k, e = module + "kernels.", module + "executor."
	p := cpuProfile([]stack{
		{[]string{k + "sgemmKernel12x16S", k + "gemmBlock[go.shape.float32]", e + "(*runState).exec"}, 40},
		{[]string{k + "convForward[go.shape.float32].convPatchFill[go.shape.float32].func4", k + "convForward[go.shape.float32]"}, 20},
		// the panel fills' assembly, as its own leaf
		{[]string{k + "panel6F32", k + "panelVec", k + "convForward[go.shape.float32].convPanelFill[go.shape.float32].func5"}, 10},
		// runtime frames count in the first tfscan function above them
		{[]string{"runtime.memclrNoHeapPointers", k + "newOutFull[go.shape.float32]", k + "batchNormOp[go.shape.float32]"}, 10},
		{[]string{"runtime.mallocgc", e + "(*runState).deliverFrom"}, 10},
		{[]string{k + "depthwiseF32.func1"}, 5},
		{[]string{k + "padKernel"}, 5},
		{[]string{"runtime.scanObject", "runtime.gcBgMarkWorker"}, 10},
		// a closure counts by its file
		{[]string{"/src/kernels/conv_depthwise_amd64.go:" + k + "init.24.func1", k + "depthwiseF32"}, 5},
		{[]string{k + "pool3[go.shape.float32].func1"}, 5},
		// the benchmark's setup is not counted
		{[]string{module + "savedmodel/bundle.(*Reader).readShard", module + "executor_test.zooRunner", module + "executor_test.benchZooGo"}, 50},
	})
	shares, funcs, err := split(p)
	require.NoError(t, err)
	const total = 120.0
	want := map[string]float64{
		"GEMM micro-kernel and its loops (Conv2D, MatMul)": 40 / total, "GEMM packing and im2col": 30 / total,
		"allocating and zeroing tensors": 10 / total, "executor and other kernel code": 10 / total, "depthwise": 10 / total,
		"Pad and copies": 5 / total, "pooling and reductions": 5 / total, runtimeColumn: 10 / total,
	}
	require.InDeltaMapValues(t, want, shares, 1e-9)
	require.InDelta(t, 10/total, funcs[runtimeColumn]["runtime.scanObject"], 1e-9)
}

func TestRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.out")
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, cpuProfile([]stack{{[]string{module + "kernels.bnRowsF32"}, 3}, {[]string{"runtime.gcBgMarkWorker"}, 1}}).Write(f))
	require.NoError(t, f.Close())

	var out, list bytes.Buffer
	require.NoError(t, run(&out, &list, "m", true, 1, []string{path}))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 3)
	require.Equal(t, "| m | – | – | – | 75% | – | – | – | – | 25% | – |", lines[2])
	require.Contains(t, list.String(), "kernels.bnRowsF32")

	require.ErrorContains(t, run(&out, &list, "m", false, 0, nil), "usage")
	require.NoError(t, os.WriteFile(path, []byte("not a profile"), 0o644))
	require.ErrorContains(t, run(&out, &list, "m", false, 0, []string{path}), path)
}
