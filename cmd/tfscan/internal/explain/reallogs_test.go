package explain

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/coverage/placement"
	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/reports/jsonout"
)

// realDir holds real TensorFlow 2.15 logs and the models they are about
// (tools/tf/make_logs.py; its README says how each was made).
var realDir = filepath.Join("..", "..", "..", "..", "tflog", "testdata", "tf2.15")

// realCases are the real logs that have a model, what explain must find in
// each (message kinds in order, the model node of each message: "" for an
// op-level or group message) and whether each agrees with tfscan's
// prediction on the cpu target (nil: not assessed). The XLA_CPU fixtures use
// XLA_CPU as the accelerator of a CPU-only machine; no tfscan target is
// XLA_CPU, so against cpu the pin is "another device type" (not assessed),
// and the nodes TensorFlow left on XLA_CPU disagree with a cpu placement.
var realCases = []struct {
	log, model string
	kinds      []string
	nodes      []string
	agrees     []*bool
	// placed and placedAgree count placement lines and those on the
	// predicted kind of device.
	placed, placedAgree int
}{
	{"placement.log", "placement.pbtxt", rep("placement", 7), []string{"dense", "bias", "relu", "probs", "x", "w", "b"}, rep(yes, 7), 7, 7},
	{"device_not_available.log", "device_not_available.pbtxt", []string{"device_not_available"}, []string{"dense"}, []*bool{yes}, 0, 0},
	{"no_opkernel.log", "no_opkernel.pbtxt", []string{"no_opkernel"}, []string{"qmatmul"}, []*bool{yes}, 0, 0},
	{"explicit_device.log", "explicit_device.pbtxt", []string{"explicit_device_unsatisfiable"}, []string{"det"}, []*bool{nil}, 0, 0},
	{"explicit_device_group.log", "explicit_device_group.pbtxt", []string{"explicit_device_unsatisfiable"}, []string{"w/IsInitialized/VarIsInitializedOp"}, []*bool{nil}, 0, 0},
	{"op_not_registered.log", "op_not_registered", []string{"op_not_registered"},
		[]string{"serving_default/PartitionedCall/__inference_signature_wrapper_12/PartitionedCall/__inference___call___6/CaseFoldUTF8/CaseFoldUTF8"}, []*bool{yes}, 0, 0},
	{"soft_placement_resources.log", "soft_placement_resources.pbtxt",
		append([]string{"soft_placement_resources"}, rep("placement", 29)...), nil, nil, 29, 17},
}

var yes = boolPtr(true)

func rep[T any](v T, n int) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func explainReal(t *testing.T, logName, model string) *reports.ExplainReport {
	t.Helper()
	log, err := ReadLog(filepath.Join(realDir, logName), nil)
	require.NoError(t, err)
	log.Path = logName
	rep, err := Run(context.Background(), log, Options{Model: filepath.Join(realDir, model), Target: "cpu", Version: "test"})
	require.NoError(t, err)
	rep.Model = model
	return rep
}

func TestExplainRealLogs(t *testing.T) {
	for _, c := range realCases {
		t.Run(c.log, func(t *testing.T) {
			rep := explainReal(t, c.log, c.model)
			if c.log == "explicit_device_group.log" {
				// TensorFlow names a node whose op has an XLA_CPU kernel;
				// the group's op without one is the cause.
				assert.Contains(t, rep.Explanations[0].Cause, "with ResourceApplyAdamWithAmsgrad, which the log's colocation block lists with no XLA_CPU kernel")
			}
			var kinds, nodes []string
			var agrees []*bool
			for _, e := range rep.Explanations {
				kinds = append(kinds, e.MessageKind)
				require.NotNil(t, e.Found, e.Message)
				assert.True(t, *e.Found, "%s: every node the log names is in the model", e.Message)
				nodes = append(nodes, e.Node)
				agrees = append(agrees, e.Agrees)
			}
			assert.Equal(t, c.kinds, kinds)
			if c.nodes != nil {
				assert.Equal(t, c.nodes, nodes)
				assert.Equal(t, c.agrees, agrees)
			}
			assert.Zero(t, rep.Summary.NotFound)
			assert.Zero(t, rep.Summary.PlacementNotFound)
			assert.Equal(t, c.placed, rep.Summary.PlacementLines)
			assert.Equal(t, c.placedAgree, rep.Summary.PlacementAgree)
			assert.Zero(t, rep.UnparsedLines, "every line about a node, op, kernel or device is read")

			var out bytes.Buffer
			require.NoError(t, jsonout.WriteExplainJSON(&out, rep))
			golden := filepath.Join("testdata", "real", strings.TrimSuffix(c.log, ".log")+".golden.json")
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(golden), 0o755))
				require.NoError(t, os.WriteFile(golden, out.Bytes(), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "go test ./cmd/tfscan/internal/explain -update")
			assert.Equal(t, string(want), out.String(), golden)
		})
	}
}

