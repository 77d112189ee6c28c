package reports_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/reports/jsonout"
	"github.com/tfscan/tfscan/reports/reportstest"
	"github.com/tfscan/tfscan/reports/table"
)

// With --nodes attention a target's lost fusions are one chain per fused
// op and reason with their count: the table says the same as with every
// chain listed, the JSON validates, and grouping again changes nothing.
func TestAttentionGroupsFusions(t *testing.T) {
	chain := func(block string) []string {
		return []string{block + "/Conv2D", block + "/BiasAdd", block + "/Relu"}
	}
	fusions := func() []reports.Fusion {
		return []reports.Fusion{
			{Fused: "_FusedConv2D", Nodes: chain("b3"), Reason: "no kernel"},
			{Fused: "_FusedBatchNormEx", Nodes: []string{"bn/FusedBatchNormV3", "bn/Relu"}, Reason: "no kernel"},
			{Fused: "_FusedConv2D", Nodes: chain("b1"), Reason: "no kernel"},
			{Fused: "_FusedConv2D", Nodes: chain("b9"), Reason: "pinned"},
			{Fused: "_FusedConv2D", Nodes: chain("b2"), Reason: "no kernel"},
		}
	}
	all, att := reportstest.Fixture(), reportstest.Fixture()
	all.Models[0].Targets[0].Fusions = fusions()
	tg := att.Models[0].Targets[0]
	tg.Fusions = fusions()
	tg.KeepAttention(nil)
	require.Equal(t, []reports.Fusion{
		{Fused: "_FusedBatchNormEx", Nodes: []string{"bn/FusedBatchNormV3", "bn/Relu"}, Reason: "no kernel"},
		{Fused: "_FusedConv2D", Nodes: chain("b1"), Reason: "no kernel", Count: 3},
		{Fused: "_FusedConv2D", Nodes: chain("b9"), Reason: "pinned"},
	}, tg.Fusions)
	require.Equal(t, tg.Fusions, reports.GroupFusions(slices.Clone(tg.Fusions)), "grouping is idempotent")

	var a, b bytes.Buffer
	require.NoError(t, table.WriteTable(&a, all))
	require.NoError(t, table.WriteTable(&b, att))
	require.Contains(t, a.String(), "4 _FusedConv2D fusion(s) of the source lost")
	require.Equal(t, a.String(), b.String())

	var j bytes.Buffer
	require.NoError(t, jsonout.WriteJSON(&j, att))
	require.Contains(t, j.String(), `"count": 3`)
	require.NoError(t, reportstest.Validate(t, reportstest.CompileSchema(t, "report.schema.json", reports.Schema()), j.Bytes()))
}
