package tflog

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrBinary is returned for input that is not a text log: a NUL byte in its
// first sniffLen bytes (after gunzip). TensorFlow, glog and CANN's slog
// write text.
var ErrBinary = errors.New("not a text log")

// sniffLen is how much of the start of a log is checked for binary data.
const sniffLen = 8 << 10

// lineReader hands out one line at a time, at most MaxLine bytes of it; the
// rest of a longer line is read and dropped, so memory stays bounded by
// MaxLine whatever the input.
type lineReader struct {
	r   *bufio.Reader
	buf []byte
}

// newLineReader opens r as a log: gzip-compressed input (by its magic
// bytes) is decompressed on the fly; binary input is refused.
func newLineReader(r io.Reader) (*lineReader, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("bad gzip data: %w", err)
		}
		br = bufio.NewReaderSize(zr, 64<<10)
	}
	head, err := br.Peek(sniffLen)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, err
	}
	if i := bytes.IndexByte(head, 0); i >= 0 {
		return nil, fmt.Errorf("%w: NUL byte at offset %d", ErrBinary, i)
	}
	return &lineReader{r: br}, nil
}

// next returns the next line without its line ending, whether it was cut,
// and io.EOF after the last line.
func (lr *lineReader) next() (line []byte, cut bool, err error) {
	lr.buf = lr.buf[:0]
	total := 0
	for {
		chunk, err := lr.r.ReadSlice('\n')
		total += len(chunk)
		if room := MaxLine - len(lr.buf); room > 0 {
			lr.buf = append(lr.buf, chunk[:min(len(chunk), room)]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, false, err
		}
		if err != nil && total == 0 {
			return nil, false, io.EOF
		}
		content := total
		if len(chunk) > 0 && chunk[len(chunk)-1] == '\n' {
			content--
		}
		return trimEOL(lr.buf), content > MaxLine, nil
	}
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}

// ParseFile parses the log at path; "-" reads stdin.
func ParseFile(path string, stdin io.Reader) (*Log, error) {
	if path == "-" {
		return Parse(stdin)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, errors.New("is a directory, not a log file")
	}
	return Parse(f)
}
