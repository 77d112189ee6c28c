package cli

import (
	"io"
	"os"
	"sync"

	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"
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

// newProgress draws "scanning models  25% [====   ] (1/4)" on w with
// github.com/schollz/progressbar, redrawn at every call and erased when the
// last model is done.
func newProgress(w io.Writer) func(done, total int) {
	var mu sync.Mutex
	var bar *progressbar.ProgressBar
	return func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		if total <= 0 {
			return // nothing to scan: nothing to draw
		}
		if bar == nil {
			bar = progressbar.NewOptions(total,
				progressbar.OptionSetWriter(w),
				progressbar.OptionSetDescription("scanning models"),
				progressbar.OptionSetWidth(30),
				progressbar.OptionSetTheme(progressbar.Theme{Saucer: "=", SaucerPadding: " ", BarStart: "[", BarEnd: "]"}),
				progressbar.OptionSetPredictTime(false),
				progressbar.OptionShowCount(),
				progressbar.OptionUseANSICodes(true),
				progressbar.OptionClearOnFinish(),
			)
		} else if int64(total) != bar.GetMax64() {
			bar.ChangeMax(total)
		}
		_ = bar.Set(done)
	}
}
