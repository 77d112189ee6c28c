package conformance

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/internal/tfenv"
)

func init() { owners["registries"] = true }

// TestRegistries dumps the pinned wheel's own kernel registry with
// tools/dump_registry.py (one TensorFlow process), reads it with the code
// behind `tfscan registry import`, and compares every built-in pack that
// coverage.BinaryChecks names with it kernel by kernel: recall and
// precision must reach coverage.MinAgreement, every difference must be
// explained in coverage/checked_differences.txt and every line there must
// still be a difference.
func TestRegistries(t *testing.T) {
	tfenv.Python(t)
	dump := filepath.Join(t.TempDir(), "tf.pbtxt")
	tfenv.Run(t, "tools/dump_registry.py", "-o", dump)
	d, err := coverage.ReadDumpFile(dump)
	require.NoError(t, err)

	lock, err := os.ReadFile(filepath.Join(tfenv.RepoRoot(), "tools", "tf", "requirements.lock"))
	require.NoError(t, err)
	for _, c := range coverage.BinaryChecks() {
		// The provenance registry show prints must be the wheel that ran.
		require.Equal(t, tfenv.Version, c.TFVersion, "%s: checked against another TensorFlow than the lock pins", c.Pack)
		// The lock pins the wheel of each CPython TensorFlow 2.15 supports;
		// checked.go names the Python 3.11 one, and another CPython's is the
		// same build.
		require.True(t, slices.ContainsFunc(d.Header.Wheels, func(w string) bool { return anyCPython(w) == anyCPython(c.Wheel) }),
			"%s: the dump is of %v, not of the wheel coverage/checked.go names (%s)", c.Pack, d.Header.Wheels, c.Wheel)
		require.Contains(t, string(lock), "sha256:"+c.SHA256, "%s: the wheel's sha256 is not in tools/tf/requirements.lock", c.Pack)
	}

	checks, err := coverage.CheckDump(d)
	require.NoError(t, err)
	require.Len(t, checks, len(coverage.BinaryChecks()))
	for _, c := range checks {
		// Each device type's pack must also be what import makes of it.
		p, err := d.Pack(coverage.ImportOptions{Name: "wheel", Vendor: "Google", DeviceType: c.DeviceType})
		require.NoError(t, err)
		own := coverage.CompareKernels(p, d.Kernels, c.DeviceType)
		require.Equal(t, own.Binary, own.Agree, "%s: registry import lost or changed kernels of the dump", c.DeviceType)

		if c.Recall() < coverage.MinAgreement || c.Precision() < coverage.MinAgreement {
			t.Errorf("%s: recall %.4f, precision %.4f against the wheel's %s kernels, below %.2f", c.Pack, c.Recall(), c.Precision(), c.DeviceType, coverage.MinAgreement)
		}
		for _, u := range c.Unexplained {
			t.Errorf("%s: a difference with the wheel that coverage/checked_differences.txt does not explain: %s", c.Pack, u)
		}
		for _, s := range c.Stale {
			t.Errorf("%s: coverage/checked_differences.txt lists %s %s, which is no longer a difference", c.Pack, s.Side, s.Kernel)
		}
	}
	section("registries", registriesSection(d, checks))
}

var cpythonTags = regexp.MustCompile(`-cp3\d+-cp3\d+-`)

// anyCPython blanks a wheel file name's CPython tags.
func anyCPython(wheel string) string { return cpythonTags.ReplaceAllString(wheel, "-cp3X-cp3X-") }

