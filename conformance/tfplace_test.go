package conformance

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tfscan/tfscan/internal/tfenv"
)

// TestTfplaceBadInput holds tools/tf/tfplace.py to one line naming the
// problem, its documented exit code and no output file, for a bad pack (the
// fake device is not built), an empty one, and a model TensorFlow cannot
// read.
func TestTfplaceBadInput(t *testing.T) {
	py, corpus, dir, env := tfplaceSetup(t)
	empty := filepath.Join(dir, "empty.pbtxt")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		args  []string
		code  int
		words string
	}{
		{"unknown pack", []string{filepath.Join(corpus, "tf/gd_if_op"), "--pack", "nosuchpack"}, 2, `no built-in pack "nosuchpack"`},
		{"empty pack", []string{filepath.Join(corpus, "tf/gd_if_op"), "--pack", empty}, 3, "empty.pbtxt: empty file"},
		{"malformed model", []string{filepath.Join(corpus, "tf/gd_malformed"), "--pack", "musa"}, 3, "neither a GraphDef nor a MetaGraphDef"},
		{"no -o", []string{filepath.Join(corpus, "tf/gd_if_op"), "--pack", "musa"}, 2, "-o"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".json")
			args := tc.args
			if tc.name != "no -o" {
				args = append(args, "-o", out)
			}
			cmd := tfplace(py, env, args...)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr.String())
			}
			var ours []string
			for _, l := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
				if strings.HasPrefix(l, "tfplace") || strings.HasPrefix(l, "usage:") {
					ours = append(ours, l)
				}
			}
			if len(ours) == 0 || !strings.Contains(strings.Join(ours, "\n"), tc.words) {
				t.Errorf("stderr does not say %q in tfplace's line:\n%s", tc.words, stderr.String())
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s written on failure", out)
			}
		})
	}
}

// A step that fails at run time in two places at once reports the kernel
// missing in a function body, whichever failure TensorFlow's threads meet
// first: gd_if_op on the musa pack runs StatelessIf's then branch, whose
// Div has no TFSCAN_MUSA kernel, while the fake kernels' outputs fail the
// stateful If's own check (first_refusal in tools/tf/tfplace.py).
func TestTfplaceReportsTheMissingKernelOfAFailedStep(t *testing.T) {
	py, corpus, dir, env := tfplaceSetup(t)
	out := filepath.Join(dir, "gd_if_op.json")
	output, err := tfplace(py, env, filepath.Join(corpus, "tf/gd_if_op"), "--pack", "musa", "-o", out).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit %v, want 1 (refused); output:\n%s", err, output)
	}
	var got struct {
		Error *string `json:"error"`
	}
	readJSON(t, out, &got)
	if got.Error == nil || !strings.Contains(*got.Error, "No registered 'Div' OpKernel for 'TFSCAN_MUSA'") {
		t.Fatalf("error %v, want the Div kernel StatelessIf's branch misses", got.Error)
	}
}

// tfplaceSetup is what running tools/tf/tfplace.py takes: the pinned
// TensorFlow's python, the corpus, a directory of the test's own and the
// environment (tfscan built there, the fake devices built under it).
func tfplaceSetup(t *testing.T) (py, corpus, dir string, env []string) {
	t.Helper()
	py, corpus = needFakeDevice(t)
	dir = t.TempDir()
	tfscan := buildTfscan(t, dir)
	env = append(tfenv.Env(), "TFSCAN="+tfscan, "TFSCAN_PYTHON="+py, "TFSCAN_FAKEDEVICE_DIR="+filepath.Join(dir, "plugins"))
	return py, corpus, dir, env
}

// tfplace is tools/tf/tfplace.py with args, run by py in env.
func tfplace(py string, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(py, append([]string{filepath.Join(tfenv.RepoRoot(), "tools", "tf", "tfplace.py")}, args...)...)
	cmd.Env = env
	return cmd
}
