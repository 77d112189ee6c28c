package coverage

import (
	"fmt"
	"slices"
	"strings"

	kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"

	"github.com/tfscan/tfscan/dtype"
)

// PackDiff is what changes between two packs, op by op: which ops one has
// and the other lacks, and for ops both have, which attr dtypes were gained
// or lost. Labeled kernels are left out (they only match nodes carrying a
// _kernel attr); DEFAULT kernels a pack carries are left out too.
type PackDiff struct {
	A, B    string
	Added   []string       `json:"ops_added"`   // ops in B only
	Removed []string       `json:"ops_removed"` // ops in A only
	Changed []OpDTypeDelta `json:"ops_changed"`
	Same    int            `json:"ops_same"`
}

// OpDTypeDelta lists, for one op, the "attr=dtype" pairs only B accepts
// (Added) and only A accepts (Removed). "attr=*" stands for a kernel with
// no constraint on any attr: it accepts every dtype.
type OpDTypeDelta struct {
	Op      string   `json:"op"`
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
}

// DiffPacks compares a with b.
func DiffPacks(a, b *Pack) PackDiff {
	da, db := dtypeSets(a), dtypeSets(b)
	d := PackDiff{A: a.Name, B: b.Name}
	for op := range db {
		if _, ok := da[op]; !ok {
			d.Added = append(d.Added, op)
		}
	}
	for op, sa := range da {
		sb, ok := db[op]
		if !ok {
			d.Removed = append(d.Removed, op)
			continue
		}
		delta := OpDTypeDelta{Op: op}
		for k := range sb {
			if !sa[k] {
				delta.Added = append(delta.Added, k)
			}
		}
		for k := range sa {
			if !sb[k] {
				delta.Removed = append(delta.Removed, k)
			}
		}
		if len(delta.Added)+len(delta.Removed) == 0 {
			d.Same++
			continue
		}
		slices.Sort(delta.Added)
		slices.Sort(delta.Removed)
		d.Changed = append(d.Changed, delta)
	}
	slices.Sort(d.Added)
	slices.Sort(d.Removed)
	slices.SortFunc(d.Changed, func(x, y OpDTypeDelta) int { return strings.Compare(x.Op, y.Op) })
	return d
}

// dtypeSets maps each op of p's own unlabeled kernels to its accepted
// "attr=dtype" pairs.
func dtypeSets(p *Pack) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for _, k := range p.OwnKernels() {
		if k.GetLabel() != "" {
			continue
		}
		s := out[k.GetOp()]
		if s == nil {
			s = map[string]bool{}
			out[k.GetOp()] = s
		}
		typed := false
		for _, c := range k.GetConstraint() {
			l := c.GetAllowedValues().GetList()
			for _, t := range l.GetType() {
				s[c.GetName()+"="+dtype.Name(t)] = true
				typed = true
			}
			for _, i := range l.GetI() {
				s[fmt.Sprintf("%s=%d", c.GetName(), i)] = true
				typed = true
			}
			for _, v := range l.GetS() {
				s[c.GetName()+"="+string(v)] = true
				typed = true
			}
			for _, v := range l.GetB() {
				s[fmt.Sprintf("%s=%t", c.GetName(), v)] = true
				typed = true
			}
		}
		if !typed {
			s["*"] = true
		}
	}
	return out
}

// ConstraintString renders a kernel's constraints as "T in {float16,
// float32}; Tidx in {int32}" for listings.
func ConstraintString(c []*kdpb.KernelDef_AttrConstraint) string {
	var parts []string
	for _, x := range c {
		parts = append(parts, x.GetName()+" in {"+allowedNames(x)+"}")
	}
	return strings.Join(parts, "; ")
}

func allowedNames(c *kdpb.KernelDef_AttrConstraint) string {
	l := c.GetAllowedValues().GetList()
	var vals []string
	for _, t := range l.GetType() {
		vals = append(vals, dtype.Name(t))
	}
	for _, i := range l.GetI() {
		vals = append(vals, fmt.Sprint(i))
	}
	for _, s := range l.GetS() {
		vals = append(vals, fmt.Sprintf("%q", s))
	}
	for _, b := range l.GetB() {
		vals = append(vals, fmt.Sprint(b))
	}
	return strings.Join(vals, ", ")
}
