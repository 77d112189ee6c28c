package coverage

import (
	"bytes"
	"slices"
	"sync"

	kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"
)

// Built-in packs read lazily. A scan looks up the kernels of the few dozen
// ops its model has, in the CPU pack (9,184 kernels), its source's and its
// target's: decoding every kernel of the three is most of what a scan of a
// small model costs. A lazily read pack is read once to find where each
// kernel is, its op and its device type, and the kernels of an op are
// decoded the first time an Index asks for them, by the decoder that reads
// whole packs (packfast.go); a kernel not in WritePack's shape goes to
// protojson there as it does here. TestLazyPacksReadAsBuiltinPack checks
// every built-in pack's ops against the whole decode.

// lazyKernels are a pack's kernels, found but not yet decoded.
type lazyKernels struct {
	// name is the built-in pack's: complete decodes it whole.
	name string
	data []byte
	// at is each op's kernels: where in starts they are, in pack order;
	// starts is where each kernel starts in data. A pack lists an op's
	// kernels together (WritePack sorts them by op).
	at     map[string]kernelSpan
	starts []int32
	// last is the op whose kernels are being found, and where in starts
	// they begin.
	last opRun
	// devices are the device types the kernels name, each once.
	devices []string

	mu      sync.Mutex
	d       *kernelDecoder
	decoded map[string][]*kdpb.KernelDef
}

var builtinLazy sync.Map // string → func() (*Pack, error)

// BuiltinPackLazy is BuiltinPack for a caller that looks the pack's kernels
// up through an Index (NewIndex) and reads the rest of the pack: its
// Kernels field is nil, and an op's kernels are decoded the first time an
// index asks for them. Index.Pack gives the pack with every kernel. A pack
// with kernels of a third device type (a live dump's CPU kernels, which
// Pack.HostPack reads) is decoded whole.
func BuiltinPackLazy(name string) (*Pack, error) {
	if err := checkBuiltin(name); err != nil {
		return nil, err
	}
	return readOnce(&builtinLazy, name, readBuiltinLazy)
}

// readBuiltinLazy reads the embedded pack name lazily, or whole where it
// cannot.
func readBuiltinLazy(name string) (*Pack, error) {
	if data, err := builtinFile(name); err == nil {
		if p, ok := parsePackLazy(name, data); ok && p.Name == name {
			return p, nil
		}
	}
	return loadBuiltin(name) // whole, or its error
}

// parsePackLazy reads the document data of the built-in pack name as
// parsePackFast does, but for its kernels, which it only finds; false
// where it cannot, or where the kernels name a device type other than the
// pack's and DEFAULT.
func parsePackLazy(name string, data []byte) (*Pack, bool) {
	// The built-in packs' kernel lines are under 200 bytes, and an op's
	// kernels about a kilobyte.
	lk := &lazyKernels{name: name, data: data, at: make(map[string]kernelSpan, len(data)/1024),
		starts: make([]int32, 0, len(data)/128), decoded: map[string][]*kdpb.KernelDef{}}
	d := newKernelDecoder()
	d.index = lk
	p, ok := d.pack(data)
	if !ok || p.Validate() != nil {
		return nil, false
	}
	for _, dev := range lk.devices {
		if dev != p.DeviceType && dev != DeviceDefault {
			return nil, false
		}
	}
	d.index, lk.d = nil, d
	p.lazy = lk
	return p, true
}

// array records the kernels array at b[i:] (i at its first kernel) and
// returns its end, or -1. A kernel starts as WritePack writes it, with its
// op and device type, and ends where its line does; what follows is
// checked where it is decoded. An op whose kernels are not together is
// refused, as is a kernel its line does not end; a second kernel on a line
// would go unseen, which the built-in packs, WritePack's bytes
// (TestBuiltinPacksAreCanonical), never have.
func (lk *lazyKernels) array(d *kernelDecoder, b []byte, i int) int {
	c := &d.cur
	// The last kernel's op and device type, quoted: most kernels repeat
	// them, which a comparison tells without reading them again.
	var op, dev []byte
	for {
		c.b, c.i = b, i
		if !c.lit(`{"op":`) {
			return -1
		}
		if !c.same(op) {
			o, ok := c.str()
			if !ok || !lk.startOp(string(o)) {
				return -1
			}
			op = b[i+len(`{"op":`) : c.i]
		}
		if !c.lit(`,"device_type":`) {
			return -1
		}
		if at := c.i; !c.same(dev) {
			dv, ok := c.str()
			if !ok {
				return -1
			}
			if !slices.Contains(lk.devices, string(dv)) {
				lk.devices = append(lk.devices, string(dv))
			}
			dev = b[at:c.i]
		}
		lk.starts = append(lk.starts, int32(i))
		e := kernelEnd(b, c.i)
		if e < 0 {
			return -1
		}
		if i = skipSpace(b, e); i >= len(b) {
			return -1
		}
		if b[i] == ']' {
			lk.endOp()
			return i + 1
		}
		if b[i] != ',' {
			return -1
		}
		i = skipSpace(b, i+1)
	}
}

