package jsonout

import (
	"unicode/utf8"

	"github.com/tfscan/tfscan/reports"
)

// appendNode appends n as encoding/json's compact encoding of a
// reports.NodeResult writes it, byte for byte (TestAppendNodeIsEncodingJSON):
// a report of every node of a large model is mostly these entries, and
// encoding/json's reflection costs several times this. A field added to
// NodeResult must be added here too; the test fails until it is.
func appendNode(dst []byte, n *reports.NodeResult) []byte {
	dst = append(dst, `{"path":`...)
	dst = appendString(dst, n.Path)
	dst = append(dst, `,"op":`...)
	dst = appendString(dst, n.Op)
	if len(n.DTypes) > 0 {
		dst = appendStrings(dst, `,"dtypes":`, n.DTypes)
	}
	dst = append(dst, `,"reason":`...)
	dst = appendString(dst, n.Reason)
	if n.Reachable {
		dst = append(dst, `,"reachable":true`...)
	} else {
		dst = append(dst, `,"reachable":false`...)
	}
	dst = appendField(dst, `,"phase":`, n.Phase)
	dst = appendField(dst, `,"lowered_to":`, n.LoweredTo)
	dst = appendField(dst, `,"device":`, n.Device)
	if len(n.Reasons) > 0 {
		dst = appendStrings(dst, `,"reasons":`, n.Reasons)
	}
	dst = appendField(dst, `,"source_device":`, n.SourceDevice)
	dst = appendField(dst, `,"change":`, n.Change)
	dst = appendField(dst, `,"requested_device":`, n.RequestedDevice)
	dst = appendField(dst, `,"part":`, n.Part)
	return append(dst, '}')
}

// appendField appends an omitempty string field: nothing when s is empty.
func appendField(dst []byte, key, s string) []byte {
	if s == "" {
		return dst
	}
	return appendString(append(dst, key...), s)
}

func appendStrings(dst []byte, key string, ss []string) []byte {
	dst = append(dst, key...)
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, s)
	}
	return append(dst, ']')
}

// plain tells the bytes appendString copies as they are: ASCII but for
// control characters, the quote, the backslash and HTML's <, > and &.
var plain = func() (t [256]bool) {
	for b := ' '; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
	}
	return t
}()

// appendString quotes s as encoding/json does with HTML escaping on (its
// default): <, > and & as \u003c, \u003e and \u0026, control characters
// by their short escapes where JSON has one, invalid UTF-8 as \ufffd, and
// U+2028 and U+2029 escaped.
func appendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if plain[b] {
			i++
			continue
		}
		if b < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
