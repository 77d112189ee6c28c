package registry

import (
	"fmt"
	"io"
	"strings"

	"github.com/tfscan/tfscan/coverage"
)

// DiffOptions names the two packs `registry diff` compares: files relative
// to Dir, or built-in packs' names.
type DiffOptions struct {
	Dir  string
	A, B string
	JSON bool
}

// Diff writes the ops B gains and loses against A and the ops whose
// dtypes differ.
func Diff(w io.Writer, o DiffOptions) error {
	a, err := resolveOnePack(o.Dir, o.A)
	if err != nil {
		return err
	}
	b, err := resolveOnePack(o.Dir, o.B)
	if err != nil {
		return err
	}
	d := coverage.DiffPacks(a, b)
	if o.JSON {
		return writeJSON(w, d)
	}
	fmt.Fprintf(w, "%s -> %s: %d ops gained, %d lost, %d with dtype changes, %d unchanged\n", d.A, d.B, len(d.Added), len(d.Removed), len(d.Changed), d.Same)
	for _, op := range d.Added {
		fmt.Fprintf(w, "+ %s\n", op)
	}
	for _, op := range d.Removed {
		fmt.Fprintf(w, "- %s\n", op)
	}
	for _, c := range d.Changed {
		var parts []string
		for _, x := range c.Added {
			parts = append(parts, "+"+x)
		}
		for _, x := range c.Removed {
			parts = append(parts, "-"+x)
		}
		fmt.Fprintf(w, "~ %s: %s\n", c.Op, strings.Join(parts, " "))
	}
	return nil
}
