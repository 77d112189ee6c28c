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
	// at is where each op's kernels start in data, in pack order.
	at map[string][]int32
	// devices are the device types the kernels name, each once.
	devices []string
	// run is the op whose kernels array is recording, and where they
	// start: a pack lists an op's kernels together.
	run   string
	runAt []int32

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
	lk := &lazyKernels{name: name, data: data, at: map[string][]int32{}, decoded: map[string][]*kdpb.KernelDef{}}
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
// op and device type; what follows is checked where it is decoded.
func (lk *lazyKernels) array(d *kernelDecoder, b []byte, i int) int {
	c := &d.cur
	for {
		c.b, c.i = b, i
		if !c.lit(`{"op":`) {
			return -1
		}
		op, ok := d.strLast(c, &d.lastOp)
		if !ok || !c.lit(`,"device_type":`) {
			return -1
		}
		dev, ok := d.strLast(c, &d.lastDevice)
		if !ok {
			return -1
		}
		if !slices.Contains(lk.devices, dev) {
			lk.devices = append(lk.devices, dev)
		}
		lk.record(op, int32(i))
		e := skipLine(b, i)
		if e < 0 {
			return -1
		}
		if i = skipSpace(b, e); i >= len(b) {
			return -1
		}
		if b[i] == ']' {
			lk.record("", -1)
			return i + 1
		}
		if b[i] != ',' {
			return -1
		}
		i = skipSpace(b, i+1)
	}
}

// skipLine returns the end of the kernel at b[i:], or -1: WritePack writes
// one kernel a line, which ends where the line does when that leaves its
// braces and brackets balanced (its strings hold neither); otherwise as
// skipValue finds it.
func skipLine(b []byte, i int) int {
	e := bytes.IndexByte(b[i:], '\n')
	if e > 0 {
		line := b[i : i+e]
		line = bytes.TrimSuffix(line, []byte(","))
		if line[len(line)-1] == '}' && bytes.Count(line, []byte("{")) == bytes.Count(line, []byte("}")) &&
			bytes.Count(line, []byte("[")) == bytes.Count(line, []byte("]")) && bytes.IndexByte(line, '\\') < 0 {
			return i + len(line)
		}
	}
	return skipValue(b, i)
}

// record notes that a kernel of op starts at at; op "" ends the array.
func (lk *lazyKernels) record(op string, at int32) {
	if op != lk.run || op == "" {
		if lk.run != "" {
			lk.at[lk.run] = append(lk.at[lk.run], lk.runAt...)
		}
		lk.run, lk.runAt = op, lk.runAt[:0]
	}
	if op != "" {
		lk.runAt = append(lk.runAt, at)
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
	ks := make([]*kdpb.KernelDef, 0, len(lk.at[op]))
	for _, at := range lk.at[op] {
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
