package savedmodel

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"

	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"
)

// ErrOutputExists is wrapped by the error Write returns when the output
// path exists and is not an empty directory: Write never overwrites.
var ErrOutputExists = errors.New("output path exists and is not empty")

// fingerprintPb is the SavedModel fingerprint TensorFlow writes beside
// saved_model.pb (tensorflow/cc/saved_model/constants.h:78). It hashes the
// files it sits beside, so a rewritten model would carry the original's
// identity; TensorFlow loads without it (cc/saved_model/loader.cc:303-309
// reads it for a metric only, python/saved_model/load.py:1080-1088 logs its
// absence and carries on), and Write leaves it out.
const fingerprintPb = "fingerprint.pb"

// CheckOutput reports whether Write may write to out: out must not exist,
// or be an empty directory. The error names out.
func CheckOutput(out string) error {
	fi, err := os.Lstat(out)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return &Error{File: out, Err: unwrapPathError(err)}
	}
	if fi.IsDir() {
		f, err := os.Open(out)
		if err != nil {
			return &Error{File: out, Err: unwrapPathError(err)}
		}
		defer f.Close()
		if _, err := f.Readdirnames(1); err == io.EOF {
			return nil
		}
	}
	return &Error{File: out, Err: ErrOutputExists}
}

// CheckOutputFor is CheckOutput, and for a model that is a directory
// (SavedModel, TF.js) also that out is not inside it: Write copies the
// directory's files.
func CheckOutputFor(m *Model, out string) error {
	if err := CheckOutput(out); err != nil {
		return err
	}
	if m.Format == FormatSavedModel || m.Format == FormatSavedModelText || m.Format == FormatTFJS {
		if src := filepath.Dir(m.File); inside(out, src) {
			return &Error{File: out, Err: fmt.Errorf("output is inside the model directory %s", src)}
		}
	}
	return nil
}

// Write writes m to out in the format it was read from: a SavedModel
// directory (saved_model.pb or .pbtxt with every MetaGraphDef, the files
// beside it — variables/, assets/, debug/ — copied unchanged, fingerprint.pb
// left out), a GraphDef or MetaGraphDef file (binary or text), or a TF.js
// model directory (model.json with every key but the graph kept, the same
// weight shards, and one more shard for constants the model.json's shards
// do not hold). m's protos are written as they are now, so a caller that
// changed them (rewrite) gets the changed model.
//
// Nothing is half-written: the model goes to a temporary path beside out,
// renamed to out once complete; on any error it is removed. out must not
// exist or be an empty directory (CheckOutput).
func Write(m *Model, out string) error {
	if m == nil || len(m.MetaGraphs) == 0 {
		return errors.New("savedmodel.Write: no model")
	}
	if err := CheckOutputFor(m, out); err != nil {
		return err
	}
	parent := filepath.Dir(out)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return &Error{File: parent, Err: unwrapPathError(err)}
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(out)+".tmp-")
	if err != nil {
		return &Error{File: parent, Err: unwrapPathError(err)}
	}
	defer os.RemoveAll(tmp)
	var built string // the path inside tmp that becomes out
	switch m.Format {
	case FormatSavedModel, FormatSavedModelText:
		built = filepath.Join(tmp, "model")
		err = writeSavedModel(m, built)
	case FormatGraphDef, FormatGraphDefText:
		built = filepath.Join(tmp, "model")
		err = writeProto(built, m.MetaGraphs[0].Def.GetGraphDef(), m.Format == FormatGraphDefText)
	case FormatMetaGraph, FormatMetaGraphText:
		built = filepath.Join(tmp, "model")
		err = writeProto(built, m.MetaGraphs[0].Def, m.Format == FormatMetaGraphText)
	case FormatTFJS:
		built = filepath.Join(tmp, "model")
		err = writeTFJSModel(m, built)
	default:
		err = fmt.Errorf("cannot write format %q", m.Format)
	}
	if err != nil {
		return wrapFile(out, err)
	}
	if fi, err := os.Lstat(out); err == nil && fi.IsDir() {
		// An empty directory (CheckOutput): os.Rename will not replace a
		// directory, and os.Remove removes only an empty one.
		if err := os.Remove(out); err != nil {
			return &Error{File: out, Err: unwrapPathError(err)}
		}
	}
	if err := os.Rename(built, out); err != nil {
		return &Error{File: out, Err: unwrapPathError(err)}
	}
	return nil
}

