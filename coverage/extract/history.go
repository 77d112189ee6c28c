package extract

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// HistoryOps lists the op names of TensorFlow's op history
// (tensorflow/core/ops/compat): a directory such as ops_history_v1 holds one
// OP.pbtxt per op, and a file such as ops_history.v0.pbtxt is one OpList.
// The history of major version N records every op that existed while
// TensorFlow's version was N.x, so an op missing from the histories of
// versions up to N did not exist in any N.x release.
func HistoryOps(path string) (map[string]bool, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	if !st.IsDir() {
		ops, err := LoadOpList(path)
		if err != nil {
			return nil, err
		}
		for op := range ops {
			out[op] = true
		}
		return out, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if op, ok := strings.CutSuffix(e.Name(), ".pbtxt"); ok && !e.IsDir() {
			out[op] = true
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no OP.pbtxt files", filepath.Base(path))
	}
	return out, nil
}
