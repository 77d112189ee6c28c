package bundle

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// maxSnappyLen bounds the decoded size of one compressed table block. Index
// blocks are a few KiB in practice (TF's default block size is 4 KiB... 256
// KiB); anything above this is a corrupt length, not a block.
const maxSnappyLen = 64 << 20

// snappyDecode decodes one block in the Snappy raw format (no framing), as
// the LevelDB table format stores compressed blocks. The format is
// documented in google/snappy's format_description.txt: a uvarint decoded
// length, then literal and copy elements.
func snappyDecode(src []byte) ([]byte, error) {
	n, k := binary.Uvarint(src)
	if k <= 0 {
		return nil, errors.New("snappy: bad length header")
	}
	if n > maxSnappyLen {
		return nil, fmt.Errorf("snappy: decoded length %d too large", n)
	}
	// A snappy element never expands by more than a factor of ~64 per
	// input byte; refuse lengths the input cannot produce before
	// allocating.
	if n > uint64(len(src))*64+64 {
		return nil, fmt.Errorf("snappy: decoded length %d impossible for %d input bytes", n, len(src))
	}
	dst := make([]byte, 0, n)
	s := k
	for s < len(src) {
		tag := src[s]
		switch tag & 3 {
		case 0: // literal
			l := int(tag >> 2)
			s++
			if l >= 60 {
				nb := l - 59
				if s+nb > len(src) {
					return nil, errors.New("snappy: truncated literal length")
				}
				l = 0
				for i := 0; i < nb; i++ {
					l |= int(src[s+i]) << (8 * i)
				}
				s += nb
			}
			l++
			if l <= 0 || l > len(src)-s {
				return nil, errors.New("snappy: literal runs past input")
			}
			if uint64(len(dst)+l) > n {
				return nil, errors.New("snappy: output longer than declared")
			}
			dst = append(dst, src[s:s+l]...)
			s += l
			continue
		case 1:
			if s+2 > len(src) {
				return nil, errors.New("snappy: truncated copy")
			}
			length := 4 + int(tag>>2)&7
			offset := int(tag&0xe0)<<3 | int(src[s+1])
			s += 2
			if err := snappyCopy(&dst, offset, length, n); err != nil {
				return nil, err
			}
		case 2:
			if s+3 > len(src) {
				return nil, errors.New("snappy: truncated copy")
			}
			length := 1 + int(tag>>2)
			offset := int(binary.LittleEndian.Uint16(src[s+1:]))
			s += 3
			if err := snappyCopy(&dst, offset, length, n); err != nil {
				return nil, err
			}
		case 3:
			if s+5 > len(src) {
				return nil, errors.New("snappy: truncated copy")
			}
			length := 1 + int(tag>>2)
			offset := int(binary.LittleEndian.Uint32(src[s+1:]))
			s += 5
			if err := snappyCopy(&dst, offset, length, n); err != nil {
				return nil, err
			}
		}
	}
	if uint64(len(dst)) != n {
		return nil, fmt.Errorf("snappy: decoded %d bytes, header says %d", len(dst), n)
	}
	return dst, nil
}

func snappyCopy(dst *[]byte, offset, length int, limit uint64) error {
	d := *dst
	if offset <= 0 || offset > len(d) {
		return errors.New("snappy: bad copy offset")
	}
	if uint64(len(d)+length) > limit {
		return errors.New("snappy: output longer than declared")
	}
	// Byte by byte: a copy may overlap its own output (run-length).
	start := len(d) - offset
	for i := 0; i < length; i++ {
		d = append(d, d[start+i])
	}
	*dst = d
	return nil
}
