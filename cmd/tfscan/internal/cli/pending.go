package cli

// Commands that are being built. Each moves to its own file (inspect.go,
// scan.go, ...) as it lands; this file goes away when it is empty.

import (
	"context"
	"errors"
)

var errNotBuilt = errors.New("this command is not built yet")

func runRun(ctx context.Context, e *env, args []string) error     { return errNotBuilt }
func runParity(ctx context.Context, e *env, args []string) error  { return errNotBuilt }
func runVectors(ctx context.Context, e *env, args []string) error { return errNotBuilt }
