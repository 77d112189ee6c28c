package opdefgen

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	opdefpb "github.com/wamuir/graft/tensorflow/core/framework/op_def_go_proto"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
)

// TestBuilderMatchesOpsPbtxt checks the C++ builder conversion against
// TensorFlow's own output: every public op in tensorflow/core/ops/*.cc
// whose chain we can evaluate must finalize to exactly its ops.pbtxt entry.
// This is what makes the underscore ops (which have no ops.pbtxt entry)
// trustworthy.
func TestBuilderMatchesOpsPbtxt(t *testing.T) {
	root := tfTree(t)
	pbtxt, err := os.ReadFile(filepath.Join(root, OpsPbtxt))
	require.NoError(t, err)
	list := &opdefpb.OpList{}
	require.NoError(t, prototext.Unmarshal(pbtxt, list))
	want := map[string]*opdefpb.OpDef{}
	for _, op := range list.Op {
		want[op.Name] = op
	}
	helpers, err := readHelpers(root)
	require.NoError(t, err)
	files, err := filepath.Glob(filepath.Join(root, "tensorflow/core/ops/*.cc"))
	require.NoError(t, err)
	sort.Strings(files)
	compared := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.cc") {
			continue
		}
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		ops, err := ParseRegistrations(string(src), withConstants(helpers, src), func(name string) bool { return want[name] != nil })
		require.NoError(t, err, filepath.Base(f))
		for _, op := range ops {
			w := proto.Clone(want[op.Name]).(*opdefpb.OpDef)
			// ops.pbtxt carries full-type info from SetTypeConstructor,
			// which is C++ code we do not evaluate.
			for _, a := range w.OutputArg {
				a.ExperimentalFullType = nil
			}
			compared++
			if !proto.Equal(w, op) {
				t.Errorf("%s differs:\nwant %v\ngot  %v", op.Name, w, op)
			}
		}
	}
	t.Logf("compared %d ops", compared)
	require.Greater(t, compared, 1000)
}

func tfTree(t *testing.T) string {
	t.Helper()
	root := os.Getenv("TFSCAN_TF_SRC")
	if root == "" {
		cache := os.Getenv("GOMODCACHE")
		if cache == "" {
			home, _ := os.UserHomeDir()
			cache = filepath.Join(home, "go", "pkg", "mod")
		}
		root = filepath.Join(cache, "github.com/tensorflow/tensorflow@v2.15.0+incompatible")
	}
	if _, err := os.Stat(filepath.Join(root, OpsPbtxt)); err != nil {
		t.Skipf("TensorFlow source tree not present (%v); run `go mod download github.com/tensorflow/tensorflow@v2.15.0+incompatible` or set TFSCAN_TF_SRC", err)
	}
	return root
}
