package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/mattn/go-isatty"
)

// progressBar returns a scan.Options.Progress callback that draws a bar on
// stderr, or nil when stderr is not a terminal or the CI variable is set:
// logs and pipes get no control characters, and stdout never gets any.
func progressBar(e *env) func(done, total int) {
	f, ok := e.stderr.(*os.File)
	if !ok || e.getenv("CI") != "" || !(isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())) {
		return nil
	}
	return newProgress(f)
}

func newProgress(w io.Writer) func(done, total int) {
	var mu sync.Mutex
	return func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		const width = 30
		filled := 0
		if total > 0 {
			filled = width * done / total
		}
		fmt.Fprintf(w, "\rscanning [%s%s] %d/%d models", strings.Repeat("=", filled), strings.Repeat(" ", width-filled), done, total)
		if done >= total {
			fmt.Fprint(w, "\r\033[K")
		}
	}
}
