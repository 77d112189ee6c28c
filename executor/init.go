package executor

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/tfscan/tfscan/dtype"
	"github.com/tfscan/tfscan/savedmodel"

	"github.com/tfscan/tfscan/kernels"
)

// Session initialization, as TensorFlow's SavedModel loader does it
// (tensorflow/cc/saved_model/loader.cc: RunRestore, then RunInitOp with the
// asset files fed; constants.h names the keys).
const (
	initOpSignatureKey = "__saved_model_init_op"
	mainOpCollection   = "saved_model_main_op"
	legacyInitOpKey    = "legacy_init_op"
)

func (e *Executor) initialize(ctx context.Context) error {
	mg := e.g.MetaGraph
	if mg == nil || mg.Def == nil {
		return nil
	}
	def := mg.Def
	if w := e.res.Weights; w != nil {
		sd := def.GetSaverDef()
		if sd != nil && sd.GetRestoreOpName() != "" && sd.GetFilenameTensorName() != "" {
			feeds := map[string]*kernels.Tensor{sd.GetFilenameTensorName(): kernels.ScalarString(w.Prefix())}
			if _, err := e.Run(ctx, feeds, []string{sd.GetRestoreOpName()}); err != nil {
				return fmt.Errorf("restoring variables from %s: %w", w.Prefix(), err)
			}
		} else if err := e.initVariablesByName(w); err != nil {
			return fmt.Errorf("restoring variables: %w", err)
		}
	}
	var initOp string
	if sig := FindSignature(mg.Signatures, initOpSignatureKey); sig != nil && len(sig.Outputs) > 0 {
		initOp = sig.Outputs[0].Name
	} else {
		for _, key := range []string{mainOpCollection, legacyInitOpKey} {
			if c, ok := def.GetCollectionDef()[key]; ok {
				if names := c.GetNodeList().GetValue(); len(names) > 0 {
					initOp = names[0]
					break
				}
			}
		}
	}
	if initOp == "" {
		return nil
	}
	feeds := map[string]*kernels.Tensor{}
	dir := assetsDir(e.g.Model)
	for _, a := range def.GetAssetFileDef() {
		name := a.GetTensorInfo().GetName()
		if name == "" {
			continue
		}
		feeds[name] = kernels.ScalarString(filepath.Join(dir, a.GetFilename()))
	}
	if _, err := e.Run(ctx, feeds, []string{initOp}); err != nil {
		return fmt.Errorf("running the model's init op %s: %w", initOp, err)
	}
	return nil
}

// assetsDir is DIR/assets of a SavedModel.
func assetsDir(m *savedmodel.Model) string {
	if m == nil {
		return "assets"
	}
	return filepath.Join(filepath.Dir(m.File), "assets")
}

// initVariablesByName initializes variables whose names are checkpoint
// keys, for graphs without a saver.
func (e *Executor) initVariablesByName(w kernels.WeightSource) error {
	for _, n := range e.g.Nodes {
		var key string
		switch n.Op {
		case "VariableV2", "Variable":
			key = n.Name
		case "VarHandleOp":
			key = string(n.Attrs["shared_name"].GetS())
		default:
			continue
		}
		if key == "" || !w.Has(key) {
			continue
		}
		t, err := w.ReadTensor(key)
		if err != nil {
			return err
		}
		if t, err = e.num.Import(t); err != nil {
			return err
		}
		fn := ""
		if n.Func != nil {
			fn = n.Func.Name
		}
		name := kernels.ResourceName(n.Attrs, n.Name, fn)
		if n.Op == "VarHandleOp" {
			name = kernels.VarHandleName(n.Attrs)
			kernels.Create(e.res, name, &kernels.Variable{Name: name, DType: n.Attrs["dtype"].GetType(), Value: t})
			continue
		}
		kernels.Create(e.res, name, &kernels.RefVar{Name: n.Name, DType: dtype.Base(n.Attrs["dtype"].GetType()), Value: t})
	}
	return nil
}
