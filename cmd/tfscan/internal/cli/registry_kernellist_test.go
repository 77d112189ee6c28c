package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/tfscan/tfscan/coverage"
)

// TestRegistryShowKernelList reads both KernelList exports of a pack back as
// the dump they are and finds the pack's own kernels, unchanged and in order.
func TestRegistryShowKernelList(t *testing.T) {
	wd := fixtures(t)
	want, err := coverage.BuiltinPack("musa")
	require.NoError(t, err)
	list, err := coverage.KernelList(want)
	require.NoError(t, err)
	for _, format := range []string{"kernellist", "kernellist-pb"} {
		code, out, errs := runRegistryCLI(t, wd, "show", "musa", "--format", format)
		require.Equal(t, ExitOK, code, errs)
		path := filepath.Join(wd, "export."+format)
		require.NoError(t, os.WriteFile(path, []byte(out), 0o644))
		packs, err := coverage.LoadRegistryFile(path)
		require.NoError(t, err, format)
		require.Len(t, packs, 1, format)
		assert.Equal(t, "MUSA", packs[0].DeviceType)
		require.Len(t, packs[0].Kernels, len(list.Kernel), format)
		for i, k := range list.Kernel {
			require.True(t, proto.Equal(k, packs[0].Kernels[i]), "%s kernel %d: %v != %v", format, i, k, packs[0].Kernels[i])
		}
	}
	code, again, _ := runRegistryCLI(t, wd, "show", "musa", "--format", "kernellist-pb")
	require.Equal(t, ExitOK, code)
	_, first, _ := runRegistryCLI(t, wd, "show", "musa", "--format", "kernellist-pb")
	assert.Equal(t, first, again, "the binary export is deterministic")

	require.NoError(t, os.WriteFile(filepath.Join(wd, "empty.pbtxt"), nil, 0o644))
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"show", "empty.pbtxt", "--format", "kernellist-pb"}, ExitInput, "empty.pbtxt: empty file"},
		{[]string{"show", "nosuchpack", "--format", "kernellist"}, ExitUsage, `no built-in pack "nosuchpack"`},
		{[]string{"show", "musa", "--op", "NoSuchOp", "--format", "kernellist"}, ExitUsage, `no kernel for op "NoSuchOp"`},
	}
	for _, tc := range tests {
		code, _, errs := runRegistryCLI(t, wd, tc.args...)
		assert.Equal(t, tc.code, code, tc.args)
		assert.Contains(t, errs, tc.want, tc.args)
	}
}
