// Package format picks a report writer by its --format name.
package format

import (
	"fmt"
	"io"
	"slices"

	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/reports/html"
	"github.com/tfscan/tfscan/reports/jsonout"
	"github.com/tfscan/tfscan/reports/junit"
	"github.com/tfscan/tfscan/reports/markdown"
	"github.com/tfscan/tfscan/reports/sarif"
	"github.com/tfscan/tfscan/reports/table"
)

// WriteFunc renders a report in one format.
type WriteFunc func(w io.Writer, r *reports.Report) error

// writers maps each --format name to its writer.
var writers = map[string]WriteFunc{
	"table":    table.WriteTable,
	"json":     jsonout.WriteJSON,
	"html":     html.WriteHTML,
	"markdown": markdown.WriteMarkdown,
	"sarif":    sarif.WriteSARIF,
	"junit":    junit.WriteJUnit,
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
