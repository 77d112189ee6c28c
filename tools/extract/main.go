// Command extract generates a kernel registry pack from a vendor's C++
// source: the build-time tool behind tools/registries.sh and the built-in
// packs (coverage/packs), not a user command. It reads the registrations
// with coverage/extract and writes the pack as `tfscan registry show` and
// `--registry` read it.
//
//	go run ./tools/extract --source DIR --name NAME --vendor V --device-type T \
//	    [--device-tag TAG]... [--define NAME[=V]]... --source-ref REPO@COMMIT \
//	    [--date D] [--style tf|xla|dml|ascend] [--confidence-level L] -o PACK
//
// Exit codes are tfscan's: 0 written, 2 usage error, 3 a source could not be
// read, 4 internal error.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	opdefpb "github.com/wamuir/graft/tensorflow/core/framework/op_def_go_proto"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/coverage/extract"
	"github.com/tfscan/tfscan/graph/opdefs"
)

// Exit codes, as tfscan's.
const (
	exitOK       = 0
	exitUsage    = 2
	exitInput    = 3
	exitInternal = 4
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	wd, _ := os.Getwd()
	os.Exit(run(ctx, os.Args[1:], os.Stderr, wd))
}

// run executes one command line with stderr and the working directory wd
// (paths in flags are relative to it) and returns the exit code.
func run(ctx context.Context, args []string, stderr io.Writer, wd string) int {
	err := registryExtract(ctx, &env{stderr: stderr, wd: wd}, args)
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(stderr, "extract: %s\n", strings.Join(strings.Fields(err.Error()), " "))
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitInternal
}

// env is what the command touches of the outside world.
type env struct {
	stderr io.Writer
	wd     string
}

// exitError carries the exit code an error maps to; any other error is
// internal.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageErrorf(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

func usageError(err error) error { return &exitError{code: exitUsage, err: err} }

func inputError(err error) error { return &exitError{code: exitInput, err: err} }

func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// parseArgs parses the flags; the command takes no positional arguments.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, usageErrorf("help requested")
		}
		return nil, usageError(err)
	}
	return fs.Args(), nil
}

// repeatFlag collects a repeatable flag whose values may contain commas.
type repeatFlag []string

func (r *repeatFlag) String() string { return strings.Join(*r, " ") }

func (r *repeatFlag) Set(v string) error {
	*r = append(*r, v)
	return nil
}

// writePackFile writes p to path (relative to the working directory),
// gzip-compressed when the name ends in .gz.
func writePackFile(e *env, path string, p *coverage.Pack) error {
	if !filepath.IsAbs(path) {
		path = filepath.Join(e.wd, path)
	}
	err := coverage.WritePackFile(path, p)
	var pe *coverage.PackPathError
	if errors.As(err, &pe) {
		return usageError(pe.Err)
	}
	return err
}

