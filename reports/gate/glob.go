package gate

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Glob patterns in gate configuration match node paths, op names, targets
// and model paths: "*" matches within one path segment, "**" across
// segments, "?" one character other than "/"; everything else is literal.
var globCache sync.Map // pattern → *regexp.Regexp

func compileGlob(pattern string) (*regexp.Regexp, error) {
	if re, ok := globCache.Load(pattern); ok {
		return re.(*regexp.Regexp), nil
	}
	if pattern == "" {
		return nil, fmt.Errorf("empty pattern")
	}
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; c {
		case '*':
			if i+1 < len(pattern) && pattern[i+1] == '*' {
				b.WriteString(".*")
				i++
			} else {
				b.WriteString("[^/]*")
			}
		case '?':
			b.WriteString("[^/]")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, fmt.Errorf("pattern %q: %v", pattern, err)
	}
	globCache.Store(pattern, re)
	return re, nil
}

// globMatch reports whether s matches pattern; invalid patterns match
// nothing (Policy.Validate rejects them before evaluation).
func globMatch(pattern, s string) bool {
	re, err := compileGlob(pattern)
	return err == nil && re.MatchString(s)
}
