package cli

import (
	"os"
	"strconv"

	"github.com/mattn/go-isatty"

	"github.com/tfscan/tfscan/reports/table"
)

// tableOptions fit the table view to where it goes: a file gets
// table.DefaultWidth; stdout gets $COLUMNS when set, else the terminal's
// width when it is a terminal, else table.DefaultWidth. -v cuts nothing.
func tableOptions(e *env, toStdout bool) table.TableOptions {
	o := table.TableOptions{Width: table.DefaultWidth, Verbose: e.verbose}
	if !toStdout {
		return o
	}
	if n, err := strconv.Atoi(e.getenv("COLUMNS")); err == nil && n > 0 {
		o.Width = n
		return o
	}
	if f, ok := e.stdout.(*os.File); ok && isatty.IsTerminal(f.Fd()) {
		if n := terminalWidth(f); n > 0 {
			o.Width = n
		}
	}
	return o
}
