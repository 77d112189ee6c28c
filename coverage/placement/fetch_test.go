package placement

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/graph"
)

// A frozen GraphDef has no signature to say what is fetched: the simulator
// fetches the outputs summarize_graph would take (graph.PossibleOutputs),
// so the device→host copy of the result is in the I/O figures.
// x [2,8] float → MatMul with w [8,4] on the GPU → y [2,4] → Relu r (the
// output) and a spare Tanh t of y, also unconsumed, and on CPU (the GPU has
// no Tanh here), so fetching it copies nothing.
func TestFetchesWithoutSignature(t *testing.T) {
	g := buildGraph(t, graphText(
		placeholder("x", "DT_FLOAT", 2, 8),
		constNode("w", "DT_FLOAT", []int64{8, 4}),
		nd("y", "MatMul", in("x", "w"), ta("T", "DT_FLOAT")),
		nd("r", "Relu", in("y"), ta("T", "DT_FLOAT")),
		nd("t", "Tanh", in("y"), ta("T", "DT_FLOAT")),
	))
	reg := cpuAll("MatMul", "Relu", "Tanh", "Const", "Placeholder") + `
MatMul GPU T=float32
Relu GPU T=float32
Const GPU
Placeholder DEFAULT
`
	const in, out = 2 * 8 * 4, 2 * 4 * 4 // bytes of x and of r
	r := simulate(t, g, "GPU", reg, Options{})
	assert.Equal(t, "GPU:0", devices(r)["r"])
	assert.Equal(t, "CPU:0", devices(r)["t"])
	assert.Equal(t, 2, r.IOTransfers, "x's feed and r's fetch")
	assert.Equal(t, int64(in+out), r.IOBytes)
	var fetch *Transfer
	for i, x := range r.TransferList {
		if x.IO && x.Kind == "d2h" {
			fetch = &r.TransferList[i]
		}
	}
	require.NotNil(t, fetch)
	assert.Equal(t, Transfer{From: "GPU:0", To: "CPU:0", Src: "r:0", Dst: "fetch r:0", Bytes: out, BytesKnown: true, Kind: "d2h", IO: true}, *fetch)

	// Options.Fetches overrides: y instead, which CPU:0 already receives
	// for t, so it is not sent again (docs/placement.md#feeds-and-fetches), ...
	y, err := g.ResolveFetch("y")
	require.NoError(t, err)
	r = simulate(t, g, "GPU", reg, Options{Fetches: []graph.Tensor{y}})
	assert.Equal(t, 1, r.IOTransfers)
	assert.Equal(t, int64(in), r.IOBytes)
	assert.Equal(t, 1, r.Transfers, "y to t")
	// ... or nothing at all: only the feed is left.
	r = simulate(t, g, "GPU", reg, Options{Fetches: []graph.Tensor{}})
	assert.Equal(t, 1, r.IOTransfers)
	assert.Equal(t, int64(in), r.IOBytes)
}

// Options.Fetches also replaces a signature's outputs; the signature's
// inputs stay the feeds.
func TestFetchesReplaceSignatureOutputs(t *testing.T) {
	g := buildGraph(t, graphText(
		placeholder("x", "DT_FLOAT", 2, 8),
		nd("a", "Relu", in("x"), ta("T", "DT_FLOAT")),
		nd("b", "Relu", in("a"), ta("T", "DT_FLOAT")),
	), "serving_default=x:0->b:0")
	reg := cpuAll("Relu", "Placeholder") + "Relu GPU T=float32\nPlaceholder DEFAULT\n"
	r := simulate(t, g, "GPU", reg, Options{})
	require.Equal(t, 2, r.IOTransfers)
	fetched := func(r *Result) []string {
		var out []string
		for _, x := range r.TransferList {
			if x.IO && x.Kind == "d2h" {
				out = append(out, x.Src)
			}
		}
		return out
	}
	assert.Equal(t, []string{"b:0"}, fetched(r))
	a, err := g.ResolveFetch("a:0")
	require.NoError(t, err)
	b, err := g.ResolveFetch("b")
	require.NoError(t, err)
	r = simulate(t, g, "GPU", reg, Options{Fetches: []graph.Tensor{a, b}})
	assert.Equal(t, []string{"a:0", "b:0"}, fetched(r))
	assert.Equal(t, 3, r.IOTransfers)
	assert.Equal(t, int64(3*2*8*4), r.IOBytes)
}
