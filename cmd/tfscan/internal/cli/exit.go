package cli

import (
	"errors"
	"fmt"
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
var errGateFailed = &exitError{code: ExitGate, err: errors.New("gate failed")}

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
