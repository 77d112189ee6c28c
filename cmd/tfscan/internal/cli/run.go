// Package cli is tfscan's command line: flags, choosing writers, and mapping
// errors to exit codes. It is the only package that knows about exit codes.
package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
)

// Version is set at build time with -ldflags "-X ...cli.Version=...".
var Version = "0.1.0-dev"

// env is what a command may touch of the outside world, injected so that
// the CLI runs in-process in tests.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	wd             string
	// verbose is -v of scan, check and baseline: the table view shows
	// everything, uncut.
	verbose bool
}

// Main runs tfscan with the process's arguments and streams.
func Main() int {
	wd, _ := os.Getwd()
	return Run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv, wd)
}

// Run executes one tfscan command line and returns its exit code.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string, wd string) (code int) {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv, wd: wd}
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "tfscan: internal error: %v\n", r)
			code = ExitInternal
		}
	}()
	err := dispatch(ctx, e, args)
	if err != nil && !reported(err) {
		fmt.Fprintf(stderr, "tfscan: %s\n", oneLine(err.Error()))
	}
	return exitCode(err)
}

func dispatch(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(e.stderr, usage)
		return usageErrorf("no command given")
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "inspect":
		return runInspect(ctx, e, rest)
	case "scan":
		return runScan(ctx, e, rest)
	case "check":
		return runCheck(ctx, e, rest)
	case "baseline":
		return runBaseline(ctx, e, rest)
	case "merge":
		return runMerge(ctx, e, rest)
	case "registry":
		return runRegistry(ctx, e, rest)
	case "run":
		return runRun(ctx, e, rest)
	case "parity":
		return runParity(ctx, e, rest)
	case "vectors":
		return runVectors(ctx, e, rest)
	case "explain":
		return runExplain(ctx, e, rest)
	case "rewrite":
		return runRewrite(ctx, e, rest)
	case "version", "--version":
		fmt.Fprintf(e.stdout, "tfscan %s\n", Version)
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(e.stdout, usage)
		return nil
	}
	return usageErrorf("unknown command %q (see 'tfscan help')", cmd)
}

// oneLine keeps an error to one line on stderr.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

const usage = `tfscan: will this TensorFlow model run on the new accelerator?

Usage:
  tfscan inspect PATH... [--format table|json]
  tfscan scan PATH... --target NAME[,NAME...] [--registry FILE]... [--format FORMAT[=FILE]]...
  tfscan check PATH... --target NAME[,NAME...] [thresholds] [--baseline FILE] [--shard I/N]
  tfscan check --results REPORT [thresholds] [--baseline FILE]
  tfscan baseline PATH... --target NAME[,NAME...] -o FILE
  tfscan merge REPORT... -o FILE
  tfscan registry list|show|diff|import|derive|audit ...
  tfscan run PATH [--inputs in.npz] --outputs out.npz [--signature KEY] [--fetch NAME]... [--seed N] [--dim N]
  tfscan parity PATH --target T [--precision P] [--inputs in.npz] [--golden out.npz]
  tfscan vectors PATH --target T -o DIR
  tfscan explain LOG --model PATH --target T [--format table|json|markdown] [--learn-registry PACK]
  tfscan rewrite PATH --target T -o OUT [--inputs in.npz] [--rules LIST] [--allow-lower-precision] [--clear-devices]
  tfscan version

Exit codes: 0 pass, 1 gate failed, 2 usage or configuration error,
3 a model could not be read, 4 internal error.
`