// same reads q, a string as read before with its quotes, when the cursor
// is at it; a nil q is never the same.
func (c *cursor) same(q []byte) bool {
	if q == nil || !bytes.HasPrefix(c.b[c.i:], q) {
		return false
	}
	c.i += len(q)
	return true
}

// kernelEnd returns the end of the kernel whose line goes on at b[i:]:
// where the line ends, before a comma, when it ends the object (WritePack
// writes one kernel a line, and its strings hold no line break); else -1.
func kernelEnd(b []byte, i int) int {
	e := bytes.IndexByte(b[i:], '\n')
	if e <= 0 {
		return -1
	}
	e += i
	if b[e-1] == ',' {
		e--
	}
	if b[e-1] != '}' {
		return -1
	}
	return e
}

// kernelSpan is a range of lazyKernels.starts.
type kernelSpan struct{ off, n int32 }

// opRun is an op and where in lazyKernels.starts its kernels begin.
type opRun struct {
	op  string
	off int32
}

// startOp ends the last op's kernels (endOp) and starts op's; false for
// no op, or one whose kernels were met before.
func (lk *lazyKernels) startOp(op string) bool {
	lk.endOp()
	if _, ok := lk.at[op]; ok || op == "" {
		return false
	}
	lk.last = opRun{op, int32(len(lk.starts))}
	return true
}

// endOp ends the last op's kernels, if any.
func (lk *lazyKernels) endOp() {
	if lk.last.op != "" {
		lk.at[lk.last.op] = kernelSpan{lk.last.off, int32(len(lk.starts)) - lk.last.off}
		lk.last = opRun{}
	}
}

// kernels are op's kernels in pack order, of every device type the pack
// has, decoded the first time they are asked for.
func (lk *lazyKernels) kernels(op string) []*kdpb.KernelDef {
	lk.mu.Lock()
	defer lk.mu.Unlock()
	if ks, ok := lk.decoded[op]; ok {
		return ks
	}
	sp := lk.at[op]
	ks := make([]*kdpb.KernelDef, 0, sp.n)
	for _, at := range lk.starts[sp.off : sp.off+sp.n] {
		k, _ := lk.d.anyKernel(lk.data, int(at))
		if k == nil || checkKernel(k) != nil {
			// Not the pack BuiltinPack reads (which refuses it): that
			// one's kernels, if any.
			return lk.completeKernels(op)
		}
		ks = append(ks, k)
	}
	lk.decoded[op] = ks
	return ks
}

// completeKernels are op's kernels in the pack BuiltinPack decodes; the
// caller holds the lock.
func (lk *lazyKernels) completeKernels(op string) []*kdpb.KernelDef {
	var ks []*kdpb.KernelDef
	if p, err := loadBuiltin(lk.name); err == nil {
		for _, k := range p.Kernels {
			if k.GetOp() == op {
				ks = append(ks, k)
			}
		}
	}
	lk.decoded[op] = ks
	return ks
}

// hasDevice tells whether some kernel names device type dev.
func (lk *lazyKernels) hasDevice(dev string) bool { return slices.Contains(lk.devices, dev) }

// complete is p with its kernels: p, or for a built-in pack read lazily
// the one BuiltinPack decodes (p where that fails, which the lazy read's
// success rules out for an embedded pack).
func (p *Pack) complete() *Pack {
	if p.lazy == nil {
		return p
	}
	if c, err := loadBuiltin(p.lazy.name); err == nil {
		return c
	}
	return p
}
