// Package precision describes how a target accelerator rounds float32
// computations — its precision profile — and turns a profile into the
// executor's emulation hooks (kernels.Emulation), so that a model can be
// run "as the target would" on the host and compared with a float64
// reference. docs/precision.md lists where every kernel rounds.
package precision

import (
	"fmt"
	"sort"
	"strings"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/kernels"
)

// Profile names.
const (
	// FP32: float32 storage and float32 accumulation (what the host does).
	FP32 = "fp32"
	// TF32: float32 storage; matmul and convolution operands rounded to
	// TensorFloat-32 (10-bit mantissa, RNE); float32 accumulation.
	TF32 = "tf32"
	// FP16: every float tensor a node produces stored as float16;
	// float32 accumulation inside matmul, convolution and reductions.
	FP16 = "fp16"
	// FP16Acc16: float16 storage and every partial sum of matmul,
	// convolution and reductions rounded to float16.
	FP16Acc16 = "fp16_acc16"
	// BF16: bfloat16 storage (RNE), float32 accumulation.
	BF16 = "bf16"
	// MixedFloat16 follows TensorFlow's auto mixed precision for
	// float16: only the nodes Grappler would convert run as FP16.
	MixedFloat16 = "mixed_float16"
	// MixedBFloat16 is the bfloat16 flavour of auto mixed precision.
	MixedBFloat16 = "mixed_bfloat16"
)

// Profile is how a target rounds float32 work. Kernels with float64 data
// are never emulated.
type Profile struct {
	// Name is one of the profile names, with "+ftz" appended when FTZ.
	Name string
	// Storage is the format float32 tensors are kept in between nodes:
	// DT_FLOAT, DT_HALF or DT_BFLOAT16.
	Storage tpb.DataType
	// Operand rounds matmul/convolution operands before multiplication
	// (nil: as stored).
	Operand func(float32) float32
	// Accum rounds every partial sum of matmul, convolution and the Sum,
	// Mean and EuclideanNorm reductions (nil: float32 accumulation).
	Accum func(float32) float32
	// FTZ flushes subnormal results to zero when they are stored.
	FTZ bool
	// Mixed, for MixedFloat16 and MixedBFloat16, is the profile of the
	// nodes auto mixed precision converts; the others run as FP32.
	Mixed *Profile
}

// Names lists the profile names accepted by Lookup, sorted.
func Names() []string {
	n := []string{FP32, TF32, FP16, FP16Acc16, BF16, MixedFloat16, MixedBFloat16}
	sort.Strings(n)
	return n
}

// Lookup returns the named profile; ftz adds flush-to-zero of subnormals
// at every store.
func Lookup(name string, ftz bool) (*Profile, error) {
	var p *Profile
	switch name {
	case FP32:
		p = &Profile{Storage: tpb.DataType_DT_FLOAT}
	case TF32:
		p = &Profile{Storage: tpb.DataType_DT_FLOAT, Operand: RoundTF32}
	case FP16:
		p = &Profile{Storage: tpb.DataType_DT_HALF, Operand: RoundFloat16}
	case FP16Acc16:
		p = &Profile{Storage: tpb.DataType_DT_HALF, Operand: RoundFloat16, Accum: RoundFloat16}
	case BF16:
		p = &Profile{Storage: tpb.DataType_DT_BFLOAT16, Operand: RoundBFloat16}
	case MixedFloat16, MixedBFloat16:
		inner := FP16
		if name == MixedBFloat16 {
			inner = BF16
		}
		m, _ := Lookup(inner, ftz)
		base, _ := Lookup(FP32, ftz)
		base.Mixed = m
		base.Name = name
		if ftz {
			base.Name += "+ftz"
		}
		return base, nil
	default:
		return nil, fmt.Errorf("unknown precision profile %q (profiles: %s)", name, strings.Join(Names(), ", "))
	}
	p.Name = name
	p.FTZ = ftz
	if ftz {
		p.Name += "+ftz"
	}
	return p, nil
}

// Store is the rounding applied to every float32 value the profile
// stores: the storage format's rounding, then the flush of subnormals
// under FTZ. It is nil for exact float32 storage without FTZ.
func (p *Profile) Store() func(float32) float32 {
	var r func(float32) float32
	switch p.Storage {
	case tpb.DataType_DT_HALF:
		r = RoundFloat16
	case tpb.DataType_DT_BFLOAT16:
		r = RoundBFloat16
	}
	if p.FTZ {
		if p.Storage == tpb.DataType_DT_HALF {
			r = compose(r, FlushFloat16)
		} else {
			r = compose(r, FlushFloat32)
		}
	}
	return r
}

// Emulation returns the executor hooks of the profile, or nil when the
// profile computes exactly in float32 (fp32 without FTZ). For a mixed
// profile it is the emulation of the converted nodes.
func (p *Profile) Emulation() *kernels.Emulation {
	if p.Mixed != nil {
		return p.Mixed.Emulation()
	}
	e := &kernels.Emulation{RoundOperand: p.Operand, RoundAccum: p.Accum, RoundStorage: p.Store()}
	if e.RoundOperand == nil && e.RoundAccum == nil && e.RoundStorage == nil {
		return nil
	}
	return e
}

// StorageMax is the largest finite value of the profile's storage format:
// a finite reference value whose emulated value is larger (or infinite)
// overflowed.
func StorageMax(storage tpb.DataType) float64 {
	switch storage {
	case tpb.DataType_DT_HALF:
		return MaxFloat16
	case tpb.DataType_DT_BFLOAT16:
		return MaxBFloat16
	case tpb.DataType_DT_DOUBLE:
		return 1.7976931348623157e308
	}
	return MaxFloat32
}

// StorageMinNormal is the smallest normal magnitude of the storage format:
// a non-zero reference value below it that comes out as zero underflowed
// (rounded below the smallest subnormal, or flushed).
func StorageMinNormal(storage tpb.DataType) float64 {
	switch storage {
	case tpb.DataType_DT_HALF:
		return MinNormalFloat16
	case tpb.DataType_DT_BFLOAT16:
		return MinNormalBF16
	case tpb.DataType_DT_DOUBLE:
		return 0x1p-1022
	}
	return MinNormalFloat32
}
