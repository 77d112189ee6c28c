// Package modelgen builds the small models tfscan tests itself on, with the
// TensorFlow protos and no TensorFlow installation: a conv net (as a frozen
// GraphDef, a binary MetaGraphDef and a SavedModel), a TF2-style SavedModel
// whose signature calls a function holding a While loop, a Keras-style TF2
// SavedModel with saver functions and a table initializer, a text GraphDef
// of resource-variable ops, a text MetaGraphDef of string ops and a frozen
// Keras-style graph with nodes pinned to CPU.
//
// `go run ./testdata/gen` writes them into testdata/models; a test in
// package savedmodel checks that regenerating them changes no byte. Every
// node carries the attrs its TensorFlow 2.15 OpDef requires, and every Const
// a real value.
package modelgen

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"google.golang.org/protobuf/proto"
)

// File is one generated file: a path relative to the models directory and
// its bytes.
type File struct {
	Path string
	Data []byte
}

// Files returns every generated file, sorted by path.
func Files() ([]File, error) {
	var out []File
	add := func(path string, data []byte, err error) error {
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, File{Path: path, Data: data})
		return nil
	}
	bin := func(m proto.Message) ([]byte, error) {
		return proto.MarshalOptions{Deterministic: true}.Marshal(m)
	}
	steps := []struct {
		path string
		msg  proto.Message
		text bool
	}{
		{"convnet_frozen.pb", ConvNetGraphDef(), false},
		{"keras_pinned_frozen.pb", KerasPinnedGraphDef(), false},
		{"convnet.meta", ConvNetMetaGraph(), false},
		{"convnet_saved_model/saved_model.pb", ConvNetSavedModel(), false},
		{"tf2_while_saved_model/saved_model.pb", WhileSavedModel(), false},
		{"keras_saved_model/saved_model.pb", KerasSavedModel(), false},
		{"resource_vars.pbtxt", ResourceVarsGraphDef(), true},
		{"string_ops_meta.pbtxt", StringOpsMetaGraph(), true},
	}
	for _, s := range steps {
		var b []byte
		var err error
		if s.text {
			b = MarshalText(s.msg)
		} else {
			b, err = bin(s.msg)
		}
		if err := add(s.path, b, err); err != nil {
			return nil, err
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// WriteAll writes every generated file under dir.
func WriteAll(dir string) error {
	files, err := Files()
	if err != nil {
		return err
	}
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
