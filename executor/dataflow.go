package executor

import (
	"context"
	"errors"
	"fmt"
	"strings"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/kernels"
)

// The dataflow engine. It follows TensorFlow's executor and propagator
// (tensorflow/core/common_runtime/propagator_state.cc): values flow along
// edges tagged with a frame and an iteration; a node instance runs when all
// its inputs for that tag have arrived; a dead input (from the untaken side
// of a Switch) makes the node's outputs dead without running it, except
// that Merge runs on its first live input and is dead only when all its data
// inputs are dead (or a dead Enter feeds it, as for a loop in an untaken
// cond branch). Enter moves a value into a child frame (constant Enters
// into every iteration), NextIteration into the next iteration (dead ones
// are dropped, which ends the loop), Exit back to the parent frame (dead
// Exits of a frame's last iteration are passed on when the frame is done).
// Execution is sequential and FIFO, so runs are deterministic.

// feed is a fed top-level tensor.
type feed struct {
	ref TensorRef
	t   *kernels.Tensor
}

// slot is one value on an edge: a tensor, a reference to a TF1 variable,
// or dead.
type slot struct {
	t    *kernels.Tensor
	ref  *kernels.RefVar
	dead bool
}

// plan is the part of a scope one set of feeds and fetches needs.
type plan struct {
	needed  []bool
	sources []int // needed nodes without inputs
}

func (s *scope) planFor(roots []*graph.Node, fed map[outKey]bool) (*plan, error) {
	var key strings.Builder
	for _, r := range roots {
		fmt.Fprintf(&key, "%d,", s.local[r])
	}
	key.WriteString("|")
	for _, k := range sortedOutKeys(fed) {
		fmt.Fprintf(&key, "%d:%d,", k.node, k.out)
	}
	if p, ok := s.plans[key.String()]; ok {
		return p, nil
	}
	p := &plan{needed: make([]bool, len(s.nodes))}
	stack := make([]int, 0, len(roots))
	for _, r := range roots {
		i, ok := s.local[r]
		if !ok {
			return nil, fmt.Errorf("node %s is not in this scope", r.Name)
		}
		if !p.needed[i] {
			p.needed[i] = true
			stack = append(stack, i)
		}
	}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := s.nodes[i]
		for k, in := range n.Inputs {
			if in.Node == nil {
				if s.fn == nil || in.Arg < 0 {
					return nil, fmt.Errorf("%s (%s): input %d names no node", nodePath(n), n.Op, k)
				}
				continue
			}
			j, ok := s.local[in.Node]
			if !ok {
				return nil, fmt.Errorf("%s (%s): input %s:%d is outside the scope", nodePath(n), n.Op, in.Node.Name, in.Output)
			}
			if fed[outKey{j, int(in.Output)}] || p.needed[j] {
				continue
			}
			p.needed[j] = true
			stack = append(stack, j)
		}
		for _, c := range n.ControlInputs() {
			j, ok := s.local[c]
			if !ok || p.needed[j] || feedTakesControl(c, fed[outKey{j, 0}]) {
				continue
			}
			p.needed[j] = true
			stack = append(stack, j)
		}
	}
	for i, n := range s.nodes {
		if p.needed[i] && len(n.Inputs) == 0 && len(n.ControlInputs()) == 0 {
			p.sources = append(p.sources, i)
		}
	}
	s.plans[key.String()] = p
	return p, nil
}

type outKey struct{ node, out int }

// feedTakesControl reports whether feeding n (fed: its output 0 is fed)
// also hands n's outgoing control edges to the feed, so that they fire
// when the feed arrives and n itself never runs. TensorFlow rewrites a fed
// tensor into a feed node (_Arg or _Recv) and moves the fed output's data
// edges to it; a fed Placeholder's control edges move too, every other fed
// node keeps them and runs when a control consumer needs it
// (tensorflow/core/graph/subgraph.cc, FeedInputs, lines 86-114 in 2.15).
func feedTakesControl(n *graph.Node, fed bool) bool {
	return fed && (n.Op == "Placeholder" || n.Op == "PlaceholderV2")
}

