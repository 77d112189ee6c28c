package placement_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/coverage/placement"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/savedmodel"
)

// The corpus's frozen LSTM (no signatures) runs its five layers on the
// target; each layer's "out" Identity and the last layer's dangling add are
// its outputs (summarize_graph's rule), each [128,1024] float32 (the
// inputs' random_uniform shape), so fetching them copies 6 × 512 KiB back
// to the host. The graph has no Placeholder: that is all of its I/O.
func TestFetchesCorpusLSTM(t *testing.T) {
	m, err := savedmodel.Load(filepath.Join(corpusDir(t), "tf/gd_lstm_layer_inference/lstm_layer_inference.pbtxt"))
	require.NoError(t, err)
	g, err := graph.Build(m, m.MetaGraphs[0])
	require.NoError(t, err)
	r, err := placement.Simulate(g, handMadeTarget(), everything{"CPU"}, placement.Options{})
	require.NoError(t, err)
	const out = 128 * 1024 * 4
	var fetched []string
	for _, x := range r.TransferList {
		if x.IO {
			assert.Equal(t, "d2h", x.Kind, x.Src)
			assert.Equal(t, int64(out), x.Bytes, x.Src)
			fetched = append(fetched, x.Src)
		}
	}
	assert.ElementsMatch(t, []string{"lstm_0/out:0", "lstm_1/out:0", "lstm_2/out:0", "lstm_3/out:0", "lstm_4/add_1:0", "lstm_4/out:0"}, fetched)
	assert.Equal(t, 6, r.IOTransfers)
	assert.Equal(t, int64(6*out), r.IOBytes)

	// --fetch lstm_4/out alone
	last, err := g.ResolveFetch("lstm_4/out")
	require.NoError(t, err)
	r, err = placement.Simulate(g, handMadeTarget(), everything{"CPU"}, placement.Options{Fetches: []graph.Tensor{last}})
	require.NoError(t, err)
	assert.Equal(t, 1, r.IOTransfers)
	assert.Equal(t, int64(out), r.IOBytes)
}
