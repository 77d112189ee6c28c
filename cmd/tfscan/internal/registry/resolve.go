package registry

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/tfscan/tfscan/coverage"
)

// resolvePacks reads arg as a registry file when one exists at that path
// (relative to dir), otherwise as the name of a built-in pack.
func resolvePacks(dir, arg string) ([]*coverage.Pack, error) {
	path := abs(dir, arg)
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		packs, err := coverage.LoadRegistryFile(path)
		if err != nil {
			return nil, inputError(err)
		}
		return packs, nil
	}
	if strings.ContainsAny(arg, `/\`) || strings.HasSuffix(arg, ".json") || strings.HasSuffix(arg, ".gz") || strings.HasSuffix(arg, ".pbtxt") || strings.HasSuffix(arg, ".pb") {
		return nil, inputError(fmt.Errorf("%s: no such file", arg))
	}
	p, err := coverage.BuiltinPack(arg)
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	return []*coverage.Pack{p}, nil
}

// builtinArg reports whether resolvePacks reads arg as a built-in pack's
// name rather than a file.
func builtinArg(dir, arg string) bool {
	st, err := os.Stat(abs(dir, arg))
	return (err != nil || st.IsDir()) && !strings.ContainsAny(arg, `/\`)
}

func resolveOnePack(dir, arg string) (*coverage.Pack, error) {
	packs, err := resolvePacks(dir, arg)
	if err != nil {
		return nil, err
	}
	if len(packs) == 1 {
		return packs[0], nil
	}
	var names []string
	for _, p := range packs {
		names = append(names, p.Name)
	}
	return nil, usageErrorf("%s holds %d device types (%s); import one with `tfscan registry import --device-type`", arg, len(packs), strings.Join(names, ", "))
}

// writePackFile writes p to path (relative to dir), gzip-compressed when
// the name ends in .gz.
func writePackFile(dir, path string, p *coverage.Pack) error {
	err := coverage.WritePackFile(abs(dir, path), p)
	var pe *coverage.PackPathError
	if errors.As(err, &pe) {
		return &UsageError{Err: pe.Err}
	}
	return err
}

// checkPackName is coverage.CheckPackName as a UsageError.
func checkPackName(name string) error {
	if err := coverage.CheckPackName(name); err != nil {
		return &UsageError{Err: err}
	}
	return nil
}
