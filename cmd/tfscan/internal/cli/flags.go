package cli

import (
	"errors"
	"flag"
	"io"
	"strings"
)

// newFlagSet returns a flag set that reports errors instead of exiting and
// prints its usage to stderr.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("tfscan "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// parseArgs parses flags and positional arguments in any order
// (`tfscan scan model/ --target xpu` and `tfscan scan --target xpu model/`),
// returning the positional ones. "--" ends the flags.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	// The flag package prints the error and the whole usage on a bad flag;
	// tfscan prints one line (the returned error), and the usage only when
	// it was asked for with -h.
	out := fs.Output()
	fs.SetOutput(io.Discard)
	defer fs.SetOutput(out)
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.SetOutput(out)
				fs.Usage()
				return nil, usageErrorf("%s: help requested", strings.TrimPrefix(fs.Name(), "tfscan "))
			}
			return nil, usageErrorf("%s: %v (see '%s -h')", strings.TrimPrefix(fs.Name(), "tfscan "), err, fs.Name())
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if rest[0] == "--" {
			return append(pos, rest[1:]...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// listFlag collects a repeatable flag; each value may also be a comma
// separated list (`--target xpu,musa --target ascend`).
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

// repeatFlag collects a repeatable flag whose values may contain commas.
type repeatFlag []string

func (r *repeatFlag) String() string { return strings.Join(*r, " ") }

func (r *repeatFlag) Set(v string) error {
	*r = append(*r, v)
	return nil
}
