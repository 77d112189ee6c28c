package savedmodel

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"

	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"

	gpb "github.com/wamuir/graft/tensorflow/core/framework/graph_go_proto"
	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"
)

// MaxFileSize is the largest model file Load reads: 2 GiB, protobuf's own
// limit on one serialized message (TensorFlow splits larger SavedModels into
// a chunked saved_model.cpb). Larger files are refused before any byte is
// read, so a wrong path cannot make tfscan allocate without bound.
const MaxFileSize = 2 << 30

// File names TensorFlow's SavedModel loader looks for in an export
// directory (tensorflow/cc/saved_model/constants.h), and TF.js's.
const (
	savedModelPb    = "saved_model.pb"
	savedModelPbtxt = "saved_model.pbtxt"
	savedModelCpb   = "saved_model.cpb"
	tfjsModelJSON   = "model.json"
)

// Load reads the model at path: a SavedModel directory, a directory holding
// a TF.js model.json, or a single file (saved_model.pb/.pbtxt, a frozen
// GraphDef or a MetaGraphDef, binary or text, or a model.json). The format
// is told from the content, never from the extension alone. Every error is
// an *Error naming the file and the problem in one line.
func Load(path string) (*Model, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, &Error{File: path, Err: unwrapPathError(err)}
	}
	var m *Model
	if fi.IsDir() {
		m, err = loadDir(path)
	} else {
		m, err = loadFile(path)
	}
	if err != nil {
		return nil, err
	}
	m.Path = path
	return m, nil
}

// loadDir loads a SavedModel export directory or a TF.js model directory.
// Like TensorFlow's ReadSavedModel (tensorflow/cc/saved_model/reader.cc) it
// prefers saved_model.pb over saved_model.pbtxt.
func loadDir(dir string) (*Model, error) {
	for _, name := range []string{savedModelPb, savedModelPbtxt} {
		file := filepath.Join(dir, name)
		if isRegular(file) {
			m, err := loadFile(file)
			if err != nil {
				return nil, err
			}
			if m.Format != FormatSavedModel && m.Format != FormatSavedModelText {
				return nil, fileErrorf(file, "holds a %s, not a SavedModel", formatNoun(m.Format))
			}
			return m, nil
		}
	}
	if file := filepath.Join(dir, savedModelCpb); isRegular(file) {
		return nil, &Error{File: file, Err: ErrChunked}
	}
	if file := filepath.Join(dir, tfjsModelJSON); isRegular(file) {
		return loadFile(file)
	}
	return nil, &Error{File: dir, Err: fmt.Errorf("%w (expected %s, %s or %s)", ErrNoModel, savedModelPb, savedModelPbtxt, tfjsModelJSON)}
}

