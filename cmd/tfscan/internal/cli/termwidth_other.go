//go:build !unix

package cli

import "os"

// terminalWidth is 0 where tfscan cannot ask the terminal: the default
// width applies.
func terminalWidth(*os.File) int { return 0 }
