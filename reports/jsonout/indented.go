package jsonout

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/tfscan/tfscan/reports"
)

// WriteInspectJSON writes r as indented JSON with a trailing newline.
func WriteInspectJSON(w io.Writer, r *reports.InspectReport) error { return writeIndentedJSON(w, r) }

// writeIndentedJSON renders v in memory first, so that a failure writes
// nothing, then writes it indented, HTML characters unescaped.
func writeIndentedJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}
