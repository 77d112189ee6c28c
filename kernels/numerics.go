package kernels

import (
	"fmt"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/dtype"
)

// Numerics is how a run holds float tensors: all in float64 for the
// reference pass of precision parity, or float32 rounded to a narrower
// storage format when emulating a device. The executor applies it to what
// enters a run (constants, weights, feeds) and to computed outputs;
// stateful kernels, whose values the executor passes as they are, apply it
// themselves through Context.Numerics. A nil *Numerics holds tensors as
// they are.
type Numerics struct {
	// Compute is DT_DOUBLE for a float64 run, else DT_INVALID.
	Compute tpb.DataType
	// Emu is the run's emulation; its RoundStorage rounds stored float32
	// tensors.
	Emu *Emulation
}

// Float64 reports whether the run holds every float tensor in float64.
func (nm *Numerics) Float64() bool { return nm != nil && nm.Compute == tpb.DataType_DT_DOUBLE }

// DType is the dtype a tensor of the model's dtype dt has in this run.
func (nm *Numerics) DType(dt tpb.DataType) tpb.DataType {
	if nm.Float64() && dtype.IsFloat(dt) {
		return tpb.DataType_DT_DOUBLE
	}
	return dt
}

// Import prepares a tensor that comes from outside the computation
// (constant, weight, feed, checkpoint value): promoted to float64 in a
// float64 run, rounded to the storage format under emulation. The input is
// never modified.
func (nm *Numerics) Import(t *Tensor) (*Tensor, error) {
	if nm.Float64() && dtype.IsFloat(t.DType) && t.DType != tpb.DataType_DT_DOUBLE {
		vals, ok := t.Float64s()
		if !ok {
			return nil, fmt.Errorf("cannot convert %s to float64", dtName(t.DType))
		}
		return &Tensor{DType: tpb.DataType_DT_DOUBLE, Shape: append([]int{}, t.Shape...), Data: vals}, nil
	}
	if nm.rounds() && t.DType == tpb.DataType_DT_FLOAT {
		c := t.Clone()
		nm.Round(c)
		return c, nil
	}
	return t, nil
}

func (nm *Numerics) rounds() bool { return nm != nil && nm.Emu != nil && nm.Emu.RoundStorage != nil }

// Round rounds t's float32 data in place to the storage format, if the
// run emulates one.
func (nm *Numerics) Round(t *Tensor) {
	if !nm.rounds() {
		return
	}
	if d, ok := t.Data.([]float32); ok {
		r := nm.Emu.RoundStorage
		for i, v := range d {
			d[i] = r(v)
		}
	}
}
