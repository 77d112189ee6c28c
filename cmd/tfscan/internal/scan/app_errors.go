package scan

import (
	"context"
	"errors"
	"fmt"
)

// InputError is an input of a run (the model, its checkpoint, an .npz of
// inputs or recorded outputs) that could not be read, or a model that
// could not be run on it. Its message is the wrapped error's.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

func inputError(err error) error { return &InputError{Err: err} }

func usageErrorf(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// runError is an execution failure: the model could not be run (a missing
// kernel, a bad feed, a malformed loop). A cancelled run stays what it is.
func runError(path string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return inputError(fmt.Errorf("%s: %w", path, err))
}
