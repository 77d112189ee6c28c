package opdefgen

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// tokKind classifies a C++ token; the lexer knows just enough C++ to walk
// REGISTER_OP builder chains: comments, preprocessor lines, string literals
// (including raw strings), identifiers and punctuation.
type tokKind int

const (
	tokIdent tokKind = iota
	tokString
	tokNumber
	tokPunct
	tokChar
)

type token struct {
	kind tokKind
	text string // identifier/punct text, or the decoded string literal
	line int
}

// lex splits C++ source into tokens. Preprocessor lines are dropped, so the
// bodies of #ifdef blocks are all kept: an op registered under INTEL_MKL is
// still an op TensorFlow can register. Parameterless function-like macros
// (`#define BINARY_FEWER() Input("x: T")...`, math_ops.cc) are expanded where
// they are called.
func lex(src string) ([]token, error) {
	toks, macros, err := lexRaw(src)
	if err != nil {
		return nil, err
	}
	if len(macros) == 0 {
		return toks, nil
	}
	for round := 0; round < 4; round++ {
		var out []token
		changed := false
		for i := 0; i < len(toks); i++ {
			t := toks[i]
			if body, ok := macros[t.text]; ok && t.kind == tokIdent && i+2 < len(toks) && isPunct(toks[i+1], "(") && isPunct(toks[i+2], ")") {
				out = append(out, body...)
				i += 2
				changed = true
				continue
			}
			out = append(out, t)
		}
		toks = out
		if !changed {
			break
		}
	}
	return toks, nil
}

var defineRe = regexp.MustCompile(`^#\s*define\s+([A-Za-z_][A-Za-z0-9_]*)\(\)\s`)

func lexRaw(src string) ([]token, map[string][]token, error) {
	var toks []token
	macros := map[string][]token{}
	line := 1
	atLineStart := true
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			line++
			atLineStart = true
			i++
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
			continue
		case c == '#' && atLineStart:
			// Preprocessor directive, with backslash continuations.
			start := i
			for i < len(src) && src[i] != '\n' {
				if src[i] == '\\' && i+1 < len(src) && src[i+1] == '\n' {
					line++
					i++
				}
				i++
			}
			if m := defineRe.FindStringSubmatch(src[start:i]); m != nil {
				body := strings.ReplaceAll(src[start+len(m[0]):i], "\\\n", " \n")
				bt, _, err := lexRaw(body)
				if err != nil {
					return nil, nil, fmt.Errorf("line %d: macro %s: %v", line, m[1], err)
				}
				macros[m[1]] = bt
			}
			continue
		case strings.HasPrefix(src[i:], "//"):
			for i < len(src) && src[i] != '\n' {
				i++
			}
			continue
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return nil, nil, fmt.Errorf("line %d: unterminated comment", line)
			}
			line += strings.Count(src[i:i+2+end+2], "\n")
			i += 2 + end + 2
			continue
		}
		atLineStart = false
		switch {
		case c == 'R' && i+1 < len(src) && src[i+1] == '"':
			// Raw string R"delim(...)delim".
			open := strings.IndexByte(src[i+2:], '(')
			if open < 0 {
				return nil, nil, fmt.Errorf("line %d: bad raw string", line)
			}
			delim := src[i+2 : i+2+open]
			body := i + 2 + open + 1
			end := strings.Index(src[body:], ")"+delim+"\"")
			if end < 0 {
				return nil, nil, fmt.Errorf("line %d: unterminated raw string", line)
			}
			s := src[body : body+end]
			toks = append(toks, token{tokString, s, line})
			line += strings.Count(s, "\n")
			i = body + end + len(delim) + 2
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(src) && src[j] != c {
				if src[j] == '\\' {
					j++
				}
				if j < len(src) && src[j] == '\n' {
					return nil, nil, fmt.Errorf("line %d: newline in literal", line)
				}
				j++
			}
			if j >= len(src) {
				return nil, nil, fmt.Errorf("line %d: unterminated literal", line)
			}
			raw := src[i+1 : j]
			if c == '\'' {
				toks = append(toks, token{tokChar, raw, line})
			} else {
				s, err := unescapeC(raw)
				if err != nil {
					return nil, nil, fmt.Errorf("line %d: %v", line, err)
				}
				toks = append(toks, token{tokString, s, line})
			}
			i = j + 1
		case isIdentStart(c):
			j := i
			for j < len(src) && (isIdentChar(src[j]) || (src[j] == ':' && j+1 < len(src) && src[j+1] == ':')) {
				if src[j] == ':' {
					j++
				}
				j++
			}
			toks = append(toks, token{tokIdent, src[i:j], line})
			i = j
		case c >= '0' && c <= '9':
			j := i
			for j < len(src) && (isIdentChar(src[j]) || src[j] == '.') {
				j++
			}
			toks = append(toks, token{tokNumber, src[i:j], line})
			i = j
		default:
			toks = append(toks, token{tokPunct, string(c), line})
			i++
		}
	}
	return toks, macros, nil
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentChar(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }

// unescapeC decodes the body of a C string literal.
func unescapeC(s string) (string, error) {
	if !strings.Contains(s, "\\") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		i++
		if i >= len(s) {
			return "", fmt.Errorf("bad escape in %q", s)
		}
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '\\', '"', '\'', '?':
			b.WriteByte(s[i])
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			v, _ := strconv.ParseUint(s[i:j], 8, 8)
			b.WriteByte(byte(v))
			i = j - 1
		default:
			return "", fmt.Errorf("unsupported escape \\%c in %q", s[i], s)
		}
	}
	return b.String(), nil
}
