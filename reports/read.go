package reports

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
)

// ReadJSON reads a JSON report written by WriteJSON of this schema version,
// e.g. the merged results `check --results` gates or a shard's report. A
// report of another version is refused: its shape differs.
func ReadJSON(file string) (*Report, error) {
	return readJSON(file, "reports", SchemaVersion)
}

// ReadAnyVersion reads a report of any schema version this tfscan knows,
// for callers that judge the version themselves: a baseline for the gate
// (version 1 lists every node, so the gate finds in it all it compares:
// uncovered nodes and ops, fallback counts, bytes), and the reports
// `tfscan merge` refuses to mix with a message of its own.
func ReadAnyVersion(file string) (*Report, error) {
	return readJSON(file, "reports", SchemaVersion1, SchemaVersion)
}

// readJSON reads a report of one of the versions; what names the kind of
// report in the refusal.
func readJSON(file, what string, versions ...int) (*Report, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r Report
	dec := json.NewDecoder(bufio.NewReaderSize(io.LimitReader(f, 1<<31), 1<<16))
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("%s: not a tfscan JSON report: %v", file, err)
	}
	if !slices.Contains(versions, r.SchemaVersion) {
		want := fmt.Sprint(versions[0])
		if len(versions) > 1 {
			want = fmt.Sprintf("%d to %d", versions[0], versions[len(versions)-1])
		}
		return nil, fmt.Errorf("%s: report schema version %d; this tfscan reads %s of version %s (rescan with this tfscan)", file, r.SchemaVersion, what, want)
	}
	r.Normalize()
	return &r, nil
}
