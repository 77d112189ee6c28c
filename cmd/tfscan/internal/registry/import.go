package registry

import (
	"fmt"
	"io"

	"github.com/tfscan/tfscan/coverage"
)

// ImportOptions is what `registry import` makes a pack of: a live dump
// (tools/dump_registry.py) and the pack's name and provenance.
type ImportOptions struct {
	Dir        string // working directory Dump and Out are relative to
	Dump       string
	Out        string // the pack file to write (.json or .json.gz)
	Name       string
	Vendor     string
	DeviceType string // the device type to keep; empty: the dump's only accelerator type
	Source     string // overrides "live dump from <host/stack>"
	Date       string // overrides the dump's date
	TFVersion  string // overrides the dump's TensorFlow version
}

// Import reads a live dump, writes one device type's pack to Out and says
// what it wrote on log.
func Import(log io.Writer, o ImportOptions) error {
	if err := checkPackName(o.Name); err != nil {
		return err
	}
	d, err := coverage.ReadDumpFile(abs(o.Dir, o.Dump))
	if err != nil {
		return inputError(err)
	}
	p, err := d.Pack(coverage.ImportOptions{Name: o.Name, Vendor: o.Vendor, DeviceType: o.DeviceType, Source: o.Source, Date: o.Date, TFVersion: o.TFVersion})
	if err != nil {
		return inputError(fmt.Errorf("%s: %w", o.Dump, err))
	}
	if err := writePackFile(o.Dir, o.Out, p); err != nil {
		return err
	}
	host := len(p.HostKernels())
	fmt.Fprintf(log, "wrote %s: %s, %d kernels for %d ops on %s (+%d DEFAULT kernels, %d CPU kernels of this build, %d vendor OpDefs)\n",
		o.Out, p.Name, len(p.OwnKernels()), len(p.Ops()), p.DeviceType, len(p.Kernels)-len(p.OwnKernels())-host, host, len(p.OpDefs))
	return nil
}