func sortedOutKeys(m map[outKey]bool) []outKey {
	keys := make([]outKey, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && (keys[j].node < keys[j-1].node || keys[j].node == keys[j-1].node && keys[j].out < keys[j-1].out); j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

// frame is one activation of a v1 while loop's frame (or the root).
type frame struct {
	parent     *frame
	parentIter int
	name       string
	depth      int
	iters      []*iteration
	children   map[string]*frame
	loopInvs   []loopInv
	deadExits  []int
}

type loopInv struct {
	node int
	val  slot
}

type iteration struct {
	pending map[int]*pendingIn
}

// pendingIn collects one node instance's inputs.
type pendingIn struct {
	vals              []slot
	dataLeft, ctlLeft int
	liveIdx           int
	dead, live, fired bool
}

type task struct {
	fr   *frame
	iter int
	node int
	in   []slot
	dead bool
}

// runState is one execution of a scope.
type runState struct {
	e         *Executor
	ctx       context.Context
	sc        *scope
	pl        *plan
	args      []slot
	callAttrs map[string]*attrpb.AttrValue
	depth     int
	fed       map[outKey]bool

	root   *frame
	frames []*frame
	queue  []task
	head   int

	fetchAt map[outKey][]int
	results []slot
	got     []bool
	steps   int

	// live counts the readers still to run of each tensor whose buffer
	// goes back to the pool after them (buffers.go).
	live map[*kernels.Tensor]int32
}

// run executes the top-level scope.
func (e *Executor) run(ctx context.Context, feeds []feed, fetches []TensorRef, targets []*graph.Node) ([]*kernels.Tensor, error) {
	fed := map[outKey]bool{}
	for _, f := range feeds {
		fed[outKey{e.top.local[f.ref.Node], f.ref.Output}] = true
	}
	roots := append([]*graph.Node(nil), targets...)
	for _, f := range fetches {
		if !fed[outKey{e.top.local[f.Node], f.Output}] {
			roots = append(roots, f.Node)
		}
	}
	rs := &runState{e: e, ctx: ctx, sc: e.top, fed: fed}
	outs := make([]outKey, len(fetches))
	for i, f := range fetches {
		outs[i] = outKey{e.top.local[f.Node], f.Output}
	}
	vals, err := rs.execute(roots, outs, func() error {
		for _, f := range feeds {
			v, err := e.num.Import(f.t)
			if err != nil {
				return fmt.Errorf("feed %s:%d: %w", f.ref.Node.Name, f.ref.Output, err)
			}
			i := e.top.local[f.ref.Node]
			rs.deliverOutput(rs.root, 0, i, f.ref.Output, slot{t: v})
			if feedTakesControl(f.ref.Node, f.ref.Output == 0) {
				for _, ed := range e.top.out[i] {
					if ed.srcSlot < 0 && rs.pl.needed[ed.dst] {
						rs.deliver(rs.root, 0, ed.dst, -1, slot{}, false)
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	res := make([]*kernels.Tensor, len(fetches))
	for i, v := range vals {
		if v.dead {
			return nil, fmt.Errorf("fetched tensor %s:%d is dead (it lies on an untaken branch of a conditional)", fetches[i].Node.Name, fetches[i].Output)
		}
		t, err := rs.deref(v, fetches[i].Node)
		if err != nil {
			return nil, err
		}
		res[i] = t
	}
	return res, nil
}

// callFunction runs function f on args (already live tensors) and returns
// its results.
//
// Calls nest as deep as the model's functions do: graph.Build refuses
// recursion, so a chain of calls holds each library function at most once
// and is at most as deep as the library is long (TensorFlow sets no depth
// limit of its own). Each level runs on the Go stack, which a goroutine
// may grow only to 1 GB before the runtime aborts the process; so every
// callHop levels the call continues on a fresh goroutine, and a chain of
// any depth costs stack in proportion to its depth, as its functions cost
// memory in proportion to their number.
func (rs *runState) callFunction(f *graph.Function, args []*kernels.Tensor, attrs map[string]*attrpb.AttrValue, caller *graph.Node) ([]*kernels.Tensor, error) {
	if rs.depth+1 > rs.e.maxCallDepth {
		return nil, fmt.Errorf("%s (%s): function calls nested deeper than %d (recursion?)", nodePath(caller), caller.Op, rs.e.maxCallDepth)
	}
	if (rs.depth+1)%callHop == 0 {
		return onFreshStack(func() ([]*kernels.Tensor, error) { return rs.callOn(f, args, attrs, caller) })
	}
	return rs.callOn(f, args, attrs, caller)
}

// callHop is how many nested calls share one goroutine's stack (about
// 3 KiB of stack each, so at most about 1 MiB per goroutine).
const callHop = 256

// onFreshStack runs fn on a new goroutine and waits for it; a panic there
// is raised again here, so that execSafe's recover still sees it.
func onFreshStack(fn func() ([]*kernels.Tensor, error)) ([]*kernels.Tensor, error) {
	type result struct {
		out      []*kernels.Tensor
		err      error
		panicked bool
		value    any
	}
	done := make(chan result, 1)
	go func() {
		var r result
		defer func() {
			if v := recover(); v != nil {
				r = result{panicked: true, value: v}
			}
			done <- r
		}()
		r.out, r.err = fn()
	}()
	r := <-done
	if r.panicked {
		panic(r.value)
	}
	return r.out, r.err
}

// callOn is callFunction on the current goroutine.
func (rs *runState) callOn(f *graph.Function, args []*kernels.Tensor, attrs map[string]*attrpb.AttrValue, caller *graph.Node) ([]*kernels.Tensor, error) {
	sc := rs.e.scopeFor(f)
	if sc.retErr != nil {
		return nil, sc.retErr
	}
	want := len(f.Def.GetSignature().GetInputArg())
	if len(args) != want {
		return nil, fmt.Errorf("%s (%s): function %s takes %d arguments, got %d", nodePath(caller), caller.Op, f.Name, want, len(args))
	}
	sub := &runState{e: rs.e, ctx: rs.ctx, sc: sc, callAttrs: attrs, depth: rs.depth + 1, fed: map[outKey]bool{}}
	sub.args = make([]slot, len(args))
	for i, a := range args {
		sub.args[i] = slot{t: a}
	}
	roots := append([]*graph.Node(nil), sc.controlRets...)
	var outs []outKey
	var outPos []int
	res := make([]*kernels.Tensor, len(sc.rets))
	for i, r := range sc.rets {
		if r.node == nil {
			res[i] = args[r.arg]
			continue
		}
		roots = append(roots, r.node)
		outs = append(outs, outKey{sc.local[r.node], r.output})
		outPos = append(outPos, i)
	}
	vals, err := sub.execute(roots, outs, func() error {
		for a, uses := range sc.argUses {
			for _, u := range uses {
				if sub.pl.needed[u.dst] {
					sub.deliver(sub.root, 0, u.dst, u.dstSlot, sub.args[a], false)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for k, v := range vals {
		if v.dead {
			return nil, fmt.Errorf("function %s: result %d is dead", f.Name, outPos[k])
		}
		t, err := sub.deref(v, caller)
		if err != nil {
			return nil, err
		}
		res[outPos[k]] = t
	}
	return res, nil
}

// execute runs the plan for roots and returns the values of outs.
func (rs *runState) execute(roots []*graph.Node, outs []outKey, seed func() error) ([]slot, error) {
	pl, err := rs.sc.planFor(roots, rs.fed)
	if err != nil {
		return nil, err
	}
	rs.pl = pl
	rs.root = &frame{}
	rs.frames = []*frame{rs.root}
	rs.root.iters = []*iteration{{pending: map[int]*pendingIn{}}}
	rs.fetchAt = map[outKey][]int{}
	for i, o := range outs {
		rs.fetchAt[o] = append(rs.fetchAt[o], i)
	}
	rs.results = make([]slot, len(outs))
	rs.got = make([]bool, len(outs))
	if err := seed(); err != nil {
		return nil, err
	}
	for _, i := range pl.sources {
		rs.queue = append(rs.queue, task{fr: rs.root, node: i})
	}
	for {
		for rs.head < len(rs.queue) {
			t := rs.queue[rs.head]
			rs.queue[rs.head] = task{}
			rs.head++
			if err := rs.step(t); err != nil {
				return nil, err
			}
		}
		rs.queue, rs.head = rs.queue[:0], 0
		if !rs.flushDeadExits() {
			break
		}
	}
	for i, ok := range rs.got {
		if !ok {
			o := outs[i]
			return nil, fmt.Errorf("%s:%d was never computed: an input it needs was not produced (a dead or missing value, or a malformed loop)", nodePath(rs.sc.nodes[o.node]), o.out)
		}
	}
	return rs.results, nil
}

// step runs one node instance and passes its outputs on.
func (rs *runState) step(t task) error {
	rs.steps++
	if rs.steps&63 == 0 {
		if err := rs.ctx.Err(); err != nil {
			return err
		}
	}
	n := rs.sc.nodes[t.node]
	dead := t.dead
	if dead && n.Op == "ControlTrigger" {
		dead = false
	}
	var outs []slot
	if !dead {
		var err error
		outs, err = rs.execSafe(n, t)
		if err != nil {
			return err
		}
		if rs.e.opts.AfterNode != nil {
			obs := make([]*kernels.Tensor, len(outs))
			for i, o := range outs {
				if !o.dead {
					if o.ref != nil {
						obs[i] = o.ref.Value
					} else {
						obs[i] = o.t
					}
				}
			}
			rs.e.opts.AfterNode(n, obs)
		}
	}
	if rs.reusing() {
		rs.release(t.node, t.in, outs, !dead)
	}
	return rs.propagate(t.fr, t.iter, t.node, outs, dead)
}

// propagate sends a node instance's outputs along its out-edges, moving
// between frames for Enter, Exit and NextIteration.
func (rs *runState) propagate(fr *frame, iter, i int, outs []slot, dead bool) error {
	n := rs.sc.nodes[i]
	out := func(k int) slot {
		if dead || k >= len(outs) {
			return slot{dead: true}
		}
		return outs[k]
	}
	if fr == rs.root && iter == 0 && !isExit(n) && !isEnter(n) {
		for k := range outs {
			rs.record(i, k, out(k))
		}
		if dead {
			for k := range rs.fetchAt {
				if k.node == i {
					rs.record(i, k.out, slot{dead: true})
				}
			}
		}
	}
	switch {
	case isEnter(n):
		name := string(n.Attrs["frame_name"].GetS())
		child, err := rs.childFrame(fr, iter, name)
		if err != nil {
			return fmt.Errorf("%s (%s): %w", nodePath(n), n.Op, err)
		}
		if n.Attrs["is_constant"].GetB() {
			v := out(0)
			child.loopInvs = append(child.loopInvs, loopInv{node: i, val: v})
			for it := range child.iters {
				rs.sendEdges(child, it, i, v, dead)
			}
			return nil
		}
		rs.sendEdges(child, 0, i, out(0), dead)
	case isExit(n):
		if dead {
			if iter == len(fr.iters)-1 {
				fr.deadExits = append(fr.deadExits, i)
			}
			return nil
		}
		if fr.parent == nil {
			return fmt.Errorf("%s (%s): Exit outside any loop frame", nodePath(n), n.Op)
		}
		if fr.parent == rs.root && fr.parentIter == 0 {
			rs.record(i, 0, out(0))
		}
		rs.sendEdges(fr.parent, fr.parentIter, i, out(0), false)
	case isNextIteration(n):
		if dead {
			return nil
		}
		if fr.parent == nil {
			return fmt.Errorf("%s (%s): NextIteration outside any loop frame", nodePath(n), n.Op)
		}
		if iter+1 >= len(fr.iters) {
			if len(fr.iters) >= rs.e.opts.MaxIterations {
				return fmt.Errorf("%s (%s): loop %q ran more than %d iterations", nodePath(n), n.Op, fr.name, rs.e.opts.MaxIterations)
			}
			fr.iters = append(fr.iters, &iteration{pending: map[int]*pendingIn{}})
			fr.deadExits = fr.deadExits[:0]
			rs.sendEdges(fr, iter+1, i, out(0), false)
			for _, inv := range fr.loopInvs {
				rs.sendEdges(fr, iter+1, inv.node, inv.val, inv.val.dead)
			}
			return nil
		}
		rs.sendEdges(fr, iter+1, i, out(0), false)
	default:
		for _, e := range rs.sc.out[i] {
			if !rs.pl.needed[e.dst] {
				continue
			}
			if e.srcSlot < 0 {
				rs.deliver(fr, iter, e.dst, -1, slot{dead: dead}, dead)
				continue
			}
			if rs.fed[outKey{i, e.srcSlot}] {
				continue
			}
			v := out(e.srcSlot)
			rs.deliver(fr, iter, e.dst, e.dstSlot, v, false)
		}
	}
	return nil
}

// sendEdges passes output 0 (Enter/Exit/NextIteration have one) and control
// edges of node i into (fr, iter).
func (rs *runState) sendEdges(fr *frame, iter, i int, v slot, dead bool) {
	if dead {
		v = slot{dead: true}
	}
	for _, e := range rs.sc.out[i] {
		if !rs.pl.needed[e.dst] {
			continue
		}
		if e.srcSlot < 0 {
			rs.deliver(fr, iter, e.dst, -1, slot{dead: v.dead}, v.dead)
			continue
		}
		rs.deliverFrom(fr, iter, e.dst, e.dstSlot, v, isEnter(rs.sc.nodes[i]))
	}
}

// deliverOutput delivers a fed value to the consumers of (node, out).
func (rs *runState) deliverOutput(fr *frame, iter, i, k int, v slot) {
	rs.record(i, k, v)
	for _, e := range rs.sc.out[i] {
		if e.srcSlot == k && rs.pl.needed[e.dst] {
			rs.deliver(fr, iter, e.dst, e.dstSlot, v, false)
		}
	}
}

func (rs *runState) record(i, k int, v slot) {
	for _, pos := range rs.fetchAt[outKey{i, k}] {
		if !rs.got[pos] || rs.results[pos].dead {
			rs.results[pos] = v
			rs.got[pos] = true
		}
	}
}

func (rs *runState) deliver(fr *frame, iter, dst, dstSlot int, v slot, _ bool) {
	rs.deliverFrom(fr, iter, dst, dstSlot, v, false)
}

// deliverFrom hands one input to a node instance and queues the instance
// when it is ready. fromEnter marks values coming out of an Enter (a dead
// one makes a Merge dead at once).
func (rs *runState) deliverFrom(fr *frame, iter, dst, dstSlot int, v slot, fromEnter bool) {
	it := fr.iters[iter]
	p := it.pending[dst]
	if p == nil {
		p = &pendingIn{dataLeft: rs.sc.numData[dst], ctlLeft: rs.sc.numCtl[dst]}
		if rs.sc.numData[dst] > 0 {
			p.vals = make([]slot, rs.sc.numData[dst])
		}
		it.pending[dst] = p
	}
	if p.fired {
		return
	}
	if rs.sc.isMerge[dst] {
		switch {
		case dstSlot < 0:
			p.ctlLeft--
		case !v.dead:
			if !p.live {
				p.live = true
				p.vals[dstSlot] = v
				p.liveIdx = dstSlot
			}
		default:
			p.dataLeft--
			if fromEnter {
				p.dead = true
			}
		}
		if p.ctlLeft > 0 {
			return
		}
		if p.live {
			p.fired = true
			idx := p.liveIdx
			in := []slot{p.vals[idx], {t: kernels.ScalarInt32(int32(idx))}}
			rs.queue = append(rs.queue, task{fr: fr, iter: iter, node: dst, in: in})
			return
		}
		if p.dataLeft == 0 || p.dead {
			p.fired = true
			rs.queue = append(rs.queue, task{fr: fr, iter: iter, node: dst, dead: true})
		}
		return
	}
	if dstSlot < 0 {
		p.ctlLeft--
		if v.dead {
			p.dead = true
		}
	} else {
		p.dataLeft--
		p.vals[dstSlot] = v
		if v.dead {
			p.dead = true
		}
	}
	if p.dataLeft == 0 && p.ctlLeft == 0 {
		delete(it.pending, dst)
		rs.queue = append(rs.queue, task{fr: fr, iter: iter, node: dst, in: p.vals, dead: p.dead})
	}
}

// childFrame finds or creates the frame an Enter in (fr, iter) enters.
func (rs *runState) childFrame(fr *frame, iter int, name string) (*frame, error) {
	key := fmt.Sprintf("%d/%s", iter, name)
	if c, ok := fr.children[key]; ok {
		return c, nil
	}
	if fr.depth >= 100 {
		return nil, errors.New("loops nested more than 100 deep")
	}
	if fr.children == nil {
		fr.children = map[string]*frame{}
	}
	c := &frame{parent: fr, parentIter: iter, name: name, depth: fr.depth + 1,
		iters: []*iteration{{pending: map[int]*pendingIn{}}}}
	fr.children[key] = c
	rs.frames = append(rs.frames, c)
	return c, nil
}

// flushDeadExits passes on the dead Exits of quiescent frames, innermost
// first; it reports whether anything was queued.
func (rs *runState) flushDeadExits() bool {
	for k := len(rs.frames) - 1; k >= 0; k-- {
		fr := rs.frames[k]
		if len(fr.deadExits) == 0 || fr.parent == nil {
			continue
		}
		exits := fr.deadExits
		fr.deadExits = nil
		for _, i := range exits {
			if fr.parent == rs.root && fr.parentIter == 0 {
				rs.record(i, 0, slot{dead: true})
			}
			rs.sendEdges(fr.parent, fr.parentIter, i, slot{dead: true}, true)
		}
		if rs.head < len(rs.queue) {
			return true
		}
	}
	return rs.head < len(rs.queue)
}

func isEnter(n *graph.Node) bool { return n.Op == "Enter" || n.Op == "RefEnter" }
func isExit(n *graph.Node) bool  { return n.Op == "Exit" || n.Op == "RefExit" }
func isNextIteration(n *graph.Node) bool {
	return n.Op == "NextIteration" || n.Op == "RefNextIteration"
}

func nodePath(n *graph.Node) string { return n.Path() }

// InternalError reports a kernel that panicked: a bug in tfscan, not in
// the model. The run stops with it instead of crashing.
type InternalError struct {
	Op, Path string
	Value    any
}

func (e *InternalError) Error() string {
	return fmt.Sprintf("%s (%s): kernel panicked: %v (a tfscan bug)", e.Path, e.Op, e.Value)
}

// execSafe runs exec, turning a kernel panic into an *InternalError.
func (rs *runState) execSafe(n *graph.Node, t task) (outs []slot, err error) {
	defer func() {
		if r := recover(); r != nil {
			outs, err = nil, &InternalError{Op: n.Op, Path: nodePath(n), Value: r}
		}
	}()
	return rs.exec(n, t)
}
