package scan

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/internal/testutil"
	"github.com/tfscan/tfscan/reports"
)

// convnet is the generated conv net (savedmodel/modelgen): float32 Conv2D
// + BiasAdd + Relu, MaxPool, Reshape, MatMul + BiasAdd, Softmax.
func convnet() string {
	return filepath.Join(testutil.RepoRoot(), "testdata", "models", "convnet_frozen.pb")
}

func scanConvnet(t *testing.T, target string, s coverage.StackSettings) *reports.Target {
	t.Helper()
	rep, err := Run(context.Background(), Options{Paths: []string{convnet()}, Targets: []string{target}, Stack: s, AllNodes: true})
	require.NoError(t, err)
	return rep.Models[0].Targets[0]
}

func reasons(rt *reports.Target) map[string]string {
	out := map[string]string{}
	for _, n := range rt.Nodes {
		r := n.Reason
		if n.LoweredTo != "" {
			r += ":" + n.LoweredTo
		}
		out[n.Path] = r
	}
	return out
}

// Every precision mode the Ascend adapter lists, on the conv net, against
// the built-in ascend pack: what CANN's documented rules make of each
// float32 node (docs/precision.md). Conv2D and MatMul are matrix (Cube)
// ops with run-time dtypes; MaxPool has a float16-only kernel on ascend910;
// Relu has float32 and float16 kernels.
func TestAscendPrecisionModes(t *testing.T) {
	const low, lowBF, cov = "covered_lower_precision:float16", "covered_lower_precision:bfloat16", "covered"
	cases := []struct {
		mode string
		want map[string]string
	}{
		{"", map[string]string{"conv1/Conv2D": low, "fc/MatMul": low, "pool1/MaxPool": low, "conv1/Relu": cov}},
		{"allow_fp32_to_fp16", map[string]string{"conv1/Conv2D": low, "fc/MatMul": low, "pool1/MaxPool": low, "conv1/Relu": cov}},
		{"force_fp16", map[string]string{"conv1/Conv2D": low, "fc/MatMul": low, "pool1/MaxPool": low, "conv1/Relu": low}},
		{"force_fp32", map[string]string{"conv1/Conv2D": low, "fc/MatMul": low, "pool1/MaxPool": low, "conv1/Relu": cov}},
		{"cube_fp16in_fp32out", map[string]string{"conv1/Conv2D": low, "pool1/MaxPool": low, "conv1/Relu": cov}},
		{"must_keep_origin_dtype", map[string]string{"conv1/Conv2D": cov, "fc/MatMul": cov, "pool1/MaxPool": "precision_mode_error", "conv1/Relu": cov}},
		{"allow_mix_precision", map[string]string{"conv1/Conv2D": low, "fc/MatMul": low, "pool1/MaxPool": low, "conv1/Relu": cov}},
		{"allow_mix_precision_fp16", map[string]string{"conv1/Conv2D": low, "pool1/MaxPool": low, "conv1/Relu": cov}},
		{"allow_mix_precision_bf16", map[string]string{"conv1/Conv2D": lowBF, "pool1/MaxPool": "no_kernel_for_dtype", "conv1/Relu": cov}},
		{"allow_fp32_to_bf16", map[string]string{"conv1/Conv2D": lowBF, "fc/MatMul": lowBF, "pool1/MaxPool": "no_kernel_for_dtype", "conv1/Relu": cov}},
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			rt := scanConvnet(t, "ascend", coverage.StackSettings{PrecisionMode: c.mode})
			got := reasons(rt)
			for path, want := range c.want {
				assert.Equal(t, want, got[path], path)
			}
			require.NotNil(t, rt.Stack)
			if c.mode == "" {
				assert.Equal(t, "allow_fp32_to_fp16", rt.Stack.PrecisionMode)
				assert.Contains(t, rt.Stack.Assumed, "documented default on soc=ascend910")
			} else {
				assert.Equal(t, c.mode, rt.Stack.PrecisionMode)
			}
			// covered_lower_precision counts as covered and is listed apart
			// with a warning finding; precision_mode_error is an error.
			lowered := 0
			for _, l := range rt.LowerPrecision {
				lowered += l.Count
			}
			assert.Equal(t, rt.Coverage.LowerPrecisionNodes, lowered)
			assert.Equal(t, rt.Coverage.ByReason["covered_lower_precision"], lowered)
			for _, f := range rt.Findings {
				switch f.Kind {
				case reports.ReasonCoveredLowerPrecision:
					assert.Equal(t, "warning", f.Severity)
				case reports.ReasonPrecisionModeError:
					assert.Equal(t, "error", f.Severity)
					assert.True(t, strings.HasPrefix(f.Message, "Graph engine process graph failed: (ascend/tf_adapter_2.x/npu_device/core/npu_device.cpp:"), f.Message)
				}
			}
			if c.mode == "must_keep_origin_dtype" {
				require.Len(t, rt.Findings, 1, "one error per rejected node, nothing lowered")
				require.NotNil(t, rt.Placement)
				assert.Empty(t, rt.Placement.Error, "a compile error, not a placement error")
				assert.Equal(t, 0, rt.Placement.DeviceNodes["CPU:0"], "a rejected node is not a CPU fallback")
			}
			if c.mode == "" {
				assert.Zero(t, rt.FallbackNodes(), "float16-only ops run on the NPU, not on CPU")
			}
		})
	}
}

