package cli

import "flag"

// update rewrites this package's golden files instead of comparing with
// them: testdata/registry/*.golden and the files the scripts in
// testdata/script compare with (cmp). make update-goldens sets it.
var update = flag.Bool("update", false, "rewrite the golden files in testdata/registry and testdata/script")
