package shape

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/savedmodel"
)

// constTensor decodes integer values from tensor_content, which a lazy
// load keeps in memory only up to savedmodel.KeptIntContent bytes: every
// content it decodes must fit, or shape inference would see none.
func TestValuesKeptInMemory(t *testing.T) {
	require.LessOrEqual(t, int64(8*maxValue), int64(savedmodel.KeptIntContent))
}
