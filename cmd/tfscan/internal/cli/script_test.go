package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/tfscan/tfscan/savedmodel/modelgen"
)

// TestMain lets testscript run tfscan as a command: the test binary re-runs
// itself with the command line of each `tfscan` line in a script.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"tfscan": func() { os.Exit(Main()) },
	})
}

// TestScripts runs the end-to-end CLI scripts in testdata/script. Each
// script gets the small generated models of testdata/models copied into
// $WORK/models, so that report paths are relative and stable.
//
// Besides the standard commands, scripts have
//
//	exitcode N tfscan ARGS...
//
// which runs tfscan and fails unless it exits with status N (stdout and
// stderr are kept for the following stdout/stderr/cmp lines), and
//
//	modelgen hostile DIR
//	modelgen chain N DIR
//
// which write modelgen's hostile models (graphs TensorFlow refuses) into
// DIR, or its SavedModel of N nested calls as DIR/saved_model.pb.
func TestScripts(t *testing.T) {
	repo, err := filepath.Abs(filepath.Join("..", "..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	models := filepath.Join(repo, "testdata", "models")
	if _, err := os.Stat(models); err != nil {
		t.Fatalf("the generated models are missing: %v", err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		RequireExplicitExec: true,
		// -update rewrites the files that cmp compares with.
		UpdateScripts: *update,
		Setup: func(env *testscript.Env) error {
			env.Setenv("REPO", repo)
			env.Setenv("CI", "true") // no progress bar, like a CI job
			return os.CopyFS(filepath.Join(env.WorkDir, "models"), os.DirFS(models))
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"modelgen": func(ts *testscript.TestScript, neg bool, args []string) {
				switch {
				case !neg && len(args) == 2 && args[0] == "hostile":
					ts.Check(modelgen.WriteHostile(ts.MkAbs(args[1])))
				case !neg && len(args) == 3 && args[0] == "chain":
					n, err := strconv.Atoi(args[1])
					ts.Check(err)
					b, err := modelgen.CallChainBytes(n)
					ts.Check(err)
					dir := ts.MkAbs(args[2])
					ts.Check(os.MkdirAll(dir, 0o755))
					ts.Check(os.WriteFile(filepath.Join(dir, "saved_model.pb"), b, 0o644))
				default:
					ts.Fatalf("usage: modelgen hostile DIR | modelgen chain N DIR")
				}
			},
			"exitcode": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 2 {
					ts.Fatalf("usage: exitcode N command args...")
				}
				want, err := strconv.Atoi(args[0])
				if err != nil {
					ts.Fatalf("exitcode: %v", err)
				}
				err = ts.Exec(args[1], args[2:]...)
				got := 0
				if err != nil {
					ee, ok := err.(*exec.ExitError)
					if !ok {
						ts.Fatalf("exitcode: %v", err)
					}
					got = ee.ExitCode()
				}
				if got != want {
					ts.Fatalf("%s exited with %d, want %d", args[1], got, want)
				}
			},
		},
	})
}
