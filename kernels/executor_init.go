package kernels

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/tfscan/tfscan/savedmodel"
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
	if e.weights != nil {
		sd := def.GetSaverDef()
		if sd != nil && sd.GetRestoreOpName() != "" && sd.GetFilenameTensorName() != "" {
			feeds := map[string]*Tensor{sd.GetFilenameTensorName(): ScalarString(e.weights.Prefix())}
			if _, err := e.Run(ctx, feeds, []string{sd.GetRestoreOpName()}); err != nil {
				return fmt.Errorf("restoring variables from %s: %w", e.weights.Prefix(), err)
			}
		} else if err := e.initVariablesByName(); err != nil {
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
	feeds := map[string]*Tensor{}
	dir := assetsDir(e.g.Model)
	for _, a := range def.GetAssetFileDef() {
		name := a.GetTensorInfo().GetName()
		if name == "" {
			continue
		}
		feeds[name] = ScalarString(filepath.Join(dir, a.GetFilename()))
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
