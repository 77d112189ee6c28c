package bundle

import (
	"fmt"

	"github.com/golang/snappy"
)

// maxSnappyLen bounds the decoded size of one compressed table block. Index
// blocks are a few KiB in practice (TF's default block size is 4 KiB... 256
// KiB); anything above this is a corrupt length, not a block.
const maxSnappyLen = 64 << 20

// snappyDecode decodes one block in the Snappy raw block format (no
// framing), as the LevelDB table format of a checkpoint's index stores
// compressed blocks (third_party/xla/third_party/tsl/tsl/lib/io/format.cc:139-150 ReadBlock,
// port::Snappy_Uncompress). github.com/golang/snappy decodes it; the
// decoded length its header declares is checked first, so that a corrupt
// header cannot make it allocate more than maxSnappyLen, or more than the
// input can produce (one element of at most 5 bytes yields at most 64).
func snappyDecode(src []byte) ([]byte, error) {
	n, err := snappy.DecodedLen(src)
	if err != nil {
		return nil, fmt.Errorf("snappy block: %w", err)
	}
	if n > maxSnappyLen {
		return nil, fmt.Errorf("snappy block: decoded length %d too large", n)
	}
	if n > len(src)*64+64 {
		return nil, fmt.Errorf("snappy block: decoded length %d impossible for %d input bytes", n, len(src))
	}
	out, err := snappy.Decode(nil, src)
	if err != nil {
		return nil, fmt.Errorf("snappy block: %w", err)
	}
	return out, nil
}