func registryExtract(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("extract", e.stderr)
	var (
		o                             extract.Options
		po                            extract.PackOptions
		dirs, excludes, includes      repeatFlag
		defines, tags, typeLists      repeatFlag
		style, out, mech, opsFile     string
		stackKind                     string
		stackInputs                   repeatFlag
		xlaDevice, xlaTypes, opDefDir string
	)
	fs.StringVar(&o.Source, "source", "", "root of the source tree (required)")
	fs.Var(&dirs, "dir", "file or directory under --source to scan (repeatable; default all)")
	fs.Var(&excludes, "exclude", "regexp of paths to skip (repeatable)")
	fs.Var(&includes, "include", "extra include root under --source (repeatable)")
	fs.Var(&defines, "define", "preprocessor define NAME or NAME=VALUE (repeatable)")
	fs.Var(&typeLists, "type-lists", "header defining named dtype lists, e.g. kFloatTypes; ascend style: op info INI files (repeatable)")
	fs.StringVar(&po.Name, "name", "", "pack name (required)")
	fs.StringVar(&po.Vendor, "vendor", "", "vendor (required)")
	fs.StringVar(&po.DeviceType, "device-type", "", "device type of the pack (required)")
	fs.Var(&tags, "device-tag", "source .Device() tag registering on --device-type (repeatable; default the device type)")
	fs.StringVar(&po.SourceRef, "source-ref", "", "repository@commit the source came from (required)")
	fs.StringVar(&po.Date, "date", "", "source commit date")
	fs.StringVar(&po.TFVersion, "tf-version", "", "TensorFlow version the source builds against")
	fs.StringVar(&po.Note, "note", "", "extra limits for the confidence note")
	fs.StringVar(&mech, "mechanism", "kernel", "kernel, xla_cluster or graph_offload")
	var level string
	fs.StringVar(&level, "confidence-level", "medium", "high, medium or low: how far the pack can be trusted")
	fs.StringVar(&style, "style", "tf", "tf (REGISTER_KERNEL_BUILDER), xla (REGISTER_XLA_OP), dml (DirectML templates), ascend (CANN parser plugins)")
	fs.StringVar(&opsFile, "ops", "", "xla and ascend styles: TensorFlow OpList text file (default: tfscan's embedded TF 2.15 OpDefs)")
	fs.StringVar(&xlaDevice, "xla-device", "XLA_GPU_JIT", "xla style: JIT device")
	fs.StringVar(&xlaTypes, "xla-types", "kGpuAllTypes", "xla style: the backend's dtype list name")
	fs.StringVar(&opDefDir, "op-defs", "", "dml style: header with the generated op structs (relative to --source)")
	fs.StringVar(&stackKind, "stack", "", "also read what the stack does around its kernels: "+extract.StackAscend+" (precision modes, partitioning), "+extract.StackITEX+" or "+extract.StackMUSA+" (graph optimizer)")
	fs.Var(&stackInputs, "stack-input", "`KEY=PATH` (under --source) of a file the --stack reader needs (repeatable)")
	fs.StringVar(&out, "o", "", "output pack file (.json or .json.gz)")
	verbose := fs.Bool("v", false, "list every skipped registration and preprocessor error")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("takes no positional arguments")
	}
	if o.Source == "" || po.Name == "" || po.Vendor == "" || po.DeviceType == "" || po.SourceRef == "" || out == "" {
		return usageErrorf("needs --source, --name, --vendor, --device-type, --source-ref and -o")
	}
	if err := coverage.CheckPackName(po.Name); err != nil {
		return usageError(err)
	}
	if !filepath.IsAbs(o.Source) {
		o.Source = filepath.Join(e.wd, o.Source)
	}
	o.Dirs, o.Exclude, o.Includes, o.Defines, o.TypeListFiles = dirs, excludes, includes, defines, typeLists
	stackIn := extract.StackInputs{}
	for _, kv := range stackInputs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || v == "" {
			return usageErrorf("--stack-input %q: want KEY=PATH", kv)
		}
		stackIn[k] = v
	}
	switch stackKind {
	case "", extract.StackITEX, extract.StackMUSA:
	case extract.StackAscend:
		if style != "ascend" {
			return usageErrorf("--stack %s needs --style ascend", stackKind)
		}
	default:
		return usageErrorf("unknown --stack %q (%s, %s, %s)", stackKind, extract.StackAscend, extract.StackITEX, extract.StackMUSA)
	}
	po.DeviceTags = tags
	po.Mechanism = coverage.Mechanism(mech)
	po.Level = coverage.Level(level)
	if po.Level.Rank() == 0 {
		return usageErrorf("--confidence-level must be high, medium or low, not %q", level)
	}
	po.BuildFlags = defines

	var res *extract.Result
	switch style {
	case "tf":
		res, err = extract.Extract(ctx, o)
	case "xla":
		ops, oerr := loadOpDefs(e, opsFile)
		if oerr != nil {
			return oerr
		}
		o.Marker = "REGISTER_XLA_OP"
		res, err = extract.Extract(ctx, o)
		if err == nil {
			res, err = extract.ToXLA(res, ops, xlaDevice, xlaTypes)
		}
		po.DeviceTags = []string{xlaDevice}
		po.Style = "C preprocessor expansion of REGISTER_XLA_OP, kernels built as XlaOpRegistry::RegisterCompilationKernels does with TF 2.15 OpDefs"
	case "dml":
		if opDefDir == "" {
			return usageErrorf("--style dml needs --op-defs")
		}
		res, err = extract.ExtractDML(ctx, o, opDefDir)
		po.Style = "C preprocessor expansion, then DirectML KernelDefinition<...> template patterns"
	case "ascend":
		ops, oerr := loadOpDefs(e, opsFile)
		if oerr != nil {
			return oerr
		}
		ao := extract.AscendOptions{INIFiles: typeLists, Ops: ops}
		if stackKind == extract.StackAscend {
			ao.Stack = stackIn
		}
		res, err = extract.ExtractAscend(o, ao)
		po.Style = "CANN TensorFlow parser plugins (REGISTER_CUSTOM_OP ... OriginOpType); dtypes from the AI Core / AI CPU op info INI files"
	default:
		return usageErrorf("unknown --style %q (tf, xla, dml, ascend)", style)
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return err
		}
		return inputError(err)
	}
	p, st, err := extract.ToPack(res, po)
	if err != nil {
		return inputError(err)
	}
	if p.Stack, err = readOptimizer(o.Source, stackKind, stackIn, res.Stack); err != nil {
		return inputError(err)
	}
	if err := writePackFile(e, out, p); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "wrote %s: %d kernels for %d ops on %s (dtypes known for %d/%d; %d skipped; %d preprocessor errors)\n",
		out, st.Registrations, st.Ops, p.DeviceType, st.Resolved, st.Registrations, st.Skipped, len(res.CPPErrors))
	shown := 5
	if *verbose {
		shown = len(res.CPPErrors)
		for _, s := range res.Skips {
			fmt.Fprintf(e.stderr, "  skipped: %s: %s: %s\n", s.File, s.Reason, s.Text)
		}
	}
	for _, s := range res.CPPErrors[:min(len(res.CPPErrors), shown)] {
		fmt.Fprintf(e.stderr, "  preprocessor: %s: %s\n", s.File, s.Reason)
	}
	return nil
}

// readOptimizer adds the --stack graph optimizer, if any, to what the
// style's own reader found.
func readOptimizer(root, kind string, in extract.StackInputs, st *coverage.Stack) (*coverage.Stack, error) {
	var read func(string, extract.StackInputs) (*coverage.Optimizer, error)
	switch kind {
	case extract.StackITEX:
		read = extract.ReadITEXOptimizer
	case extract.StackMUSA:
		read = extract.ReadMUSAOptimizer
	default:
		return st, nil
	}
	opt, err := read(root, in)
	if err != nil {
		return nil, err
	}
	if st == nil {
		st = &coverage.Stack{}
	}
	st.Optimizer = opt
	return st, nil
}

// loadOpDefs reads an OpList text file, or tfscan's embedded OpDefs
// (graph/opdefs: ops.pbtxt plus TensorFlow's internal _* ops) when path is "".
func loadOpDefs(e *env, path string) (map[string]*opdefpb.OpDef, error) {
	if path == "" {
		l, err := opdefs.Load()
		if err != nil {
			return nil, err
		}
		return extract.OpDefMap(l), nil
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(e.wd, path)
	}
	m, err := extract.LoadOpList(path)
	if err != nil {
		return nil, inputError(err)
	}
	return m, nil
}
