package savedmodel

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tfscan/tfscan/savedmodel/modelgen"
)

// checkLoadResult is the property every fuzz target checks: decoding never
// panics (the fuzzer reports that), and an error is one *Error line naming
// the file.
func checkLoadResult(t *testing.T, file string, m *Model, err error) {
	t.Helper()
	if err != nil {
		msg := err.Error()
		if strings.Contains(msg, "\n") {
			t.Fatalf("error spans lines: %q", msg)
		}
		if !strings.HasPrefix(msg, file+": ") && !strings.HasPrefix(msg, filepath.Dir(file)) {
			t.Fatalf("error does not name the file: %q", msg)
		}
		return
	}
	if m == nil || len(m.MetaGraphs) == 0 || m.MetaGraphs[0].Def.GetGraphDef() == nil {
		t.Fatalf("no error and no graph")
	}
}

// absentDir is a directory that does not exist, so that decoding bytes
// finds no variables/ or assets/ next to them and the fuzzers touch no disk.
func absentDir() string { return filepath.Join(os.TempDir(), "tfscan-fuzz-absent-dir") }

// addFileSeeds adds the files matching each pattern, up to maxSize bytes.
func addFileSeeds(f *testing.F, maxSize int, patterns ...string) {
	for _, pat := range patterns {
		files, _ := filepath.Glob(pat)
		for _, p := range files {
			b, err := os.ReadFile(p)
			if err == nil && len(b) <= maxSize {
				f.Add(b)
			}
		}
	}
}

// FuzzLoadBinary feeds bytes to the binary sniffer and decoder.
func FuzzLoadBinary(f *testing.F) {
	files, err := modelgen.Files()
	if err != nil {
		f.Fatal(err)
	}
	for _, g := range files {
		f.Add(g.Data)
	}
	corpus := filepath.Join("..", "..", "shared", "corpus", "tf")
	addFileSeeds(f, 64<<10, filepath.Join(corpus, "*", "saved_model.pb"))
	f.Add([]byte{})
	f.Add([]byte{0x12, 0x00})
	file := filepath.Join(absentDir(), "m.pb")
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := decodeFile(file, b)
		checkLoadResult(t, file, m, err)
	})
}

// FuzzLoadText feeds text to the text-proto sniffer and decoder.
func FuzzLoadText(f *testing.F) {
	f.Add([]byte(modelgen.MarshalText(modelgen.ResourceVarsGraphDef())))
	f.Add([]byte(modelgen.MarshalText(modelgen.StringOpsMetaGraph())))
	f.Add([]byte(modelgen.MarshalText(modelgen.WhileSavedModel())))
	corpus := filepath.Join("..", "..", "shared", "corpus", "tf")
	addFileSeeds(f, 64<<10, filepath.Join(corpus, "gd_*", "*.pbtxt"), filepath.Join(corpus, "mg_*", "*.pb"))
	f.Add([]byte("node { name: \"c\" op: \"Const\" attr { key: \"value\" value { tensor { tensor_shape { dim { size: -5 } } } } } }"))
	file := filepath.Join(absentDir(), "m.pbtxt")
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := decodeFile(file, b)
		checkLoadResult(t, file, m, err)
	})
}

// FuzzLoadTFJS writes a model.json and one shard, group1-shard1of1.bin,
// and loads the directory.
func FuzzLoadTFJS(f *testing.F) {
	small := `{"modelTopology": {"node": [{"name": "w", "op": "Const"}, {"name": "d", "op": "FusedDepthwiseConv2dNative", "input": ["w"]}]},
"weightsManifest": [{"paths": ["group1-shard1of1.bin"], "weights": [
 {"name": "w", "shape": [2], "dtype": "float32", "quantization": {"dtype": "uint8", "scale": 0.5, "min": -1}},
 {"name": "s", "shape": [1], "dtype": "string"},
 {"name": "h", "shape": [1], "dtype": "float32", "quantization": {"dtype": "float16"}}]}],
"signature": {"inputs": {"x": {"name": "x:0", "dtype": "DT_FLOAT", "tensorShape": {"dim": [{"size": "-1"}]}}}}}`
	f.Add([]byte(small), []byte{1, 2, 3, 0, 0, 0, 'a', 'b', 'c', 0, 0x3c})
	emotion := filepath.Join("..", "..", "shared", "corpus", "tfjs", "emotion")
	if mj, err := os.ReadFile(filepath.Join(emotion, "model.json")); err == nil {
		f.Add(mj, []byte{})
	}
	// One directory per fuzzing process, rewritten on every run: much
	// cheaper than a fresh t.TempDir.
	dir, err := os.MkdirTemp("", "tfscan-fuzz-tfjs-")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { os.RemoveAll(dir) })
	f.Fuzz(func(t *testing.T, modelJSON, shard []byte) {
		file := filepath.Join(dir, "model.json")
		if err := os.WriteFile(file, modelJSON, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "group1-shard1of1.bin"), shard, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := Load(dir)
		checkLoadResult(t, file, m, err)
	})
}