// writeSavedModel writes the export directory dir: saved_model.pb (or
// .pbtxt for a text SavedModel) and a copy of every other file of the
// source directory but fingerprint.pb.
func writeSavedModel(m *Model, dir string) error {
	src := filepath.Dir(m.File)
	if err := copyTree(src, dir, func(rel string) bool {
		return rel != savedModelPb && rel != savedModelPbtxt && rel != fingerprintPb
	}); err != nil {
		return err
	}
	sm := &mgpb.SavedModel{SavedModelSchemaVersion: m.SchemaVersion}
	for _, mg := range m.MetaGraphs {
		sm.MetaGraphs = append(sm.MetaGraphs, mg.Def)
	}
	name := savedModelPb
	if m.Format == FormatSavedModelText {
		name = savedModelPbtxt
	}
	return writeProto(filepath.Join(dir, name), sm, m.Format == FormatSavedModelText)
}

// writeProto writes msg to file: binary with deterministic map order, or
// the text format TensorFlow's own text files use (one field a line).
func writeProto(file string, msg proto.Message, text bool) error {
	var b []byte
	var err error
	if text {
		b, err = prototext.MarshalOptions{Multiline: true, Indent: "  "}.Marshal(msg)
	} else {
		b, err = proto.MarshalOptions{Deterministic: true}.Marshal(msg)
	}
	if err != nil {
		return fmt.Errorf("encoding %s: %v", filepath.Base(file), err)
	}
	if len(b) > MaxFileSize {
		return fmt.Errorf("the model would be %d bytes, over the %d-byte limit of one protobuf message", len(b), int64(MaxFileSize))
	}
	return writeNew(file, b)
}

// writeNew creates file (which must not exist) with data.
func writeNew(file string, data []byte) error {
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return &Error{File: file, Err: unwrapPathError(err)}
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return &Error{File: file, Err: unwrapPathError(err)}
	}
	if err := f.Close(); err != nil {
		return &Error{File: file, Err: unwrapPathError(err)}
	}
	return nil
}

// copyTree copies the regular files and directories under src into dst
// (created), keeping those whose slash-separated path relative to src keep
// accepts. Symbolic links and other special files are refused, so that a
// model directory cannot make Write read outside it.
func copyTree(src, dst string, keep func(rel string) bool) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return &Error{File: dst, Err: unwrapPathError(err)}
	}
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return &Error{File: p, Err: unwrapPathError(err)}
		}
		rel, err := filepath.Rel(src, p)
		if err != nil || rel == "." {
			return err
		}
		slash := filepath.ToSlash(rel)
		if !keep(slash) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			if err := os.Mkdir(to, 0o755); err != nil {
				return &Error{File: to, Err: unwrapPathError(err)}
			}
			return nil
		case d.Type().IsRegular():
			return copyFile(p, to)
		}
		return fileErrorf(p, "not a regular file or directory; refusing to copy it")
	})
}

// copyFile copies the regular file from to the new file to.
func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return &Error{File: from, Err: unwrapPathError(err)}
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return &Error{File: to, Err: unwrapPathError(err)}
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return &Error{File: to, Err: fmt.Errorf("copying %s: %v", from, unwrapPathError(err))}
	}
	if err := out.Close(); err != nil {
		return &Error{File: to, Err: unwrapPathError(err)}
	}
	return nil
}

// inside reports whether path p is dir or lies under it.
func inside(p, dir string) bool {
	ap, err1 := filepath.Abs(p)
	ad, err2 := filepath.Abs(dir)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(ad, ap)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
