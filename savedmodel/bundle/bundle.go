// Package bundle reads TensorFlow tensor-bundle checkpoints (the
// variables/variables.index + variables.data-NNNNN-of-NNNNN files of a
// SavedModel) without TensorFlow: the index table, the header and entry
// protos, and the tensors' bytes in the data shards, with every offset, size
// and checksum checked. The format is TensorFlow's
// tensorflow/core/util/tensor_bundle/tensor_bundle.{h,cc}.
package bundle

import (
	"github.com/tfscan/tfscan/dtype"

	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"sort"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"
	"google.golang.org/protobuf/proto"
)

// maxIndexSize bounds the index file read into memory. Index files hold one
// small entry per variable; a real one is kilobytes to a few megabytes.
const maxIndexSize = 1 << 30

// maxTensorBytes bounds one tensor read from a shard (the same 1 GiB-ish
// budget the executor allows for one tensor, plus string overhead).
const maxTensorBytes = 4 << 30

// headerKey is the index key of the BundleHeaderProto (kHeaderEntryKey).
const headerKey = ""

// Reader reads one tensor bundle. It keeps the index in memory and opens
// data shards on demand; it is safe for concurrent reads.
type Reader struct {
	prefix  string
	header  *mgpb.BundleHeaderProto
	entries map[string]*mgpb.BundleEntryProto
	keys    []string
}

// IndexPath returns the index file name of a bundle prefix.
func IndexPath(prefix string) string { return prefix + ".index" }

// ShardPath returns the data file name of shard id of numShards
// (naming.cc: PREFIX.data-%05d-of-%05d).
func ShardPath(prefix string, id, numShards int) string {
	return fmt.Sprintf("%s.data-%05d-of-%05d", prefix, id, numShards)
}

