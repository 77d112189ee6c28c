// Command tfscan tells teams moving TensorFlow models to a new accelerator
// what will and will not run there, before they touch the hardware.
package main

import (
	"os"

	"github.com/tfscan/tfscan/cmd/tfscan/internal/cli"
)

func main() {
	os.Exit(cli.Main())
}