// registriesSection is the "registries" part of docs/conformance.md.
func registriesSection(d *coverage.Dump, checks []coverage.DumpCheck) string {
	var b strings.Builder
	c0 := checks[0].Check
	fmt.Fprintf(&b, "## Registries\n\n")
	fmt.Fprintf(&b, "The built-in packs against the kernel registry of TensorFlow %s itself: `%s` (sha256 `%s`), dumped by\n", c0.TFVersion, c0.Wheel, c0.SHA256)
	fmt.Fprintf(&b, "`tools/dump_registry.py` (`get_all_registered_kernels()` after `import tensorflow`) and read by the code of\n")
	fmt.Fprintf(&b, "`tfscan registry import`. A kernel is its op, device type, type constraints, host-memory args, label and\n")
	fmt.Fprintf(&b, "priority; two agree when all of them are equal. `tfscan registry check DUMP` runs the same comparison.\n\n")
	b.WriteString("| pack | device type | wheel kernels | pack kernels | agree | differ | explained | recall | precision |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, c := range checks {
		fmt.Fprintf(&b, "| `%s` | %s | %d | %d | %d | %d | %d | %.4f | %.4f |\n", c.Pack, c.DeviceType, c.Binary, c.PackKernels,
			c.Agree, len(c.Missing)+len(c.Extra), len(c.Explained), c.Recall(), c.Precision())
	}
	var other []string
	for _, t := range d.DeviceTypes() {
		if !slices.ContainsFunc(checks, func(c coverage.DumpCheck) bool { return c.DeviceType == t }) {
			other = append(other, t)
		}
	}
	fmt.Fprintf(&b, "\nDevice types of the wheel with no pack compared: %s (docs/registries.md says why).\n", strings.Join(other, ", "))
	b.WriteString("\nEvery difference, with its reason (`-`: the wheel registers it, the pack lacks it; `+`: the pack has it,\nthe wheel does not register it):\n\n")
	b.WriteString("| pack | | kernel | reason |\n|---|---|---|---|\n")
	n := 0
	for _, c := range checks {
		for _, k := range c.Explained {
			fmt.Fprintf(&b, "| `%s` | %s | `%s` | %s |\n", c.Pack, k.Side, k.Kernel, k.Reason)
			n++
		}
	}
	if n == 0 {
		b.WriteString("| - | | none | |\n")
	}
	return b.String()
}

// TestDumpRegistryScriptBadInstall runs tools/dump_registry.py where
// TensorFlow is missing or broken, or a plugin cannot load: one line on
// stderr naming what failed, exit 3 (the script's documented code), and no
// dump written. It needs a python3, not TensorFlow.
func TestDumpRegistryScriptBadInstall(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	broken := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(broken, "tensorflow"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(broken, "tensorflow", "__init__.py"),
		[]byte("raise ImportError('libtensorflow_framework.so.2: cannot open shared object file: No such file or directory')\n"), 0o644))
	nokernels := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(nokernels, "tensorflow"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(nokernels, "tensorflow", "__init__.py"), []byte("__version__ = '0.0'\n"), 0o644))
	script := filepath.Join(tfenv.RepoRoot(), "tools", "dump_registry.py")
	tests := []struct {
		name, pythonpath string
		args             []string
		want             string
	}{
		// -S: no site-packages, so no TensorFlow whatever this python3 has.
		{"missing", "", nil, "dump_registry.py: cannot import tensorflow (is it installed in"},
		{"missing, the exception", "", nil, "ModuleNotFoundError: No module named 'tensorflow'"},
		{"broken", broken, nil, "ImportError: libtensorflow_framework.so.2: cannot open shared object file"},
		{"no kernel listing", nokernels, nil, "dump_registry.py: TensorFlow 0.0 cannot list its kernels: ModuleNotFoundError"},
		{"plugin", nokernels, []string{"--import", "no_such_device_pkg"}, "dump_registry.py: cannot import no_such_device_pkg: ModuleNotFoundError"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "d.pbtxt")
			cmd := exec.Command(py, append([]string{"-S", script, "-o", out}, tc.args...)...)
			cmd.Env = append(os.Environ(), "PYTHONPATH="+tc.pythonpath)
			stderr, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			require.ErrorAs(t, err, &ee, "%s", stderr)
			require.Equal(t, 3, ee.ExitCode(), "%s", stderr)
			require.Equal(t, 1, strings.Count(string(stderr), "\n"), "one line: %s", stderr)
			require.Contains(t, string(stderr), tc.want)
			require.NoFileExists(t, out)
		})
	}
}
