package scan

import (
	"slices"

	"github.com/tfscan/tfscan/coverage"
)

// readPacksAhead starts reading, each on a goroutine of its own, the
// built-in packs a scan with opts reads besides its targets'
// (packsAhead), which coverage.BuiltinPackLazy then keeps. The scan resolves
// its targets and loads its first model meanwhile, which read none of
// them; a fresh process would otherwise decode them one after the other
// before it places anything.
func readPacksAhead(opts Options) {
	names := packsAhead(opts)
	if len(names) == 0 {
		return
	}
	for _, name := range names {
		go func() { _, _ = coverage.BuiltinPackLazy(name) }() // an error shows where the pack is read
	}
}

// packsAhead are the built-in packs a scan with opts reads besides its
// targets': the --from source's, and with placement the CPU's, which soft
// placement falls back to, and the cuda pack a placement without a source
// reads for fusions (Targets.Source). A source a registry file may stand
// in for is left to be read where it is needed.
func packsAhead(opts Options) []string {
	var names []string
	from := opts.From
	if from == "none" {
		from = ""
	}
	if from == "" && !opts.Placement.Disabled {
		from = "cuda"
	}
	if from != "" && len(opts.Registries) == 0 && !slices.Contains(opts.Targets, from) {
		names = append(names, from)
	}
	if !opts.Placement.Disabled {
		names = append(names, "cpu")
	}
	return names
}
