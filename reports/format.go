package reports

import (
	"fmt"
	"io"
	"slices"
)

// WriteFunc renders a report in one format.
type WriteFunc func(w io.Writer, r *Report) error

// writers maps each --format name to its writer.
var writers = map[string]WriteFunc{
	"table":    WriteTable,
	"json":     WriteJSON,
	"html":     WriteHTML,
	"markdown": WriteMarkdown,
	"sarif":    WriteSARIF,
	"junit":    WriteJUnit,
}

// Formats lists the output format names, sorted.
func Formats() []string {
	var names []string
	for k := range writers {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// Writer returns the writer for a format name.
func Writer(format string) (WriteFunc, error) {
	w, ok := writers[format]
	if !ok {
		return nil, fmt.Errorf("unknown format %q (want one of %v)", format, Formats())
	}
	return w, nil
}