// loadFile loads one model file, sniffing its format.
func loadFile(file string) (*Model, error) {
	if filepath.Base(file) == savedModelCpb {
		return nil, &Error{File: file, Err: ErrChunked}
	}
	f, fi, err := openFile(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if m, err := loadFileLazy(file, f, fi); err == nil {
		return m, finish(file, m)
	}
	b := make([]byte, fi.Size())
	if _, err := io.ReadFull(io.NewSectionReader(f, 0, fi.Size()), b); err != nil {
		return nil, fileErrorf(file, "reading: %v", err)
	}
	return decodeFile(file, b)
}

// loadFileLazy loads a binary model file of lazyFileMin bytes or more
// leaving its large constants in the file (lazy.go); an error means that
// it must be read whole. A file whose first bytes could start a text
// proto or a JSON object is read whole, as decodeFile tells those apart
// from binary protos by their whole content.
func loadFileLazy(file string, f *os.File, fi os.FileInfo) (*Model, error) {
	if fi.Size() < lazyFileMin {
		return nil, errNotLazy
	}
	head := make([]byte, min(512, fi.Size()))
	if _, err := f.ReadAt(head, 0); err != nil {
		return nil, errNotLazy
	}
	if isJSONObject(head) || !hasControl(head) {
		return nil, errNotLazy
	}
	return loadStream(file, f, fi)
}

// decodeFile decodes the bytes b of file: a TF.js model.json (a JSON
// object), a text proto or a binary proto, in that order of checks. Files
// next to file (SavedModel variables/ and assets/, TF.js weight shards) are
// read from disk.
func decodeFile(file string, b []byte) (*Model, error) {
	var m *Model
	var err error
	switch {
	case isJSONObject(b):
		m, err = decodeTFJS(file, b)
	case isText(b):
		m, err = decodeText(file, b)
	default:
		m, err = decodeBinary(file, b)
	}
	if err != nil {
		return nil, wrapFile(file, err)
	}
	if err := finish(file, m); err != nil {
		return nil, err
	}
	return m, nil
}

// finish completes a decoded model of file: the SavedModel directory
// around it, and validation.
func finish(file string, m *Model) error {
	m.File = file
	if m.Format == FormatSavedModel || m.Format == FormatSavedModelText {
		if err := fillSavedModelDir(m, filepath.Dir(file)); err != nil {
			return err
		}
	}
	if err := validate(m); err != nil {
		return wrapFile(file, err)
	}
	return nil
}

// readFile reads a whole file, refusing files over MaxFileSize before
// reading them.
func readFile(file string) ([]byte, error) {
	f, fi, err := openFile(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, b); err != nil {
		return nil, fileErrorf(file, "reading: %v", err)
	}
	return b, nil
}

// openFile opens a regular file of at most MaxFileSize bytes.
func openFile(file string) (*os.File, os.FileInfo, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, nil, &Error{File: file, Err: unwrapPathError(err)}
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, &Error{File: file, Err: unwrapPathError(err)}
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, fileErrorf(file, "not a regular file")
	}
	if fi.Size() > MaxFileSize {
		f.Close()
		return nil, nil, fileErrorf(file, "file is %d bytes, over the %d-byte limit", fi.Size(), int64(MaxFileSize))
	}
	return f, fi, nil
}

// decodeBinary decodes a binary SavedModel, MetaGraphDef or GraphDef.
func decodeBinary(file string, b []byte) (*Model, error) {
	kind, err := sniffBinary(b)
	if err != nil {
		return nil, err
	}
	msg, counted, err := decodeProto(kind, b)
	if err != nil {
		return nil, fmt.Errorf("not a valid binary %s: %s", kind, protoErr(err))
	}
	m, err := fromMessage(msg, false)
	if err == nil {
		m.setDecoded(counted)
	}
	return m, err
}

// decodeText decodes a text-format SavedModel, MetaGraphDef or GraphDef,
// chosen by the first field name. A file whose first field belongs to none
// of them is parsed as a GraphDef, so that the error names the line and
// column where it stops making sense.
func decodeText(file string, b []byte) (*Model, error) {
	kind, first := sniffText(b)
	try := kind
	if try == kindUnknown {
		try = kindGraphDef
	}
	msg := newMessage(try)
	if err := prototext.Unmarshal(b, msg); err != nil {
		if kind == kindUnknown {
			if first == "" {
				return nil, fmt.Errorf("not a model: text proto syntax error: %s", textErr(err))
			}
			return nil, fmt.Errorf("not a model: text proto syntax error: %s (%q is no field of SavedModel, MetaGraphDef or GraphDef)", textErr(err), first)
		}
		return nil, fmt.Errorf("text %s syntax error: %s", kind, textErr(err))
	}
	return fromMessage(msg, true)
}

// textPos finds prototext's "(line N:M)" in an error message.
var textPos = regexp.MustCompile(`^(.*?)\s*\(line (\d+):(\d+)\):\s*`)

