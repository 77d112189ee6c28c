package cli

import (
	"errors"
	"fmt"

	"github.com/tfscan/tfscan/cmd/tfscan/internal/registry"
	"github.com/tfscan/tfscan/cmd/tfscan/internal/scan"
	"github.com/tfscan/tfscan/reports"
)

// Exit codes, the same for every command and output format (see README).
const (
	ExitOK       = 0 // success; the gate passed
	ExitGate     = 1 // the gate (or a parity tolerance) failed
	ExitUsage    = 2 // usage or configuration error
	ExitInput    = 3 // a model or input file could not be read, or could not be run
	ExitInternal = 4 // a bug in tfscan
)

// exitError carries the exit code an error maps to. Commands wrap errors with
// usageError, inputError or gateError; anything else is internal.
type exitError struct {
	code int
	err  error
	// reported is set when what went wrong is already on stderr.
	reported bool
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageErrorf(format string, args ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, args...)}
}

func usageError(err error) error { return &exitError{code: ExitUsage, err: err} }

func inputError(err error) error { return &exitError{code: ExitInput, err: err} }

// errGateFailed is returned after a report was written and the gate failed;
// it prints nothing more.
var errGateFailed = &exitError{code: ExitGate, err: errors.New("gate failed"), reported: true}

// classExit maps the class of a report's error (reports.ScanError.Class) to
// its exit code.
var classExit = map[string]int{
	reports.ErrorClassModel: ExitInput,
}

// reportErrors prints one line per model of the report that could not be
// scanned and returns the exit error they amount to, nil when there are
// none. It is called after the reports are written, and its code wins over
// a failed gate's: a gate that passed or failed on the models that could be
// read says nothing about those that could not (README, Exit codes).
func reportErrors(e *env, errs []reports.ScanError) error {
	code := ExitOK
	for _, se := range errs {
		fmt.Fprintf(e.stderr, "tfscan: %s\n", oneLine(se.Message))
		c, ok := classExit[se.Class]
		if !ok {
			c = ExitInternal
		}
		code = max(code, c)
	}
	if code == ExitOK {
		return nil
	}
	return &exitError{code: code, err: fmt.Errorf("%d model(s) could not be scanned", len(errs)), reported: true}
}

// reported tells whether err's message is already on stderr.
func reported(err error) bool {
	var ee *exitError
	return errors.As(err, &ee) && ee.reported
}

// exitCode is the one place errors become exit codes.
func exitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return ExitInternal
}

// appError maps the errors of the application layer to exit codes:
// scan.UsageError and registry.UsageError exit 2, scan.InputError and
// registry.InputError 3, registry.GateError 1; anything else stays as it
// is (a cancelled run, or a tfscan bug: exit 4).
func appError(err error) error {
	var (
		ue  *scan.UsageError
		rue *registry.UsageError
		ie  *scan.InputError
		rie *registry.InputError
		rge *registry.GateError
	)
	switch {
	case errors.As(err, &ue), errors.As(err, &rue):
		return usageError(err)
	case errors.As(err, &ie), errors.As(err, &rie):
		return inputError(err)
	case errors.As(err, &rge):
		return &exitError{code: ExitGate, err: err}
	}
	return err
}
