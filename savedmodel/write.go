package savedmodel

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"

	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"
)

// ErrOutputExists is wrapped by the error Write and CheckOutput return when
// the output path exists and is not an empty directory: Write never
// overwrites. The message says what is there (a file, a directory that is
// not empty, a link).
var ErrOutputExists = errors.New("output path exists")

// OutputError is a problem with the path Write writes to, not with the
// model: it exists, or it cannot be created or written (a parent that is a
// file, a directory without write permission, a read-only file system).
// It is the user's argument that is wrong, so callers report it apart from
// a model that cannot be read. Its message is one line, "PATH: problem".
type OutputError struct {
	Path string
	Err  error
}

func (e *OutputError) Error() string { return oneLine(e.Path) + ": " + oneLine(e.Err.Error()) }
func (e *OutputError) Unwrap() error { return e.Err }

// outputError is an *OutputError for path, err without its *fs.PathError
// (the message names path once).
func outputError(path string, err error) error {
	var oe *OutputError
	if errors.As(err, &oe) {
		return err
	}
	return &OutputError{Path: path, Err: unwrapPathError(err)}
}

// fingerprintPb is the SavedModel fingerprint TensorFlow writes beside
// saved_model.pb (tensorflow/cc/saved_model/constants.h:78). It hashes the
// files it sits beside, so a rewritten model would carry the original's
// identity; TensorFlow loads without it (cc/saved_model/loader.cc:303-309
// reads it for a metric only, python/saved_model/load.py:1080-1088 logs its
// absence and carries on), and Write leaves it out.
const fingerprintPb = "fingerprint.pb"

// CheckOutput reports whether Write may write to out: out must not exist,
// or be an empty directory, and where it does not exist it must be
// creatable: its nearest existing ancestor must be a directory Write can
// create entries in. That is tried, not guessed from permission bits: an
// empty directory is made there and removed at once, so out is unchanged.
// Every error is an *OutputError naming out.
func CheckOutput(out string) error {
	fi, err := os.Lstat(out)
	switch {
	case err == nil:
		return checkExisting(out, fi)
	case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
		return outputError(out, err)
	}
	// out does not exist: find the directory it would be created in.
	anc := filepath.Dir(out)
	for {
		fi, err := os.Stat(anc)
		if err == nil {
			if !fi.IsDir() {
				return &OutputError{Path: out, Err: fmt.Errorf("cannot be created: %s is a file, not a directory", anc)}
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return &OutputError{Path: out, Err: fmt.Errorf("cannot be created: %s: %v", anc, unwrapPathError(err))}
		}
		up := filepath.Dir(anc)
		if up == anc {
			break
		}
		anc = up
	}
	probe, err := os.MkdirTemp(anc, "."+filepath.Base(out)+".probe-")
	if err != nil {
		return &OutputError{Path: out, Err: fmt.Errorf("cannot be created in %s: %v", anc, unwrapPathError(err))}
	}
	if err := os.Remove(probe); err != nil {
		return outputError(probe, err)
	}
	return nil
}

// checkExisting is CheckOutput for an out that exists (fi, not followed):
// only an empty directory will do.
func checkExisting(out string, fi fs.FileInfo) error {
	switch {
	case fi.Mode().IsRegular():
		return &OutputError{Path: out, Err: fmt.Errorf("%w and is a file (it must not exist, or be an empty directory)", ErrOutputExists)}
	case fi.Mode()&fs.ModeSymlink != 0:
		return &OutputError{Path: out, Err: fmt.Errorf("%w and is a symbolic link (it must not exist, or be an empty directory)", ErrOutputExists)}
	case !fi.IsDir():
		return &OutputError{Path: out, Err: fmt.Errorf("%w and is not a regular file or directory (it must not exist, or be an empty directory)", ErrOutputExists)}
	}
	f, err := os.Open(out)
	if err != nil {
		return outputError(out, err)
	}
	defer f.Close()
	if _, err := f.Readdirnames(1); err == io.EOF {
		return nil
	} else if err != nil {
		return outputError(out, err)
	}
	return &OutputError{Path: out, Err: fmt.Errorf("%w and is a directory that is not empty (it must not exist, or be an empty directory)", ErrOutputExists)}
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
			return &OutputError{Path: out, Err: fmt.Errorf("output is inside the model directory %s", src)}
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
	if err := m.Materialize(); err != nil {
		return err
	}
	if n := len(marked(m)); n > 0 {
		// NodeDefs of a lazily loaded model put into another Model
		// without its contents: never write a model without constants.
		return fmt.Errorf("savedmodel.Write: %d constants were left in the file of the model they came from and not read", n)
	}
	parent := filepath.Dir(out)
	created := missingAncestor(parent)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return outputError(parent, err)
	}
	ok := false
	defer func() {
		if !ok {
			removeCreated(parent, created)
		}
	}()
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(out)+".tmp-")
	if err != nil {
		return outputError(parent, err)
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
		var oe *OutputError
		if errors.As(err, &oe) {
			// Writing into the temporary folder failed: a problem of
			// out's file system, named by the path the user gave.
			return &OutputError{Path: out, Err: oe.Err}
		}
		return wrapFile(out, err)
	}
	if fi, err := os.Lstat(out); err == nil && fi.IsDir() {
		// An empty directory (CheckOutput): os.Rename will not replace a
		// directory, and os.Remove removes only an empty one.
		if err := os.Remove(out); err != nil {
			return outputError(out, err)
		}
	}
	if err := os.Rename(built, out); err != nil {
		return outputError(out, err)
	}
	ok = true
	return nil
}

// missingAncestor is the topmost directory of dir and its ancestors that
// does not exist ("" when dir exists): what MkdirAll(dir) creates.
func missingAncestor(dir string) string {
	top := ""
	for d := dir; ; {
		if _, err := os.Lstat(d); err == nil {
			return top
		}
		top = d
		up := filepath.Dir(d)
		if up == d {
			return top
		}
		d = up
	}
}

// removeCreated removes the directories from dir up to top that a failed
// Write created, each only if empty, so that a failure leaves the parents
// of out as they were.
func removeCreated(dir, top string) {
	if top == "" {
		return
	}
	for d := dir; ; d = filepath.Dir(d) {
		if os.Remove(d) != nil || d == top || filepath.Dir(d) == d {
			return
		}
	}
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
		return outputError(file, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return outputError(file, err)
	}
	if err := f.Close(); err != nil {
		return outputError(file, err)
	}
	return nil
}

// copyTree copies the regular files and directories under src into dst
// (created), keeping those whose slash-separated path relative to src keep
// accepts. Symbolic links and other special files are refused, so that a
// model directory cannot make Write read outside it.
func copyTree(src, dst string, keep func(rel string) bool) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return outputError(dst, err)
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
				return outputError(to, err)
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
		return outputError(to, err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return &Error{File: to, Err: fmt.Errorf("copying %s: %v", from, unwrapPathError(err))}
	}
	if err := out.Close(); err != nil {
		return outputError(to, err)
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