// Open reads and checks the index of the bundle at prefix (e.g.
// "model/variables/variables"). Errors name the index file.
func Open(prefix string) (*Reader, error) {
	path := IndexPath(prefix)
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > maxIndexSize {
		return nil, fmt.Errorf("%s: index of %d bytes is too large", path, st.Size())
	}
	data, err := io.ReadAll(io.LimitReader(f, maxIndexSize))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r, err := parseIndex(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r.prefix = prefix
	return r, nil
}

// parseIndex decodes an index file's bytes.
func parseIndex(data []byte) (*Reader, error) {
	entries, err := readTable(data)
	if err != nil {
		return nil, err
	}
	if len(entries) == 0 || len(entries[0].key) != 0 {
		return nil, errors.New("no bundle header (the empty key) in the index")
	}
	header := &mgpb.BundleHeaderProto{}
	if err := proto.Unmarshal(entries[0].value, header); err != nil {
		return nil, fmt.Errorf("bundle header: %w", err)
	}
	if header.GetEndianness() != mgpb.BundleHeaderProto_LITTLE {
		return nil, errors.New("big-endian checkpoints are not supported")
	}
	if header.GetNumShards() <= 0 || header.GetNumShards() > 100000 {
		return nil, fmt.Errorf("bundle header: bad num_shards %d", header.GetNumShards())
	}
	r := &Reader{header: header, entries: map[string]*mgpb.BundleEntryProto{}}
	for _, e := range entries[1:] {
		key := string(e.key)
		entry := &mgpb.BundleEntryProto{}
		if err := proto.Unmarshal(e.value, entry); err != nil {
			return nil, fmt.Errorf("entry %q: %w", key, err)
		}
		if err := checkEntry(entry, header.GetNumShards()); err != nil {
			return nil, fmt.Errorf("entry %q: %w", key, err)
		}
		r.entries[key] = entry
		r.keys = append(r.keys, key)
	}
	sort.Strings(r.keys)
	return r, nil
}

func checkEntry(e *mgpb.BundleEntryProto, numShards int32) error {
	if e.GetShardId() < 0 || e.GetShardId() >= numShards {
		return fmt.Errorf("shard_id %d outside [0, %d)", e.GetShardId(), numShards)
	}
	if e.GetOffset() < 0 || e.GetSize() < 0 || e.GetSize() > math.MaxInt64-e.GetOffset() {
		return fmt.Errorf("bad offset %d / size %d", e.GetOffset(), e.GetSize())
	}
	if e.GetShape().GetUnknownRank() {
		return errors.New("shape has unknown rank")
	}
	for _, d := range e.GetShape().GetDim() {
		if d.GetSize() < 0 {
			return fmt.Errorf("shape has negative dimension %d", d.GetSize())
		}
	}
	return nil
}

// Prefix returns the bundle prefix the reader was opened with.
func (r *Reader) Prefix() string { return r.prefix }

// NumShards returns the number of data shards the header declares.
func (r *Reader) NumShards() int { return int(r.header.GetNumShards()) }

// Keys returns the tensor keys (variable names like
// "variables/0/.ATTRIBUTES/VARIABLE_VALUE" or "a"), sorted.
func (r *Reader) Keys() []string { return append([]string(nil), r.keys...) }

// Entry returns the index entry for key.
func (r *Reader) Entry(key string) (*mgpb.BundleEntryProto, bool) {
	e, ok := r.entries[key]
	return e, ok
}

// Shape returns the entry's shape as int64 dims.
func Shape(e *mgpb.BundleEntryProto) []int64 {
	shape := make([]int64, 0, len(e.GetShape().GetDim()))
	for _, d := range e.GetShape().GetDim() {
		shape = append(shape, d.GetSize())
	}
	return shape
}

// numElements returns the element count, or an error when it overflows or
// exceeds the byte budget for size-byte elements.
func numElements(shape []int64, size int64) (int64, error) {
	n := int64(1)
	for _, d := range shape {
		if d != 0 && n > maxTensorBytes/d {
			return 0, fmt.Errorf("shape %v is too large", shape)
		}
		n *= d
	}
	if size > 0 && n > maxTensorBytes/size {
		return 0, fmt.Errorf("shape %v is too large", shape)
	}
	return n, nil
}

// Read returns the dtype, shape and raw little-endian bytes of a
// fixed-size-dtype tensor, after checking that the shard holds exactly the
// bytes the shape needs and that their CRC32C matches the entry's. Use
// ReadStrings for DT_STRING. Errors name the shard file.
func (r *Reader) Read(key string) (tpb.DataType, []int64, []byte, error) {
	e, ok := r.entries[key]
	if !ok {
		return 0, nil, nil, fmt.Errorf("%s: no tensor %q in the checkpoint", IndexPath(r.prefix), key)
	}
	dt, shape := e.GetDtype(), Shape(e)
	if len(e.GetSlices()) > 0 {
		return dt, shape, nil, fmt.Errorf("%s: tensor %q is saved in slices (partitioned variable), which is not supported", IndexPath(r.prefix), key)
	}
	size := int64(dtype.Size(dt))
	if size == 0 {
		return dt, shape, nil, fmt.Errorf("%s: tensor %q has dtype %s, which Read does not decode (strings: use ReadStrings)", IndexPath(r.prefix), key, dt)
	}
	n, err := numElements(shape, size)
	if err != nil {
		return dt, shape, nil, fmt.Errorf("%s: tensor %q: %w", IndexPath(r.prefix), key, err)
	}
	if e.GetSize() != n*size {
		return dt, shape, nil, fmt.Errorf("%s: tensor %q of shape %v needs %d bytes but the entry says %d", IndexPath(r.prefix), key, shape, n*size, e.GetSize())
	}
	raw, err := r.readShard(key, e)
	if err != nil {
		return dt, shape, nil, err
	}
	if got := crc32.Checksum(raw, castagnoli); got != unmaskCRC(e.GetCrc32C()) {
		return dt, shape, nil, fmt.Errorf("%s: checksum mismatch for tensor %q (corrupt checkpoint)", r.shardPath(e), key)
	}
	return dt, shape, raw, nil
}

// ReadStrings returns the shape and elements of a DT_STRING tensor, stored
// as varint64 lengths, a masked CRC32C of the lengths, then the bytes
// (WriteStringTensor in tensor_bundle.cc).
func (r *Reader) ReadStrings(key string) ([]int64, [][]byte, error) {
	e, ok := r.entries[key]
	if !ok {
		return nil, nil, fmt.Errorf("%s: no tensor %q in the checkpoint", IndexPath(r.prefix), key)
	}
	shape := Shape(e)
	if e.GetDtype() != tpb.DataType_DT_STRING {
		return shape, nil, fmt.Errorf("%s: tensor %q has dtype %s, not DT_STRING", IndexPath(r.prefix), key, e.GetDtype())
	}
	if len(e.GetSlices()) > 0 {
		return shape, nil, fmt.Errorf("%s: tensor %q is saved in slices (partitioned variable), which is not supported", IndexPath(r.prefix), key)
	}
	n, err := numElements(shape, 1)
	if err != nil {
		return shape, nil, fmt.Errorf("%s: tensor %q: %w", IndexPath(r.prefix), key, err)
	}
	if n == 0 {
		return shape, [][]byte{}, nil
	}
	raw, err := r.readShard(key, e)
	if err != nil {
		return shape, nil, err
	}
	out, err := decodeStrings(raw, int(n), unmaskCRC(e.GetCrc32C()))
	if err != nil {
		return shape, nil, fmt.Errorf("%s: tensor %q: %w", r.shardPath(e), key, err)
	}
	return shape, out, nil
}

func decodeStrings(raw []byte, n int, wantCRC uint32) ([][]byte, error) {
	if n > len(raw) {
		return nil, errors.New("fewer bytes than string elements")
	}
	lens := make([]uint64, n)
	crc := uint32(0)
	pos := 0
	var buf [8]byte
	for i := range lens {
		v, k := binary.Uvarint(raw[pos:])
		if k <= 0 {
			return nil, fmt.Errorf("bad length of string %d", i)
		}
		lens[i] = v
		pos += k
		if v <= math.MaxUint32 {
			binary.LittleEndian.PutUint32(buf[:4], uint32(v))
			crc = crc32.Update(crc, castagnoli, buf[:4])
		} else {
			binary.LittleEndian.PutUint64(buf[:], v)
			crc = crc32.Update(crc, castagnoli, buf[:])
		}
	}
	if len(raw)-pos < 4 {
		return nil, errors.New("missing length checksum")
	}
	lenCRC := raw[pos : pos+4]
	if unmaskCRC(binary.LittleEndian.Uint32(lenCRC)) != crc {
		return nil, errors.New("string length checksum mismatch (corrupt checkpoint)")
	}
	crc = crc32.Update(crc, castagnoli, lenCRC)
	pos += 4
	dataStart := pos
	out := make([][]byte, n)
	for i, l := range lens {
		if l > uint64(len(raw)-pos) {
			return nil, fmt.Errorf("string %d runs past the entry", i)
		}
		out[i] = raw[pos : pos+int(l)]
		pos += int(l)
	}
	if pos != len(raw) {
		return nil, fmt.Errorf("%d unexpected trailing bytes", len(raw)-pos)
	}
	crc = crc32.Update(crc, castagnoli, raw[dataStart:])
	if crc != wantCRC {
		return nil, errors.New("checksum mismatch (corrupt checkpoint)")
	}
	return out, nil
}

func (r *Reader) shardPath(e *mgpb.BundleEntryProto) string {
	return ShardPath(r.prefix, int(e.GetShardId()), r.NumShards())
}

// readShard reads an entry's bytes from its shard, checking that the range
// lies inside the file before allocating.
func (r *Reader) readShard(key string, e *mgpb.BundleEntryProto) ([]byte, error) {
	path := r.shardPath(e)
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: checkpoint data shard is missing (needed for tensor %q)", path, key)
		}
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if e.GetOffset() > st.Size() || e.GetSize() > st.Size()-e.GetOffset() {
		return nil, fmt.Errorf("%s: tensor %q at offset %d size %d lies past the end of the %d-byte shard (truncated checkpoint)",
			path, key, e.GetOffset(), e.GetSize(), st.Size())
	}
	if e.GetSize() > maxTensorBytes {
		return nil, fmt.Errorf("%s: tensor %q of %d bytes is too large", path, key, e.GetSize())
	}
	buf := make([]byte, e.GetSize())
	if _, err := f.ReadAt(buf, e.GetOffset()); err != nil {
		return nil, fmt.Errorf("%s: reading tensor %q: %w", path, key, err)
	}
	return buf, nil
}
