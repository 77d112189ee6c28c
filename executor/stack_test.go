package executor

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/kernels"
)

// onFreshStack returns what fn returns, and raises fn's panic again on the
// caller's goroutine, where execSafe recovers it.
func TestOnFreshStack(t *testing.T) {
	want := errors.New("x")
	out, err := onFreshStack(func() ([]*kernels.Tensor, error) { return nil, want })
	assert.Nil(t, out)
	assert.Equal(t, want, err)
	defer func() {
		require.Equal(t, "inner", recover())
	}()
	_, _ = onFreshStack(func() ([]*kernels.Tensor, error) { panic("inner") })
	t.Fatal("no panic")
}
