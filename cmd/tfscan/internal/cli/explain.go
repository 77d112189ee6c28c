package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/tfscan/tfscan/cmd/tfscan/internal/explain"
	"github.com/tfscan/tfscan/cmd/tfscan/internal/scan"
	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/reports/jsonout"
	"github.com/tfscan/tfscan/reports/markdown"
	"github.com/tfscan/tfscan/reports/table"
)

// explainFlags are the flags of `tfscan explain` (explain.Run says what it
// does).
type explainFlags struct {
	model, target, format, learn, signature string
	noSoft, clearDevs                       bool
	registries                              repeatFlag
	tags                                    listFlag
	stack                                   stackFlags
}

func (f *explainFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.model, "model", "", "the model the run loaded (`PATH`)")
	fs.StringVar(&f.target, "target", "", "the target the run was on (`NAME`, see 'tfscan registry list')")
	fs.StringVar(&f.format, "format", "table", "output `FORMAT`: table, json or markdown")
	fs.StringVar(&f.learn, "learn-registry", "", "write the kernel lists of the log's messages as a learned pack `FILE` (use it with scan --registry)")
	fs.StringVar(&f.signature, "signature", "", "the signature `KEY` the run called")
	fs.BoolVar(&f.noSoft, "no-soft-placement", false, "predict as with soft placement off (the run's setting)")
	fs.BoolVar(&f.clearDevs, "clear-devices", false, "predict as for a model imported with clear_devices=True (the run's setting)")
	fs.Var(&f.registries, "registry", "registry `FILE`: a pack, a live dump or a learned pack (repeatable)")
	fs.Var(&f.tags, "tags", "MetaGraph `TAGS` of the model (default: serve, else the first)")
	f.stack.register(fs)
}

// runExplain implements `tfscan explain LOG --model MODEL --target T
// [--format table|json|markdown] [--registry FILE]... [--learn-registry PACK]`:
// every TensorFlow, tf_adapter and Graph Engine message of a real run's log
// about a node, op, kernel or device, mapped to the model, to tfscan's
// prediction and to the fixes. --learn-registry alone (no --model) only
// writes the kernel lists of the log's messages as a learned pack.
func runExplain(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("explain", e.stderr)
	var f explainFlags
	f.register(fs)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) != 1:
		return usageErrorf("explain: want one log file (or - for stdin): tfscan explain LOG --model MODEL --target T")
	case f.model == "" && f.learn == "":
		return usageErrorf("explain: --model and --target are required (or --learn-registry PACK alone to learn from the log)")
	case f.model != "" && f.target == "":
		return usageErrorf("explain: --target is required with --model (the target the run was on)")
	}
	var write func(*reports.ExplainReport) ([]byte, error)
	switch f.format {
	case "table":
		write = render(table.WriteExplainTable)
	case "json":
		write = render(jsonout.WriteExplainJSON)
	case "markdown":
		write = render(markdown.WriteExplainMarkdown)
	default:
		return usageErrorf("explain: unknown --format %q (want table, json or markdown)", f.format)
	}
	logPath := pos[0]
	if logPath != "-" && !isAbs(logPath) && e.wd != "" {
		logPath = joinWD(e, logPath)
	}
	log, err := explain.ReadLog(logPath, e.stdin)
	if err != nil {
		var le *explain.LogError
		if errors.As(err, &le) {
			return inputError(fmt.Errorf("%s: %v", pos[0], le.Err))
		}
		return inputError(err)
	}
	if pos[0] != "-" {
		log.Path = pos[0]
	}
	if f.learn != "" {
		if err := learnRegistry(e, log, f.learn, f.target, f.registries); err != nil {
			return err
		}
	}
	if f.model == "" {
		return nil
	}
	settings, err := f.stack.settings()
	if err != nil {
		return err
	}
	rep, err := explain.Run(ctx, log, explain.Options{
		Model: f.model, Target: f.target, Registries: f.registries, Signature: f.signature, Tags: f.tags,
		Version: Version, Placement: scan.PlacementOptions{NoSoftPlacement: f.noSoft, ClearDevices: f.clearDevs}, Stack: settings,
		RewriteFixes: true,
	})
	if err != nil {
		return scanError(err)
	}
	out, err := write(rep)
	if err != nil {
		return fmt.Errorf("internal error: rendering the explanation: %w", err)
	}
	if _, err := e.stdout.Write(out); err != nil {
		return fmt.Errorf("writing to stdout: %w", err)
	}
	s := rep.Summary
	if s.Messages == 0 && s.PlacementLines == 0 {
		fmt.Fprintf(e.stderr, "tfscan: %s: no TensorFlow, tf_adapter or Graph Engine message about a node, op, kernel or device (%d lines read, %d unparsed)\n", log.Path, log.Lines, log.Unparsed)
	}
	if s.NotFound > 0 || s.PlacementNotFound > 0 {
		fmt.Fprintf(e.stderr, "tfscan: %d message(s) and %d placement line(s) of %s name nodes that are not in %s: a log of another model?\n", s.NotFound, s.PlacementNotFound, log.Path, f.model)
	}
	return nil
}

func render(w func(io.Writer, *reports.ExplainReport) error) func(*reports.ExplainReport) ([]byte, error) {
	return func(r *reports.ExplainReport) ([]byte, error) {
		var buf bytes.Buffer
		err := w(&buf, r)
		return buf.Bytes(), err
	}
}

// learnRegistry writes the log's kernel lists as a learned pack, for the
// target's device type (or, without --target, the log's accelerator).
func learnRegistry(e *env, log *explain.Log, out, target string, registries []string) error {
	devType, mech := "", scan.MechanismKernel
	if target != "" {
		ts, err := scan.ResolveTargets([]string{target}, registries)
		if err != nil {
			return scanError(err)
		}
		p := ts.List[0].Index.Info()
		// A derived target runs its base's way; a learned pack has no
		// derivation of its own (coverage.Pack.Validate).
		devType, mech = p.DeviceType, p.RunsAs()
	}
	p, skipped := explain.LearnPack(log, devType, mech)
	var buf bytes.Buffer
	if err := scan.WritePack(&buf, p); err != nil {
		return fmt.Errorf("internal error: writing the learned pack: %w", err)
	}
	file := out
	if !isAbs(file) && e.wd != "" {
		file = joinWD(e, file)
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return usageErrorf("--learn-registry %s: %v", out, err)
	}
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		return usageErrorf("--learn-registry %s: %v", out, err)
	}
	var ops []string
	for _, c := range p.Complete {
		ops = append(ops, c.Op)
	}
	fmt.Fprintf(e.stderr, "tfscan: learned the kernels of %d op(s) from %s into %s (pack %s, device type %s)%s\n",
		len(ops), log.Path, out, p.Name, p.DeviceType, listSuffix(ops))
	for _, s := range skipped {
		fmt.Fprintf(e.stderr, "tfscan: %s line %d: not learned (%s): %s\n", log.Path, s.Line, orOp(s.Op), s.Why)
	}
	return nil
}

func listSuffix(xs []string) string {
	if len(xs) == 0 {
		return ""
	}
	const show = 10
	s := ": " + strings.Join(xs[:min(len(xs), show)], ", ")
	if len(xs) > show {
		s += fmt.Sprintf(", ... (%d more)", len(xs)-show)
	}
	return s
}

func orOp(op string) string {
	if op == "" {
		return "no op"
	}
	return op
}
