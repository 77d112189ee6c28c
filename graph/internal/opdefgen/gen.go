// Package opdefgen builds tfscan's embedded OpDef registry from a
// TensorFlow source tree: the published OpList (tensorflow/core/ops/ops.pbtxt)
// plus the underscore-prefixed internal ops TensorFlow registers only in C++
// (REGISTER_OP("_FusedConv2D")...), whose builder chains it parses and
// finalizes exactly as tensorflow/core/framework/op_def_builder.cc does.
package opdefgen

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	opdefpb "github.com/wamuir/graft/tensorflow/core/framework/op_def_go_proto"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
)

// OpsPbtxt is where TensorFlow keeps its published OpList.
const OpsPbtxt = "tensorflow/core/ops/ops.pbtxt"

// cppRoots are the directories scanned for REGISTER_OP("_...") chains:
// all of tensorflow/core (ops/*.cc, tpu/ops, grappler, runtime_fallback, ...)
// and the XLA JIT ops (_XlaCompile, _XlaRun, ...) that auto-clustering puts
// into GPU graphs.
var cppRoots = []string{"tensorflow/core", "tensorflow/compiler/jit/ops"}

// helperFiles define the spec-string helpers REGISTER_OP chains call
// (GetPaddingAttrString() and friends).
var helperFiles = []string{"tensorflow/core/util/padding.cc", "tensorflow/core/util/tensor_format.cc", "tensorflow/core/util/mirror_pad_mode.cc"}

// Result is a generated registry.
type Result struct {
	TFVersion string
	OpList    *opdefpb.OpList
	// Internal counts the underscore ops added from C++.
	Internal int
	// Files are the C++ files (relative to the tree) that contributed ops.
	Files []string
}

// Generate reads the TensorFlow source tree at root.
func Generate(root string) (*Result, error) {
	version, err := readVersion(root)
	if err != nil {
		return nil, err
	}
	pbtxt, err := os.ReadFile(filepath.Join(root, OpsPbtxt))
	if err != nil {
		return nil, err
	}
	list := &opdefpb.OpList{}
	if err := prototext.Unmarshal(pbtxt, list); err != nil {
		return nil, fmt.Errorf("%s: %w", OpsPbtxt, err)
	}
	have := map[string]bool{}
	for _, op := range list.Op {
		have[op.Name] = true
	}
	helpers, err := readHelpers(root)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, dir := range cppRoots {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() || !strings.HasSuffix(p, ".cc") || strings.HasSuffix(p, "_test.cc") {
				return nil
			}
			files = append(files, p)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(files)
	res := &Result{TFVersion: version}
	seenFile := map[string]bool{}
	for _, p := range files {
		src, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		if !bytes.Contains(src, []byte(`REGISTER_OP("_`)) && !bytes.Contains(src, []byte(`REGISTER_SYSTEM_OP("_`)) {
			continue
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		ops, err := ParseRegistrations(string(src), withConstants(helpers, src), isInternal)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", rel, err)
		}
		for _, op := range ops {
			if !strings.HasPrefix(op.Name, "_") || have[op.Name] {
				continue
			}
			have[op.Name] = true
			list.Op = append(list.Op, op)
			res.Internal++
			if !seenFile[rel] {
				seenFile[rel] = true
				res.Files = append(res.Files, rel)
			}
		}
	}
	sort.Slice(list.Op, func(i, j int) bool { return list.Op[i].Name < list.Op[j].Name })
	res.OpList = list
	return res, nil
}

var versionRe = regexp.MustCompile(`#define TF_(MAJOR|MINOR|PATCH)_VERSION (\d+)`)

func readVersion(root string) (string, error) {
	const p = "tensorflow/core/public/version.h"
	b, err := os.ReadFile(filepath.Join(root, p))
	if err != nil {
		return "", err
	}
	v := map[string]string{}
	for _, m := range versionRe.FindAllStringSubmatch(string(b), -1) {
		v[m[1]] = m[2]
	}
	if v["MAJOR"] == "" || v["MINOR"] == "" || v["PATCH"] == "" {
		return "", fmt.Errorf("%s: no TF_MAJOR/MINOR/PATCH_VERSION", p)
	}
	return v["MAJOR"] + "." + v["MINOR"] + "." + v["PATCH"], nil
}

// helperRe matches `string Name() { return "..." "..."; }`.
var helperRe = regexp.MustCompile(`(?s)string\s+(\w+)\(\)\s*\{\s*return\s+((?:"(?:[^"\\]|\\.)*"\s*)+);\s*\}`)

// constRe matches file-level string constants used as specs:
// `constexpr auto kRNNModeAttrs = "rnn_mode: ..." "...";`.
var constRe = regexp.MustCompile(`(?s)(?:constexpr|const)\s+(?:auto|char)\s*\*?\s*(k\w+)(?:\[\])?\s*=\s*((?:"(?:[^"\\]|\\.)*"\s*)+);`)

// withConstants returns helpers plus the string constants defined in src.
func withConstants(helpers map[string]string, src []byte) map[string]string {
	ms := constRe.FindAllSubmatch(src, -1)
	if len(ms) == 0 {
		return helpers
	}
	out := make(map[string]string, len(helpers)+len(ms))
	for k, v := range helpers {
		out[k] = v
	}
	for _, m := range ms {
		if toks, err := lex(string(m[2])); err == nil {
			var s strings.Builder
			for _, t := range toks {
				s.WriteString(t.text)
			}
			out[string(m[1])] = s.String()
		}
	}
	return out
}

func readHelpers(root string) (map[string]string, error) {
	helpers := map[string]string{}
	for _, p := range helperFiles {
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			return nil, err
		}
		for _, m := range helperRe.FindAllStringSubmatch(string(b), -1) {
			toks, err := lex(m[2])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", p, err)
			}
			var s strings.Builder
			for _, t := range toks {
				s.WriteString(t.text)
			}
			helpers[m[1]] = s.String()
		}
	}
	return helpers, nil
}

// Encode renders a registry as the embedded file: the deterministic
// binary OpList, uncompressed, so that a command indexes the bytes the
// binary holds with nothing to inflate first (about 300 KB;
// zz_generated.go records the provenance).
func Encode(r *Result) ([]byte, error) {
	return proto.MarshalOptions{Deterministic: true}.Marshal(r.OpList)
}

// Provenance is the one-line notice stored with the generated registry.
func Provenance(r *Result) string {
	return fmt.Sprintf("TensorFlow %s (Apache-2.0, The TensorFlow Authors): %d ops = %s + %d REGISTER_OP(\"_*\") from %s",
		r.TFVersion, len(r.OpList.Op), OpsPbtxt, r.Internal, strings.Join(r.Files, ", "))
}

// GoSource renders the generated Go file that records the version next to
// the embedded registry.
func GoSource(r *Result) []byte {
	var b strings.Builder
	b.WriteString("// Code generated by graph/internal/opdefgen; DO NOT EDIT.\n\n")
	b.WriteString("package opdefs\n\n")
	fmt.Fprintf(&b, "// TFVersion is the TensorFlow release ops.pb was generated from.\nconst TFVersion = %q\n\n", r.TFVersion)
	fmt.Fprintf(&b, "// NumOps is the number of OpDefs in ops.pb.\nconst NumOps = %d\n\n", len(r.OpList.Op))
	fmt.Fprintf(&b, "// Source says where the OpDefs came from.\nconst Source = %q\n", Provenance(r))
	return []byte(b.String())
}

func isInternal(name string) bool { return strings.HasPrefix(name, "_") }
