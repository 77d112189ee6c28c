// Command gen writes the models tfscan tests itself on into
// testdata/models (see package savedmodel/modelgen). Run it from the
// repository root:
//
//	go run ./testdata/gen
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/tfscan/tfscan/savedmodel/modelgen"
)

func main() {
	out := flag.String("out", "testdata/models", "directory to write the models into")
	flag.Parse()
	if err := modelgen.WriteAll(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
