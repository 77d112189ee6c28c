package jsonout

import (
	"io"

	"github.com/tfscan/tfscan/reports"
)

// WriteExplainJSON writes r as indented JSON with a trailing newline.
func WriteExplainJSON(w io.Writer, r *reports.ExplainReport) error { return writeIndentedJSON(w, r) }
