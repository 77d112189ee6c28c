package cli

// Commands that are being built. Each moves to its own file (inspect.go,
// scan.go, ...) as it lands; this file goes away when it is empty.

import (
	"errors"
)

var errNotBuilt = errors.New("this command is not built yet")
