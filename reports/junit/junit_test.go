package junit

import (
	"bytes"
	"encoding/xml"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/reports/reportstest"
)

func TestJUnitWellFormed(t *testing.T) {
	r := reportstest.Fixture()
	r.Gate.Failures = append(r.Gate.Failures, reports.GateFailure{Rule: "baseline", Message: "baseline file has no model \"x\" & <y>"})
	var b bytes.Buffer
	require.NoError(t, WriteJUnit(&b, r))
	var suites junitSuites
	require.NoError(t, xml.Unmarshal(b.Bytes(), &suites))
	require.Equal(t, 7, suites.Tests)
	require.Equal(t, 3, suites.Failures)
	require.Equal(t, "gate", suites.Suites[len(suites.Suites)-1].Name)
}
