package reports

import _ "embed"

//go:embed schema/report.schema.json
var schemaJSON []byte

// Schema returns the JSON Schema (draft 2020-12) of the JSON report, so that
// consumers and tests can validate reports against the exact schema this
// build writes.
func Schema() []byte { return append([]byte(nil), schemaJSON...) }

//go:embed schema/explain.schema.json
var explainSchemaJSON []byte

// ExplainSchema returns the JSON Schema of `tfscan explain --format json`.
func ExplainSchema() []byte { return append([]byte(nil), explainSchemaJSON...) }
