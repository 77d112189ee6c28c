package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// WriteJSON writes r as indented JSON (schema version 1, see Schema). The
// output is deterministic: Normalize orders everything and maps are written
// with sorted keys.
func WriteJSON(w io.Writer, r *Report) error {
	r.Normalize()
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// ReadJSON reads a JSON report written by WriteJSON, e.g. a baseline. It
// rejects reports of another schema version, since a baseline comparison
// across versions would be meaningless.
func ReadJSON(file string) (*Report, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r Report
	dec := json.NewDecoder(io.LimitReader(f, 1<<31))
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("%s: not a tfscan JSON report: %v", file, err)
	}
	if r.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("%s: report schema version %d, this tfscan reads version %d", file, r.SchemaVersion, SchemaVersion)
	}
	r.Normalize()
	return &r, nil
}
