package extract

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/internal/lazyre"
)

// Every pattern compiles: they compile on first use (lazyre), so that a
// command that extracts no registry does not pay for them.
func TestPatternsCompile(t *testing.T) {
	require.NoError(t, lazyre.CompileAll())
}
