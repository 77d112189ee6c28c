// Package tfenv finds the pinned TensorFlow that tfscan's conformance tests
// run against: the virtual environment tools/tf/ensure.sh installs from
// tools/tf/requirements.lock. It is for tests and tools only; tfscan itself
// never needs TensorFlow.
package tfenv

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// Version is the TensorFlow release the lock pins.
const Version = "2.15.0"

// RepoRoot is the repository root.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Locate returns the interpreter of the pinned environment: $TFSCAN_PYTHON
// when set (the Makefile sets it from tools/tf/ensure.sh), else the cache
// folder's environment for the current lock when it is installed. It never
// installs anything.
func Locate() (string, error) {
	if p := os.Getenv("TFSCAN_PYTHON"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("TFSCAN_PYTHON=%s: %v", p, err)
		}
		return p, nil
	}
	lock, err := os.ReadFile(filepath.Join(RepoRoot(), "tools", "tf", "requirements.lock"))
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(lock)
	cache := os.Getenv("TFSCAN_CACHE")
	if cache == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return "", err
		}
		cache = filepath.Join(base, "tfscan")
	}
	env := filepath.Join(cache, "tf-"+hex.EncodeToString(sum[:])[:16])
	if _, err := os.Stat(filepath.Join(env, ".ready")); err != nil {
		return "", fmt.Errorf("the pinned TensorFlow is not installed at %s (run `make tf`)", env)
	}
	return filepath.Join(env, "bin", "python"), nil
}

// Python returns the pinned environment's interpreter for a test. Without it
// the test is skipped on a developer machine and fails under CI=true, so that
// CI never passes without having asked TensorFlow.
func Python(t testing.TB) string {
	t.Helper()
	p, err := Locate()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("TensorFlow conformance needs the pinned TensorFlow: %v", err)
		}
		t.Skipf("TensorFlow conformance skipped: %v", err)
	}
	return p
}

// Run runs a Python script of the repository (path relative to its root)
// with the pinned TensorFlow, quiet logging and no GPU, and returns its
// stdout. A non-zero exit fails the test with the script's stderr.
func Run(t testing.TB, script string, args ...string) []byte {
	t.Helper()
	out, stderr, err := RunErr(t, script, args...)
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", script, args, err, stderr)
	}
	return out
}

// RunErr is Run that hands back the error and stderr instead of failing.
func RunErr(t testing.TB, script string, args ...string) (stdout, stderr []byte, err error) {
	t.Helper()
	py := Python(t)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, append([]string{filepath.Join(RepoRoot(), script)}, args...)...)
	cmd.Env = Env()
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.Bytes(), e.Bytes(), err
}

// Env is the environment TensorFlow runs in for conformance: the caller's,
// with TensorFlow's info logs off, no GPU looked for and oneDNN's
// rewrites off (they change which kernels run, not which are registered).
func Env() []string {
	return append(os.Environ(),
		"TF_CPP_MIN_LOG_LEVEL=1",
		"CUDA_VISIBLE_DEVICES=",
		"TF_ENABLE_ONEDNN_OPTS=0",
		"PYTHONHASHSEED=0",
		"PYTHONDONTWRITEBYTECODE=1",
	)
}
