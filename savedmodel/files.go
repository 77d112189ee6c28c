package savedmodel

import (
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// Files lists the files whose content decides what Load(path) returns, so
// that a cache can key a model's results by them without loading it: the
// model file Load picks (as loadDir does), a SavedModel's
// variables/variables.index and every file under assets/, and a TF.js
// model's weight shards. The index stands for the checkpoint: it holds every
// tensor's checksum, so the (possibly huge) data shards need not be read. A
// listed file may be missing (a TF.js shard the manifest names but the
// directory lacks); Load then fails. The sidecar files are listed next to
// any model file, whatever its format: listing one too many only costs a
// cache miss. Paths are sorted; nil when path names no model file.
func Files(path string) []string {
	file := path
	if fi, err := os.Stat(path); err != nil {
		return nil
	} else if fi.IsDir() {
		file = ""
		for _, name := range []string{savedModelPb, savedModelPbtxt, savedModelCpb, tfjsModelJSON} {
			if p := filepath.Join(path, name); isRegular(p) {
				file = p
				break
			}
		}
		if file == "" {
			return nil
		}
	}
	out := []string{file}
	dir := filepath.Dir(file)
	if isJSONObject(head(file, 64<<10)) {
		b, _ := readFile(file)
		var mj struct {
			WeightsManifest []tfjsWeightGroup `json:"weightsManifest"`
		}
		if json.NewDecoder(bytes.NewReader(b)).Decode(&mj) == nil {
			for _, g := range mj.WeightsManifest {
				for _, p := range g.Paths {
					if filepath.IsLocal(filepath.FromSlash(p)) {
						out = append(out, filepath.Join(dir, filepath.FromSlash(p)))
					}
				}
			}
		}
	} else {
		if index := filepath.Join(dir, "variables", "variables.index"); isRegular(index) {
			out = append(out, index)
		}
		_ = filepath.WalkDir(filepath.Join(dir, "assets"), func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				out = append(out, p)
			}
			return nil
		})
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// head is the first n bytes of file (fewer when it is shorter, none when it
// cannot be read).
func head(file string, n int) []byte {
	f, err := os.Open(file)
	if err != nil {
		return nil
	}
	defer f.Close()
	b := make([]byte, n)
	k, _ := io.ReadFull(f, b)
	return b[:k]
}
