package reports

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNeedsAttention(t *testing.T) {
	npu, cpu := "/device:NPU:0", "/device:CPU:0"
	placed := func(soft bool) *Target {
		return &Target{Target: "ascend", Registry: RegistryInfo{DeviceType: "NPU"}, Placement: &Placement{SoftPlacement: soft}}
	}
	unplaced := &Target{Target: "musa", Registry: RegistryInfo{DeviceType: "MUSA"}}
	flagged := map[string]bool{"flagged": true}
	for _, tc := range []struct {
		name string
		t    *Target
		n    NodeResult
		want bool
	}{
		{"covered on the device", placed(true), NodeResult{Path: "a", Reason: ReasonCovered, Device: npu}, false},
		{"default kernel on the device", placed(true), NodeResult{Path: "a", Reason: ReasonCoveredDefault, Device: npu}, false},
		{"no kernel", placed(true), NodeResult{Path: "a", Reason: ReasonNoKernel, Device: cpu}, true},
		{"unknown op, no placement", unplaced, NodeResult{Path: "a", Reason: ReasonUnknownOp}, true},
		{"covered, no placement", unplaced, NodeResult{Path: "a", Reason: ReasonCovered}, false},
		{"lower precision", placed(true), NodeResult{Path: "a", Reason: ReasonCoveredLowerPrecision, Device: npu}, true},
		{"covered but placed on CPU by its colocation group", placed(true), NodeResult{Path: "a", Reason: ReasonCovered, Device: cpu}, true},
		{"changed against the source", placed(true), NodeResult{Path: "a", Reason: ReasonCovered, Device: npu, Change: ChangeBetterOnTarget}, true},
		{"named by a finding", placed(true), NodeResult{Path: "flagged", Reason: ReasonCovered, Device: npu}, true},
		{"pinned to GPU, soft placement moves it", placed(true), NodeResult{Path: "a", Reason: ReasonCovered, Device: npu, RequestedDevice: "/device:GPU:0"}, false},
		{"pinned to GPU, soft placement off", placed(false), NodeResult{Path: "a", Reason: ReasonCovered, Device: npu, RequestedDevice: "/device:GPU:0"}, true},
		{"pinned to its own device, soft placement off", placed(false), NodeResult{Path: "a", Reason: ReasonCovered, Device: npu, RequestedDevice: "/job:localhost/replica:0/task:0/device:NPU:0"}, false},
		{"pinned to CPU", placed(true), NodeResult{Path: "a", Reason: ReasonCovered, Device: cpu, RequestedDevice: "/cpu:0"}, true},
		{"on a CPU target", &Target{Target: "cpu", Registry: RegistryInfo{DeviceType: "CPU"}, Placement: &Placement{SoftPlacement: true}},
			NodeResult{Path: "a", Reason: ReasonCovered, Device: cpu}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, tc.t.NeedsAttention(&tc.n, flagged))
		})
	}
}

func TestDeviceType(t *testing.T) {
	for dev, want := range map[string]string{
		"":              "",
		"/device:GPU:0": "GPU",
		"/job:localhost/replica:0/task:0/device:XPU:1": "XPU",
		"/gpu:0":                               "gpu",
		"CPU:0":                                "CPU",
		"CPU":                                  "CPU",
		"/job:w/replica:0/task:0/DEVICE:gpu:0": "gpu",
		"/Device:XPU:0":                        "XPU",
	} {
		require.Equal(t, want, deviceType(dev), dev)
	}
}

// TestCompareFusionsIsJoinedOrder: fusions compare as their node paths
// joined by NUL would, prefixes and all.
func TestCompareFusionsIsJoinedOrder(t *testing.T) {
	paths := []string{"a", "a/b", "ab", "a/b/c", "b", "a#2"} // paths are never empty
	var lists [][]string
	for _, x := range paths {
		lists = append(lists, []string{x})
		for _, y := range paths {
			lists = append(lists, []string{x, y})
		}
	}
	lists = append(lists, nil)
	for _, a := range lists {
		for _, b := range lists {
			want := strings.Compare(strings.Join(a, "\x00"), strings.Join(b, "\x00"))
			got := compareFusions(Fusion{Fused: "F", Nodes: a}, Fusion{Fused: "F", Nodes: b})
			require.Equal(t, want, got, "%q vs %q", a, b)
		}
	}
}

// TestGroupFusionsIsSortThenKeepFirst: groupFusions gives what sorting
// every chain stably by compareFusions and keeping the first of each fused
// op and reason, with the chains of the others counted, gives, on chains
// that tie (same op and nodes, other reasons), repeat and carry counts.
func TestGroupFusionsIsSortThenKeepFirst(t *testing.T) {
	want := func(fs []Fusion) []Fusion {
		sorted := slices.Clone(fs)
		slices.SortStableFunc(sorted, compareFusions)
		type key struct{ fused, reason string }
		at := map[key]int{}
		var out []Fusion
		for _, f := range sorted {
			k := key{f.Fused, f.Reason}
			if i, ok := at[k]; ok {
				out[i].Count = out[i].Chains() + f.Chains()
				continue
			}
			at[k] = len(out)
			out = append(out, f)
		}
		return out
	}
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	for round := 0; round < 200; round++ {
		var fs []Fusion
		for i := rng.IntN(40); i >= 0; i-- {
			f := Fusion{Fused: pick("_FusedConv2D", "_FusedMatMul"), Reason: pick("a", "b", "c"),
				Nodes: []string{pick("b1/conv", "b2/conv", "b3/conv"), pick("b1/bias", "b2/bias")}}
			if rng.IntN(4) == 0 {
				f.Count = rng.IntN(5)
			}
			fs = append(fs, f)
		}
		in := slices.Clone(fs)
		got := groupFusions(fs)
		require.Equal(t, in, fs, "round %d: the input is left as it was", round)
		w := want(in)
		if len(in) < 2 {
			w = in
		}
		require.Equal(t, w, got, "round %d", round)
	}
}