// The chip picks CANN's default mode; options of the TF1 adapter select it.
func TestAscendStackOptions(t *testing.T) {
	rt := scanConvnet(t, "ascend", coverage.StackSettings{Options: map[string]string{"soc": "ascend910b"}})
	assert.Equal(t, "must_keep_origin_dtype", rt.Stack.PrecisionMode)
	assert.Equal(t, "precision_mode_error", reasons(rt)["pool1/MaxPool"])

	rt = scanConvnet(t, "ascend", coverage.StackSettings{Options: map[string]string{"mix_compile_mode": "true"}})
	assert.Equal(t, "tf1", rt.Stack.Options["adapter"])
	assert.Equal(t, "mixed", rt.Stack.HostPartitions)
	rt = scanConvnet(t, "ascend", coverage.StackSettings{Options: map[string]string{"adapter": "tf1"}})
	assert.Equal(t, "one_cluster", rt.Stack.HostPartitions)
	assert.Contains(t, rt.Stack.HostPartitionsSource, "om_partition_subgraphs_pass.cc:")

	for _, bad := range []coverage.StackSettings{
		{PrecisionMode: "fastest"},
		{Options: map[string]string{"soc": "ascend999"}},
		{Options: map[string]string{"adapter": "tf2", "mix_compile_mode": "true"}},
	} {
		_, err := Run(context.Background(), Options{Paths: []string{convnet()}, Targets: []string{"ascend"}, Stack: bad})
		var ue *UsageError
		assert.True(t, errors.As(err, &ue), "%+v: %v", bad, err)
	}
	// A setting no target's pack declares is a usage error.
	_, err := Run(context.Background(), Options{Paths: []string{convnet()}, Targets: []string{"cuda"}, Stack: coverage.StackSettings{PrecisionMode: "force_fp16"}})
	var ue *UsageError
	require.True(t, errors.As(err, &ue), "%v", err)
	assert.Contains(t, err.Error(), "no target's pack declares precision modes (built-in packs that do: ascend)")
}

// ITEX's remapper fuses Conv2D+BiasAdd+Relu into _ITEXFusedConv2D, which
// XPU has: the fusion is not lost there. MUSA has no fused kernel and its
// optimizer is not modelled: the fusion is lost, as before.
func TestVendorFusions(t *testing.T) {
	rt := scanConvnet(t, "intel-xpu", coverage.StackSettings{})
	assert.Empty(t, rt.Fusions)
	assert.Nil(t, rt.Stack, "intel-xpu declares an optimizer, no settings")

	rt = scanConvnet(t, "musa", coverage.StackSettings{})
	require.Len(t, rt.Fusions, 1)
	assert.Equal(t, []string{"conv1/Conv2D", "conv1/BiasAdd", "conv1/Relu"}, rt.Fusions[0].Nodes)
	assert.Contains(t, rt.Fusions[0].Reason, "MUSA graph optimizer (fusion patterns) is not modelled")
}
