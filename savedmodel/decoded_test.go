package savedmodel

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDecodedNodesCountsWhatTheDecodeRead checks the counts the decode
// keeps, whole or streamed, against a walk of the decoded graph
// (MetaGraph.NodeDefs), and that a model the decode did not count says
// so.
func TestDecodedNodesCountsWhatTheDecodeRead(t *testing.T) {
	type tc struct {
		path    string
		counted bool
		// streamed loads the file as a large one is, while it is read
		// (loadStream), else whole (decodeBinary).
		streamed bool
	}
	var cases []tc
	for _, streamed := range []bool{false, true} {
		cases = append(cases,
			tc{modelsDir("convnet_frozen.pb"), true, streamed},
			tc{modelsDir("keras_saved_model"), true, streamed},
			tc{modelsDir("tf2_while_saved_model"), true, streamed},
			tc{modelsDir("resource_vars.pbtxt"), false, streamed})
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s/streamed=%v", filepath.Base(tc.path), tc.streamed), func(t *testing.T) {
			if tc.streamed {
				lazyThresholds(t, lazyMin, keptInt, 0)
			}
			m, err := Load(tc.path)
			require.NoError(t, err)
			nodes, inputs, ok := m.DecodedNodes()
			require.Equal(t, tc.counted, ok)
			if !ok {
				return
			}
			wn, wi := m.MetaGraphs[0].NodeDefs()
			require.Positive(t, wn)
			assert.Equal(t, wn, nodes, "nodes")
			assert.Equal(t, wi, inputs, "inputs")
		})
	}
}
