package scan

import (
	"cmp"
	"slices"
	"strings"
	"sync"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/coverage/placement"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/training"
)

// applyCollectives says what a training step's collective ops exchange
// per step and what runs them on target t (reports.Collectives): the
// stack's collective library where one is known (training.LibraryOf),
// otherwise the RingReduce TensorFlow falls back to over device copies,
// and the copies of ReductionToOneDevice.
func applyCollectives(t *reports.Target, ts Target, g *graph.Graph, ns *Nodes) {
	if t.Training == nil {
		return
	}
	c := training.FindCollectives(g, ns.shapesFor(g, placement.Options{}).Bytes)
	if c == nil {
		return
	}
	offDevice := map[string]bool{}
	for k := range t.Nodes {
		if nr := &t.Nodes[k]; t.LeavesDevice(nr) {
			offDevice[nr.Path] = true
		}
	}
	onCPU := map[training.CollectiveOp]int{} // by op and hint, Count 0
	for _, n := range g.Nodes {
		if i := ns.posOf(g, n); i >= 0 && offDevice[ns.path(i)] {
			onCPU[training.CollectiveOp{Op: n.Op, Hint: string(n.Attrs["communication_hint"].GetS())}]++
		}
	}
	rc := &reports.Collectives{Replicas: c.Replicas, ReduceBytes: c.PerReplica(), ReduceBytesKnown: c.Known}
	for _, o := range c.Ops {
		rc.Ops = append(rc.Ops, reports.CollectiveOp{Op: o.Op, Hint: o.Hint, Count: o.Count,
			OnCPU: onCPU[training.CollectiveOp{Op: o.Op, Hint: o.Hint}]})
	}
	pack := ts.Index.Info().Name
	lib, hasLib := training.LibraryOf(pack)
	if hasLib {
		rc.Library = &reports.CollectiveLibrary{Name: lib.Name, Via: lib.Via, Source: lib.Source}
	}
	switch {
	case hasLib && usesLibrary(c, ts.Index):
		rc.Runs = "NcclReduce with " + lib.Name
		rc.RunsSource = lib.Source
	default:
		rc.Runs = "RingReduce over device-to-device copies"
		if hasLib {
			rc.Runs += " (the graph's ops do not reach " + lib.Name + ")"
		}
		rc.RunsSource = training.RingSource
		rc.Copies, rc.CopyBytes = c.RingCost()
		if !hasLib {
			copies, bytes := c.OneDeviceCost()
			rc.OneDevice = &reports.CollectiveCost{Copies: copies, Bytes: bytes, Source: training.ReductionToOneDeviceSource}
		}
	}
	t.Training.Collectives = rc
}

// usesLibrary tells whether the graph's all-reduce reaches an NCCL-like
// library on a target whose stack has one: NcclAllReduce nodes with a
// kernel on the target, or collective nodes with the nccl hint
// (collective_param_resolver_local.cc:696-701; CollectiveReduceV2 is a
// DEFAULT kernel every device has).
func usesLibrary(c *training.Collectives, ix *coverage.Index) bool {
	for _, n := range c.ReduceNodes {
		switch {
		case n.Op == "NcclAllReduce" && ix.HasOp(n.Op):
			return true
		case strings.EqualFold(string(n.Attrs["communication_hint"].GetS()), "nccl"):
			return true
		}
	}
	return false
}

// xlaPacks caches the indexes of the built-in XLA packs, shared by every
// scan.
var xlaPacks sync.Map // pack name -> *coverage.Index or error

func xlaIndex(name string) (*coverage.Index, error) {
	if v, ok := xlaPacks.Load(name); ok {
		if err, isErr := v.(error); isErr {
			return nil, err
		}
		return v.(*coverage.Index), nil
	}
	p, err := coverage.BuiltinPackLazy(name)
	if err != nil {
		xlaPacks.Store(name, err)
		return nil, err
	}
	ix := coverage.NewIndex(p, nil)
	v, _ := xlaPacks.LoadOrStore(name, ix)
	return v.(*coverage.Index), nil
}

// xlaDeviceOf is the XLA device target t compiles functions for
// (training.XLADeviceOf) and the index of its kernels; a nil index for a
// target without one.
func xlaDeviceOf(t Target) (training.XLADevice, *coverage.Index, error) {
	p := t.Index.Info()
	mech := string(p.Mechanism)
	if p.Derived != nil && p.Mechanism == coverage.MechanismDerived {
		mech = string(p.Derived.BaseMechanism)
	}
	dev, ok := training.XLADeviceOf(p.Name, mech, p.Source)
	switch {
	case !ok:
		return dev, nil, nil
	case dev.Pack == p.Name:
		return dev, t.Index, nil
	}
	ix, err := xlaIndex(dev.Pack)
	return dev, ix, err
}

// applyXLA checks the functions g marks for XLA compilation on target t
// (reports.XLA): against the kernels of the stack's XLA device where it
// has one (training.XLADeviceOf), and otherwise says they run op by op.
func applyXLA(t *reports.Target, ts Target, g *graph.Graph, ns *Nodes) error {
	fns := ns.compiled(g)
	if len(fns) == 0 {
		return nil
	}
	x := &reports.XLA{Source: training.NoXLASource, Functions: []reports.XLAFunction{}}
	dev, ix, err := xlaDeviceOf(ts)
	if err != nil {
		return err
	}
	if ix != nil {
		x.Device, x.Source = dev.Pack, dev.Source
	}
	for _, cf := range fns {
		f := reports.XLAFunction{Function: cf.Fn.Name, Caller: cf.Caller.Path(), Compiled: ix != nil}
		type key struct{ op, dtypes string }
		missing := map[key]int{}
		for _, body := range cf.Bodies {
			for _, n := range body.Nodes {
				i := ns.posOf(g, n)
				if i < 0 || !ns.counts(n) {
					continue
				}
				f.Nodes++
				if ix == nil || ns.match(ix, i).Reason.Covered() {
					continue
				}
				f.Compiled = false
				k := key{n.Op, strings.Join(ns.dtypesOf(i), ",")}
				if _, seen := missing[k]; !seen {
					f.Missing = append(f.Missing, reports.TrainingOp{Op: n.Op, DTypes: ns.dtypesOf(i)})
				}
				missing[k]++
			}
		}
		for j := range f.Missing {
			o := &f.Missing[j]
			o.Count = missing[key{o.Op, strings.Join(o.DTypes, ",")}]
			if o.DTypes == nil {
				o.DTypes = []string{}
			}
		}
		slices.SortFunc(f.Missing, func(a, b reports.TrainingOp) int {
			return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Op, b.Op))
		})
		x.Functions = append(x.Functions, f)
	}
	t.XLA = x
	return nil
}
