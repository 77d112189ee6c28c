package savedmodel

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Discover returns the model paths under root, sorted: SavedModel
// directories (those holding saved_model.pb, .pbtxt or .cpb; Discover does
// not descend into them), TF.js model directories (holding a model.json with
// a modelTopology), and .pb, .pbtxt and .meta files elsewhere whose content
// sniffs as a SavedModel, MetaGraphDef or GraphDef. Directories whose name
// starts with "." are skipped, and symbolic links are not followed. A root
// that is a file is returned as is, for Load to judge.
func Discover(root string) ([]string, error) {
	fi, err := os.Stat(root)
	if err != nil {
		return nil, &Error{File: root, Err: unwrapPathError(err)}
	}
	if !fi.IsDir() {
		return []string{root}, nil
	}
	var out []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return &Error{File: p, Err: unwrapPathError(err)}
		}
		if d.IsDir() {
			if p != root && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			if isModelDir(p) {
				out = append(out, p)
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		switch strings.ToLower(filepath.Ext(p)) {
		case ".pb", ".pbtxt", ".meta":
			if sniffsAsModel(p) {
				out = append(out, p)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(out)
	return out, nil
}

// isModelDir reports whether dir is a SavedModel or TF.js model directory.
func isModelDir(dir string) bool {
	for _, name := range []string{savedModelPb, savedModelPbtxt, savedModelCpb} {
		if isRegular(filepath.Join(dir, name)) {
			return true
		}
	}
	file := filepath.Join(dir, tfjsModelJSON)
	if !isRegular(file) {
		return false
	}
	b, err := readFile(file)
	if err != nil {
		return false
	}
	var probe struct {
		ModelTopology json.RawMessage `json:"modelTopology"`
	}
	return json.Unmarshal(b, &probe) == nil && len(probe.ModelTopology) > 0
}

// sniffsAsModel reports whether a file's content is a SavedModel,
// MetaGraphDef or GraphDef, binary or text, without decoding it.
func sniffsAsModel(file string) bool {
	b, err := readFile(file)
	if err != nil {
		return false
	}
	if isText(b) {
		kind, _ := sniffText(b)
		return kind != kindUnknown
	}
	kind, err := sniffBinary(b)
	return err == nil && kind != kindUnknown
}
