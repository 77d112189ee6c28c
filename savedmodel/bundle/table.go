package bundle

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// The index file of a tensor bundle is a table in LevelDB's SSTable format,
// as written by tensorflow/tsl/lib/io/table_builder.cc (format in
// tsl/lib/io/format.{h,cc} and block.cc): data blocks of prefix-compressed
// key/value entries with restart points, an index block mapping each data
// block's last key to its BlockHandle, a metaindex block, and a 48-byte
// footer ending in a magic number. Every block is followed by a 5-byte
// trailer: a compression type byte and a masked CRC32C of the block and that
// byte.

const (
	tableMagic      = 0xdb4775248b80fb57
	footerLen       = 48
	blockTrailerLen = 5

	compressionNone   = 0
	compressionSnappy = 1
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// maskedCRC is LevelDB/TensorFlow's crc32c::Mask: the checksum rotated and
// offset so that checksums of data containing checksums stay well spread.
func maskedCRC(c uint32) uint32 { return (c>>15 | c<<17) + 0xa282ead8 }

// unmaskCRC inverts maskedCRC.
func unmaskCRC(m uint32) uint32 {
	r := m - 0xa282ead8
	return r>>17 | r<<15
}

type blockHandle struct{ offset, size uint64 }

func decodeHandle(b []byte) (blockHandle, int, error) {
	off, n1 := binary.Uvarint(b)
	if n1 <= 0 {
		return blockHandle{}, 0, errors.New("bad block handle")
	}
	size, n2 := binary.Uvarint(b[n1:])
	if n2 <= 0 {
		return blockHandle{}, 0, errors.New("bad block handle")
	}
	return blockHandle{off, size}, n1 + n2, nil
}

// tableEntry is one key/value pair of the table.
type tableEntry struct {
	key, value []byte
}

// readTable parses a whole table held in data and returns its entries in
// key order, checking every block's checksum and that keys are strictly
// increasing.
func readTable(data []byte) ([]tableEntry, error) {
	if len(data) < footerLen {
		return nil, fmt.Errorf("file is %d bytes, too short for a table footer", len(data))
	}
	footer := data[len(data)-footerLen:]
	if m := binary.LittleEndian.Uint64(footer[footerLen-8:]); m != tableMagic {
		return nil, fmt.Errorf("bad table magic %#x (not a tensor-bundle index)", m)
	}
	_, n, err := decodeHandle(footer) // metaindex: unused
	if err != nil {
		return nil, fmt.Errorf("footer: %w", err)
	}
	indexHandle, _, err := decodeHandle(footer[n:])
	if err != nil {
		return nil, fmt.Errorf("footer: %w", err)
	}
	limit := uint64(len(data) - footerLen)
	index, err := readBlock(data, limit, indexHandle)
	if err != nil {
		return nil, fmt.Errorf("index block: %w", err)
	}
	handles, err := blockEntries(index)
	if err != nil {
		return nil, fmt.Errorf("index block: %w", err)
	}
	var out []tableEntry
	for i, h := range handles {
		bh, used, err := decodeHandle(h.value)
		if err != nil || used != len(h.value) {
			return nil, fmt.Errorf("index entry %d: bad block handle", i)
		}
		block, err := readBlock(data, limit, bh)
		if err != nil {
			return nil, fmt.Errorf("data block %d: %w", i, err)
		}
		entries, err := blockEntries(block)
		if err != nil {
			return nil, fmt.Errorf("data block %d: %w", i, err)
		}
		for _, e := range entries {
			if len(out) > 0 && bytes.Compare(out[len(out)-1].key, e.key) >= 0 {
				return nil, fmt.Errorf("data block %d: keys out of order at %q", i, e.key)
			}
			out = append(out, e)
		}
	}
	return out, nil
}

// readBlock returns the contents of the block at h, verified and
// decompressed. limit is where the footer starts.
func readBlock(data []byte, limit uint64, h blockHandle) ([]byte, error) {
	if h.offset > limit || h.size > limit-h.offset || limit-h.offset-h.size < blockTrailerLen {
		return nil, fmt.Errorf("block at offset %d size %d lies outside the file", h.offset, h.size)
	}
	raw := data[h.offset : h.offset+h.size]
	trailer := data[h.offset+h.size : h.offset+h.size+blockTrailerLen]
	want := unmaskCRC(binary.LittleEndian.Uint32(trailer[1:]))
	got := crc32.Update(crc32.Checksum(raw, castagnoli), castagnoli, trailer[:1])
	if got != want {
		return nil, fmt.Errorf("block checksum mismatch (corrupt file)")
	}
	switch trailer[0] {
	case compressionNone:
		return raw, nil
	case compressionSnappy:
		return snappyDecode(raw)
	}
	return nil, fmt.Errorf("unknown block compression type %d", trailer[0])
}

// blockEntries decodes every entry of a block: entries of (shared key
// length, unshared length, value length, key delta, value), then a uint32
// array of restart offsets and its uint32 count.
func blockEntries(b []byte) ([]tableEntry, error) {
	if len(b) < 4 {
		return nil, errors.New("block too short")
	}
	numRestarts := uint64(binary.LittleEndian.Uint32(b[len(b)-4:]))
	if numRestarts == 0 || numRestarts > uint64(len(b)-4)/4 {
		return nil, fmt.Errorf("bad restart count %d", numRestarts)
	}
	end := len(b) - 4 - int(numRestarts)*4
	restarts := map[int]bool{}
	for i := 0; i < int(numRestarts); i++ {
		r := int(binary.LittleEndian.Uint32(b[end+4*i:]))
		if r > end {
			return nil, fmt.Errorf("restart point %d outside the block", r)
		}
		restarts[r] = true
	}
	var out []tableEntry
	var prev []byte
	pos := 0
	for pos < end {
		var hdr [3]uint64
		start := pos
		for i := range hdr {
			v, n := binary.Uvarint(b[pos:end])
			if n <= 0 {
				return nil, fmt.Errorf("bad entry header at offset %d", start)
			}
			hdr[i] = v
			pos += n
		}
		shared, unshared, vlen := hdr[0], hdr[1], hdr[2]
		if shared > uint64(len(prev)) {
			return nil, fmt.Errorf("entry at offset %d shares %d bytes of a %d-byte key", start, shared, len(prev))
		}
		if restarts[start] && shared != 0 {
			return nil, fmt.Errorf("entry at restart point %d shares a prefix", start)
		}
		if unshared > uint64(end-pos) || vlen > uint64(end-pos)-unshared {
			return nil, fmt.Errorf("entry at offset %d runs past the block", start)
		}
		key := make([]byte, 0, shared+unshared)
		key = append(key, prev[:shared]...)
		key = append(key, b[pos:pos+int(unshared)]...)
		pos += int(unshared)
		value := b[pos : pos+int(vlen)]
		pos += int(vlen)
		out = append(out, tableEntry{key: key, value: value})
		prev = key
	}
	return out, nil
}
