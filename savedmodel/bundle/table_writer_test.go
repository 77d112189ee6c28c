package bundle

import (
	"encoding/binary"
	"hash/crc32"
)

// Test helpers that write the table format, so tests can build indexes the
// corpus does not have (compressed, multi-block, corrupt).

func putUvarint(b []byte, v uint64) []byte {
	var buf [binary.MaxVarintLen64]byte
	return append(b, buf[:binary.PutUvarint(buf[:], v)]...)
}

// buildBlock encodes entries with a restart point every restartEvery entries.
func buildBlock(entries []tableEntry, restartEvery int) []byte {
	var b []byte
	var restarts []uint32
	var prev []byte
	for i, e := range entries {
		shared := 0
		if i%restartEvery == 0 {
			restarts = append(restarts, uint32(len(b)))
		} else {
			for shared < len(prev) && shared < len(e.key) && prev[shared] == e.key[shared] {
				shared++
			}
		}
		b = putUvarint(b, uint64(shared))
		b = putUvarint(b, uint64(len(e.key)-shared))
		b = putUvarint(b, uint64(len(e.value)))
		b = append(b, e.key[shared:]...)
		b = append(b, e.value...)
		prev = e.key
	}
	if len(restarts) == 0 {
		restarts = []uint32{0}
	}
	for _, r := range restarts {
		b = binary.LittleEndian.AppendUint32(b, r)
	}
	return binary.LittleEndian.AppendUint32(b, uint32(len(restarts)))
}

// snappyLiteral encodes b as a valid Snappy stream of literals only.
func snappyLiteral(b []byte) []byte {
	out := putUvarint(nil, uint64(len(b)))
	for len(b) > 0 {
		n := min(len(b), 60)
		out = append(out, byte(n-1)<<2)
		out = append(out, b[:n]...)
		b = b[n:]
	}
	return out
}

// appendBlock writes a block with its trailer and returns its handle bytes.
func appendBlock(file []byte, block []byte, compress bool) ([]byte, []byte) {
	typ := byte(compressionNone)
	if compress {
		block = snappyLiteral(block)
		typ = compressionSnappy
	}
	h := putUvarint(nil, uint64(len(file)))
	h = putUvarint(h, uint64(len(block)))
	file = append(file, block...)
	crc := crc32.Update(crc32.Checksum(block, castagnoli), castagnoli, []byte{typ})
	file = append(file, typ)
	file = binary.LittleEndian.AppendUint32(file, maskedCRC(crc))
	return file, h
}

// buildTable writes a table with perBlock entries per data block.
func buildTable(entries []tableEntry, perBlock int, compress bool) []byte {
	var file []byte
	var index []tableEntry
	for i := 0; i < len(entries); i += perBlock {
		chunk := entries[i:min(i+perBlock, len(entries))]
		var h []byte
		file, h = appendBlock(file, buildBlock(chunk, 2), compress)
		index = append(index, tableEntry{key: chunk[len(chunk)-1].key, value: h})
	}
	file, meta := appendBlock(file, buildBlock(nil, 1), false)
	file, idx := appendBlock(file, buildBlock(index, 1), compress)
	footer := append(append([]byte{}, meta...), idx...)
	footer = append(footer, make([]byte, 40-len(footer))...)
	footer = binary.LittleEndian.AppendUint64(footer, tableMagic)
	return append(file, footer...)
}