// The learned pack of each real log holds exactly the registered kernels
// the log's message lists, line for line, for the device types the
// process had.
func TestLearnRealLogs(t *testing.T) {
	for _, c := range []struct {
		log, devType string
		ops          []string
		// complete are the device types the pack states complete.
		complete []string
	}{
		{"explicit_device.log", "XLA_CPU", []string{"MatrixDeterminant"}, []string{"CPU", "DEFAULT", "GPU", "XLA_CPU"}},
		{"explicit_device_group.log", "XLA_CPU", []string{"VarIsInitializedOp"}, []string{"CPU", "DEFAULT", "XLA_CPU", "XLA_CPU_JIT", "XLA_GPU", "XLA_GPU_JIT"}},
		{"eager_device.log", "CPU", nil, nil},
		{"no_opkernel.log", "CPU", []string{"MatMul"}, []string{"CPU", "DEFAULT", "GPU", "XLA_CPU_JIT", "XLA_GPU_JIT"}},
		{"eager.log", "CPU", []string{"MatMul"}, []string{"CPU", "DEFAULT", "GPU", "XLA_CPU_JIT", "XLA_GPU_JIT"}},
		{"placement.log", "CPU", nil, nil},
		{"device_not_available.log", "CPU", nil, nil},
		{"op_not_registered.log", "CPU", nil, nil},
		{"soft_placement_resources.log", "XLA_CPU", nil, nil},
	} {
		t.Run(c.log, func(t *testing.T) {
			log, err := ReadLog(filepath.Join(realDir, c.log), nil)
			require.NoError(t, err)
			log.Path = c.log
			p, skipped := LearnPack(log, "", "")
			assert.Empty(t, skipped)
			assert.Equal(t, c.devType, p.DeviceType)
			var ops []string
			for _, co := range p.Complete {
				ops = append(ops, co.Op)
				assert.Equal(t, c.complete, co.DeviceTypes, co.Op)
			}
			assert.Equal(t, c.ops, ops)
			assert.Equal(t, kernelLines(t, filepath.Join(realDir, c.log)), packLines(p.Kernels))

			var out bytes.Buffer
			require.NoError(t, coverage.WritePack(&out, p))
			golden := filepath.Join("testdata", "real", strings.TrimSuffix(c.log, ".log")+".learned.json")
			if len(ops) == 0 {
				return
			}
			if *update {
				require.NoError(t, os.WriteFile(golden, out.Bytes(), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "go test ./cmd/tfscan/internal/explain -update")
			assert.Equal(t, string(want), out.String(), golden)
		})
	}
}

// kernelLines reads the log's raw text, not tflog: the "device='...'" lines
// after the first "Registered kernels:" or "All kernels registered for op"
// line, sorted.
func kernelLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []string
	in, done := false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() && !done {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "Registered kernels:" || strings.HasPrefix(line, "All kernels registered for op "):
			in = true
		case in && strings.HasPrefix(line, "device='"):
			out = append(out, line)
		case in:
			done = true
		}
	}
	require.NoError(t, sc.Err())
	slices.Sort(out)
	return out
}

// packLines prints a pack's kernels as KernelsRegisteredForOp does, sorted.
func packLines(ks []*kdpb.KernelDef) []string {
	var out []string
	for _, k := range ks {
		out = append(out, placement.KernelLine(k))
	}
	slices.Sort(out)
	return out
}
