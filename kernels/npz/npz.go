package npz

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/tfscan/tfscan/kernels"
)

// maxMemberBytes bounds one decompressed .npz member (a zip bomb guard):
// the largest tensor tfscan allocates plus header room.
const maxMemberBytes = int64(kernels.MaxElements)*8 + maxHeaderLen + 16

// Read reads an .npz archive (numpy.savez / savez_compressed) from path; the
// keys are the member names without ".npy". A bare .npy file is also
// accepted and read as the single key "arr_0" (numpy.load's name for it
// inside savez). Errors name the file and the member.
func Read(path string) (map[string]*kernels.Tensor, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var head [6]byte
	if _, err := io.ReadFull(f, head[:]); err == nil && string(head[:]) == magic {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
		t, err := ReadNPY(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return map[string]*kernels.Tensor{"arr_0": t}, nil
	}
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	zr, err := zip.NewReader(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: not an .npz or .npy file: %w", path, err)
	}
	out := map[string]*kernels.Tensor{}
	for _, m := range zr.File {
		if m.FileInfo().IsDir() {
			continue
		}
		key := strings.TrimSuffix(m.Name, ".npy")
		if _, dup := out[key]; dup {
			return nil, fmt.Errorf("%s: duplicate member %q", path, m.Name)
		}
		if m.UncompressedSize64 > uint64(maxMemberBytes) {
			return nil, fmt.Errorf("%s: member %q is too large (%d bytes)", path, m.Name, m.UncompressedSize64)
		}
		rc, err := m.Open()
		if err != nil {
			return nil, fmt.Errorf("%s: member %q: %w", path, m.Name, err)
		}
		t, err := ReadNPY(io.LimitReader(rc, int64(m.UncompressedSize64)))
		if err == nil {
			// Reading to EOF makes archive/zip check the CRC.
			_, err = io.Copy(io.Discard, rc)
		}
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: member %q: %w", path, m.Name, err)
		}
		out[key] = t
	}
	return out, nil
}

// Write writes tensors as an .npz archive at path (stored, like
// numpy.savez), members in key order with a fixed timestamp so that the
// same tensors give byte-identical files.
func Write(path string, tensors map[string]*kernels.Tensor) error {
	var buf bytes.Buffer
	if err := Encode(&buf, tensors); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// Encode writes tensors as an .npz archive to w (see Write).
func Encode(w io.Writer, tensors map[string]*kernels.Tensor) error {
	zw := zip.NewWriter(w)
	for _, k := range SortedKeys(tensors) {
		hdr := &zip.FileHeader{Name: k + ".npy", Method: zip.Store, Modified: time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)}
		mw, err := zw.CreateHeader(hdr)
		if err != nil {
			return err
		}
		if err := WriteNPY(mw, tensors[k]); err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
	}
	return zw.Close()
}
