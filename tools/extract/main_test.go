package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/coverage"
)

func TestRegistryExtract(t *testing.T) {
	if _, err := exec.LookPath("cpp"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("cpp is required in CI")
		}
		t.Skip("no cpp")
	}
	wd := t.TempDir()
	src := filepath.Join(wd, "src", "kernels")
	require.NoError(t, os.MkdirAll(src, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(src, "types.h"), []byte("#define TF_CALL_float(m) m(float)\n#define TF_CALL_half(m) m(Eigen::half)\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(src, "relu_op.cc"), []byte(`#include "types.h"
#define REG(T) REGISTER_KERNEL_BUILDER(Name("Relu").Device(DEVICE_GPU).TypeConstraint<T>("T"), ReluOp<T>);
TF_CALL_float(REG) TF_CALL_half(REG)
#if GOOGLE_CUDA
REGISTER_KERNEL_BUILDER(Name("CudaOnly").Device(DEVICE_GPU), X);
#endif
`), 0o644))
	code, errs := runExtract(t, wd, "--source", "src", "--name", "mini", "--vendor", "Test", "--device-type", "GPU",
		"--define", "GOOGLE_CUDA=1", "--source-ref", "example/mini@0123456789012345678901234567890123456789", "--date", "2024-02-03", "-o", "mini.json.gz")
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, errs, "3 kernels for 2 ops on GPU")
	// what `tfscan registry show mini.json.gz --op Relu` lists
	packs, err := coverage.LoadRegistryFile(filepath.Join(wd, "mini.json.gz"))
	require.NoError(t, err)
	require.Len(t, packs, 1)
	var relu []string
	for _, k := range packs[0].Kernels {
		if k.GetOp() == "Relu" {
			relu = append(relu, coverage.ConstraintString(k.GetConstraint()))
		}
	}
	assert.Contains(t, relu, "T in {float16}")
	assert.Equal(t, "2024-02-03", packs[0].Date)

	code, errs = runExtract(t, wd, "--source", "src", "--name", "mini")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "needs --source")
	code, errs = runExtract(t, wd, "--source", "nowhere", "--name", "m", "--vendor", "v", "--device-type", "GPU", "--source-ref", "r", "-o", "m.json")
	assert.Equal(t, exitInput, code)
	assert.Contains(t, errs, "not a directory")
	code, errs = runExtract(t, wd, "--style", "magic", "--source", "src", "--name", "m", "--vendor", "v", "--device-type", "GPU", "--source-ref", "r", "-o", "m.json")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "unknown --style")
}

func runExtract(t *testing.T, wd string, args ...string) (int, string) {
	t.Helper()
	var errb bytes.Buffer
	code := run(context.Background(), args, &errb, wd)
	return code, errb.String()
}
