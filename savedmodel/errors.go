package savedmodel

import (
	"errors"
	"fmt"
	"strings"
)

// Error is a problem with one input file. Its message is one line,
// "FILE: problem", so that the CLI can print it as is and exit with the
// bad-input code; errors.As finds it through any wrapping.
type Error struct {
	// File is the file (or directory) the problem is in, as the user would
	// recognise it: the path given, joined with the file inside it.
	File string
	// Err is the problem, without the file name.
	Err error
}

// Error is "FILE: problem" on one line: control characters that came from
// the input (a text token holding a newline, say) are escaped.
func (e *Error) Error() string { return oneLine(e.File) + ": " + oneLine(e.Err.Error()) }

// oneLine escapes the control characters of s, Go-style.
func oneLine(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// ErrChunked is wrapped by the error Load returns for a chunked SavedModel
// (saved_model.cpb, written by TensorFlow's proto splitter for graphs over
// 2 GiB), which tfscan cannot read yet.
var ErrChunked = errors.New("chunked SavedModel is not supported yet")

// ErrNoModel is wrapped by the error Load returns when a path holds nothing
// that looks like a model.
var ErrNoModel = errors.New("no model found")

// fileErrorf returns an *Error for file with a formatted problem.
func fileErrorf(file, format string, args ...any) error {
	return &Error{File: file, Err: fmt.Errorf(format, args...)}
}
