package scan

import (
	"io"

	"github.com/tfscan/tfscan/coverage"
)

// The words of the registry packs the command line passes through without
// reading packs itself: a stack's settings (--precision-mode,
// --stack-option), a pack's confidence level (--min-confidence) and how a
// stack runs its kernels.
type (
	StackSettings = coverage.StackSettings
	Level         = coverage.Level
	Mechanism     = coverage.Mechanism
)

// MechanismKernel is a stack that registers TensorFlow kernels.
const MechanismKernel = coverage.MechanismKernel

// WritePack writes a pack (a learned one: explain --learn-registry) as
// `--registry` reads it.
func WritePack(w io.Writer, p *coverage.Pack) error { return coverage.WritePack(w, p) }
