package reports

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// bigReport has one model with n nodes, most of them uncovered, each in its
// own uncovered group: the worst case for every writer's size.
func bigReport(n int) *Report {
	t := &Target{Target: "npu", Registry: RegistryInfo{Name: "npu", Source: "test", Method: "documentation"}}
	for i := range n {
		op := fmt.Sprintf("Op%06d", i)
		reason := ReasonNoKernel
		if i%10 == 0 {
			reason = ReasonCovered
		}
		path := fmt.Sprintf("model/layer_%d/%s", i/100, op)
		t.Nodes = append(t.Nodes, NodeResult{Path: path, Op: op, DTypes: []string{"DT_FLOAT"}, Reason: reason, Reachable: true, Device: "/device:NPU:0"})
		if !IsCovered(reason) {
			t.Uncovered = append(t.Uncovered, Uncovered{Op: op, DTypes: []string{"DT_FLOAT"}, Reason: reason, Count: 1, Nodes: []string{path}})
		}
		t.Coverage.NodesTotal++
	}
	return &Report{SchemaVersion: SchemaVersion, Tool: Tool{Name: "tfscan", Version: "test"},
		Models: []*Model{{Path: "big", File: "big/saved_model.pb", Format: "saved_model", Targets: []*Target{t}}}}
}

func TestMarkdownStaysUnderLimit(t *testing.T) {
	r := bigReport(200)
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
	require.NoError(t, WriteMarkdown(&small, fixture()))
	require.NotContains(t, small.String(), "Truncated")
}

func TestMarkdownEscapesTableCells(t *testing.T) {
	r := fixture()
	r.Gate.Failures[0].Message = "a | b <img src=x>"
	var b bytes.Buffer
	require.NoError(t, WriteMarkdown(&b, r))
	require.Contains(t, b.String(), `a \| b &lt;img src=x&gt;`)
}

func TestHTMLIsSelfContainedAndEscaped(t *testing.T) {
	r := fixture()
	evil := `</script><script>alert(1)</script>`
	r.Models[1].Targets[0].Nodes[0].Path = evil
	r.Models[1].Targets[0].Uncovered[0].Nodes = []string{evil}
	var b bytes.Buffer
	require.NoError(t, WriteHTML(&b, r))
	out := b.String()
	require.False(t, strings.Contains(out, evil), "unescaped script in the page")
	require.Equal(t, 2, strings.Count(out, "<script"), "only the data element and the inline script")
	// No external resources: no src/href to another address (only in-page anchors).
	for _, m := range regexp.MustCompile(`(?i)(src|href)\s*=\s*"([^"]*)"`).FindAllStringSubmatch(out, -1) {
		require.True(t, strings.HasPrefix(m[2], "#"), "external reference %q", m[0])
	}
	require.NotRegexp(t, `(?i)https?://`, stripDataAndText(out))
	// The embedded JSON parses back.
	start := strings.Index(out, `id="tfscan-nodes">`) + len(`id="tfscan-nodes">`)
	end := strings.Index(out[start:], "</script>")
	var data nodeTables
	require.NoError(t, json.Unmarshal([]byte(out[start:start+end]), &data))
	require.Len(t, data.Models, 2)
	require.Equal(t, evil, data.Models[0].Rows[0][0])
}

// stripDataAndText removes the places where an address may legitimately
// appear as text (registry sources, the CSP meta tag's none).
func stripDataAndText(s string) string {
	s = regexp.MustCompile(`(?s)<script type="application/json".*?</script>`).ReplaceAllString(s, "")
	return regexp.MustCompile(`(?s)<code>.*?</code>`).ReplaceAllString(s, "")
}

// A 100,000-node model must render quickly and keep the DOM small: the node
// rows live in the JSON data, not in the page.
func TestHTMLLargeModel(t *testing.T) {
	if testing.Short() {
		t.Skip("large report")
	}
	r := bigReport(100_000)
	var b bytes.Buffer
	require.NoError(t, WriteHTML(&b, r))
	out := b.String()
	require.Less(t, b.Len(), 40<<20)
	tables := regexp.MustCompile(`(?s)<table class="data" id="node-table">.*?</table>`).FindString(out)
	require.False(t, strings.Contains(tables, "<td>"), "node rows are drawn by the script, page by page")
}

func TestSARIFResults(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, WriteSARIF(&b, fixture()))
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
	require.Equal(t, "TFS001", RuleFor(ReasonNoKernel).ID)
	require.Equal(t, "TFS999", RuleFor("brand_new_reason").ID)
}

func TestSARIFCapsResults(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, WriteSARIF(&b, bigReport(SARIFMaxResults+1000)))
	var log map[string]any
	require.NoError(t, json.Unmarshal(b.Bytes(), &log))
	run := log["runs"].([]any)[0].(map[string]any)
	require.Len(t, run["results"], SARIFMaxResults)
	require.Contains(t, b.String(), "only the first 5000 are included")
}

func TestJUnitWellFormed(t *testing.T) {
	r := fixture()
	r.Gate.Failures = append(r.Gate.Failures, GateFailure{Rule: "baseline", Message: "baseline file has no model \"x\" & <y>"})
	var b bytes.Buffer
	require.NoError(t, WriteJUnit(&b, r))
	var suites junitSuites
	require.NoError(t, xml.Unmarshal(b.Bytes(), &suites))
	require.Equal(t, 7, suites.Tests)
	require.Equal(t, 3, suites.Failures)
	require.Equal(t, "gate", suites.Suites[len(suites.Suites)-1].Name)
}

func TestFormatBytes(t *testing.T) {
	for in, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 3 << 20: "3.0 MiB", 5 << 30: "5.0 GiB"} {
		require.Equal(t, want, formatBytes(in))
	}
}

// TestWriteHTMLExamples writes the fixture report, a 100,000-node report and
// a report with models that could not be scanned to $TFSCAN_HTML_OUT for tools/html_check (make html-check); it does
// nothing otherwise.
func TestWriteHTMLExamples(t *testing.T) {
	dir := os.Getenv("TFSCAN_HTML_OUT")
	if dir == "" {
		t.Skip("TFSCAN_HTML_OUT not set")
	}
	for name, r := range map[string]*Report{"fixture.html": fixture(), "attention.html": attentionFixture(), "big.html": bigReport(100_000), "errors.html": errorsFixture()} {
		var b bytes.Buffer
		require.NoError(t, WriteHTML(&b, r))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644))
	}
}
