package markdown

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/reports/reportstest"
)

func TestMarkdownStaysUnderLimit(t *testing.T) {
	r := reportstest.Big(200)
	for i := range 40 {
		m := *r.Models[0]
		m.Path = fmt.Sprintf("models/very/long/path/to/model_number_%04d", i)
		r.Models = append(r.Models, &m)
	}
	for _, limit := range []int{8 << 10, 20 << 10} {
		var b bytes.Buffer
		require.NoError(t, writeMarkdown(&b, r, limit))
		require.LessOrEqual(t, b.Len(), limit)
		require.True(t, strings.Contains(b.String(), "**Truncated**"))
		require.Equal(t, strings.Count(b.String(), "<details>"), strings.Count(b.String(), "</details>"))
	}

	var small bytes.Buffer
	require.NoError(t, WriteMarkdown(&small, reportstest.Fixture()))
	require.NotContains(t, small.String(), "Truncated")
}

func TestMarkdownEscapesTableCells(t *testing.T) {
	r := reportstest.Fixture()
	r.Gate.Failures[0].Message = "a | b <img src=x>"
	var b bytes.Buffer
	require.NoError(t, WriteMarkdown(&b, r))
	require.Contains(t, b.String(), `a \| b &lt;img src=x&gt;`)
}