// textErr turns prototext's "proto: (line 3:1): unknown field: x" or
// "proto: syntax error (line 4:15): invalid scalar value: }" into
// "line 3:1: unknown field: x" and "line 4:15: invalid scalar value: }".
func textErr(err error) string {
	s := protoErr(err)
	m := textPos.FindStringSubmatchIndex(s)
	if m == nil {
		return s
	}
	what := s[m[2]:m[3]]
	rest := s[m[1]:]
	if what != "" && what != "syntax error" {
		rest = what + ": " + rest
	}
	return "line " + s[m[4]:m[5]] + ":" + s[m[6]:m[7]] + ": " + rest
}

func newMessage(k protoKind) proto.Message {
	switch k {
	case kindSavedModel:
		return &mgpb.SavedModel{}
	case kindMetaGraph:
		return &mgpb.MetaGraphDef{}
	default:
		return &gpb.GraphDef{}
	}
}

// fromMessage wraps a decoded proto into a Model. It keeps the protos as
// decoded (no copies of Const payloads).
func fromMessage(msg proto.Message, text bool) (*Model, error) {
	m := &Model{}
	switch msg := msg.(type) {
	case *mgpb.SavedModel:
		m.Format = pick(text, FormatSavedModelText, FormatSavedModel)
		m.SchemaVersion = msg.GetSavedModelSchemaVersion()
		if len(msg.MetaGraphs) == 0 {
			return nil, errors.New("SavedModel has no meta graphs")
		}
		for _, mg := range msg.MetaGraphs {
			m.MetaGraphs = append(m.MetaGraphs, newMetaGraph(mg))
		}
	case *mgpb.MetaGraphDef:
		m.Format = pick(text, FormatMetaGraphText, FormatMetaGraph)
		m.MetaGraphs = []*MetaGraph{newMetaGraph(msg)}
	case *gpb.GraphDef:
		m.Format = pick(text, FormatGraphDefText, FormatGraphDef)
		m.MetaGraphs = []*MetaGraph{{Def: &mgpb.MetaGraphDef{GraphDef: msg}}}
	}
	for _, mg := range m.MetaGraphs {
		if mg.Def.GraphDef == nil {
			mg.Def.GraphDef = &gpb.GraphDef{}
		}
	}
	return m, nil
}

func pick(text bool, t, b Format) Format {
	if text {
		return t
	}
	return b
}

// newMetaGraph decodes the tags and signatures of one MetaGraphDef.
func newMetaGraph(def *mgpb.MetaGraphDef) *MetaGraph {
	mg := &MetaGraph{Def: def}
	if def.MetaInfoDef != nil && len(def.MetaInfoDef.Tags) > 0 {
		mg.Tags = append([]string(nil), def.MetaInfoDef.Tags...)
	}
	mg.Signatures = decodeSignatures(def.SignatureDef)
	return mg
}

// fillSavedModelDir sets VariablesPrefix and Assets from the export
// directory around saved_model.pb.
func fillSavedModelDir(m *Model, dir string) error {
	prefix := filepath.Join(dir, "variables", "variables")
	if isRegular(prefix + ".index") {
		m.VariablesPrefix = prefix
	}
	assets := filepath.Join(dir, "assets")
	fi, err := os.Stat(assets)
	if err != nil || !fi.IsDir() {
		return nil
	}
	err = filepath.WalkDir(assets, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(assets, p)
		if err != nil {
			return err
		}
		m.Assets = append(m.Assets, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return fileErrorf(assets, "listing assets: %v", unwrapPathError(err))
	}
	sort.Strings(m.Assets)
	return nil
}

func formatNoun(f Format) string {
	switch f {
	case FormatGraphDef, FormatGraphDefText:
		return "GraphDef"
	case FormatMetaGraph, FormatMetaGraphText:
		return "MetaGraphDef"
	case FormatTFJS:
		return "TF.js model"
	}
	return "SavedModel"
}

func isRegular(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// unwrapPathError drops the path from an *fs.PathError, since *Error names
// the file already.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// wrapFile makes err an *Error for file unless it already is one.
func wrapFile(file string, err error) error {
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return &Error{File: file, Err: err}
}
