package sarif

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/reports/reportstest"
)

func TestSARIFResults(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, WriteSARIF(&b, reportstest.Fixture()))
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct{ ID string }
				}
			}
			Results []struct {
				RuleID              string
				RuleIndex           int
				PartialFingerprints map[string]string
				Locations           []struct {
					PhysicalLocation struct{ ArtifactLocation struct{ URI string } }
					LogicalLocations []struct{ FullyQualifiedName string }
				}
			}
		}
	}
	require.NoError(t, json.Unmarshal(b.Bytes(), &log))
	run := log.Runs[0]
	ids := map[string]bool{}
	for _, r := range run.Tool.Driver.Rules {
		require.False(t, ids[r.ID], "duplicate rule %s", r.ID)
		ids[r.ID] = true
	}
	fps := map[string]bool{}
	count := map[string]int{}
	for _, res := range run.Results {
		require.Equal(t, res.RuleID, run.Tool.Driver.Rules[res.RuleIndex].ID)
		fp := res.PartialFingerprints[sarifFingerprintKey]
		require.Len(t, fp, 32)
		require.False(t, fps[fp], "fingerprints must be unique")
		fps[fp] = true
		count[res.RuleID]++
		require.Equal(t, "models/resnet/saved_model.pb", res.Locations[0].PhysicalLocation.ArtifactLocation.URI)
		require.NotEmpty(t, res.Locations[0].LogicalLocations[0].FullyQualifiedName)
	}
	// resnet: ascend 3 uncovered, musa 3, cpu 1, plus one unsafe_op finding.
	require.Equal(t, map[string]int{"TFS001": 2, "TFS002": 1, "TFS003": 1, "TFS004": 3, "TFS100": 1}, count)
	require.Equal(t, "TFS001", reports.RuleFor(reports.ReasonNoKernel).ID)
	require.Equal(t, "TFS999", reports.RuleFor("brand_new_reason").ID)
}

func TestSARIFCapsResults(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, WriteSARIF(&b, reportstest.Big(SARIFMaxResults+1000)))
	var log map[string]any
	require.NoError(t, json.Unmarshal(b.Bytes(), &log))
	run := log["runs"].([]any)[0].(map[string]any)
	require.Len(t, run["results"], SARIFMaxResults)
	require.Contains(t, b.String(), "only the first 5000 are included")
}
