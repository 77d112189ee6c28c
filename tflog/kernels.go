package tflog

import (
	"strconv"
	"strings"
)

// parseKernel reads one registered-kernel line as op_kernel.cc:1631-1650
// (KernelsRegisteredForOp) prints it: "device='", type, "'" then
// "; label='", label, "'" and "; ", name, " in ", SummarizeAttrValue(
// allowed_values) per constraint. elided is set when TensorFlow shortened a
// value (attr_value_util.cc:277-345: lists of 30 or more values keep the
// first five and last six around "...", with "{attr_hash=N}" after; strings
// of 80 escaped bytes or more keep ten bytes each side of "...").
func parseKernel(s string) (k Kernel, elided, ok bool) {
	s = strings.TrimSpace(s)
	rest, found := strings.CutPrefix(s, "device='")
	if !found {
		return k, false, false
	}
	i := strings.IndexByte(rest, '\'')
	if i < 0 {
		return k, false, false
	}
	k.DeviceType, rest = rest[:i], rest[i+1:]
	for rest != "" {
		rest, found = strings.CutPrefix(rest, "; ")
		if !found {
			return k, elided, false
		}
		if after, isLabel := strings.CutPrefix(rest, "label='"); isLabel {
			j := strings.IndexByte(after, '\'')
			if j < 0 {
				return k, elided, false
			}
			k.Label, rest = after[:j], after[j+1:]
			continue
		}
		name, after, found := strings.Cut(rest, " in ")
		if !found || name == "" || strings.ContainsAny(name, " ;[]'\"") {
			return k, elided, false
		}
		items, remain, short, ok := readList(after)
		if !ok {
			return k, elided, false
		}
		c, cShort, ok := constraintOf(name, items)
		if !ok {
			return k, elided, false
		}
		elided = elided || short || cShort
		k.Constraints = append(k.Constraints, c)
		rest = remain
	}
	return k, elided, true
}

// readList reads "[a, b, ...]" (strings quoted, as CEscape writes them) and
// an optional "{attr_hash=N}", returning the items and what follows.
func readList(s string) (items []string, rest string, elided, ok bool) {
	if !strings.HasPrefix(s, "[") {
		return nil, s, false, false
	}
	inQuote, esc := false, false
	start := 1
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case esc:
			esc = false
		case inQuote && c == '\\':
			esc = true
		case c == '"':
			inQuote = !inQuote
		case !inQuote && c == ',':
			items = append(items, strings.TrimSpace(s[start:i]))
			start = i + 1
		case !inQuote && c == ']':
			if last := strings.TrimSpace(s[start:i]); last != "" || len(items) > 0 {
				items = append(items, last)
			}
			rest = s[i+1:]
			if strings.HasPrefix(rest, "{attr_hash=") {
				j := strings.IndexByte(rest, '}')
				if j < 0 {
					return nil, s, false, false
				}
				rest, elided = rest[j+1:], true
			}
			for _, it := range items {
				if it == "..." {
					elided = true
				}
			}
			return items, rest, elided, true
		}
	}
	return nil, s, false, false
}

// constraintOf types a constraint's values by their look: DT_ names, ints,
// quoted strings or booleans. An empty list says nothing usable (ok false).
func constraintOf(name string, items []string) (c Constraint, elided, ok bool) {
	c.Name = name
	var vals []string
	for _, it := range items {
		if it != "..." {
			vals = append(vals, it)
		}
	}
	if len(vals) == 0 {
		return c, false, false
	}
	switch {
	case strings.HasPrefix(vals[0], "DT_"):
		for _, v := range vals {
			if !strings.HasPrefix(v, "DT_") {
				return c, false, false
			}
			c.Types = append(c.Types, v)
		}
	case strings.HasPrefix(vals[0], `"`):
		for _, v := range vals {
			str, short, ok := unquoteC(v)
			if !ok {
				return c, false, false
			}
			elided = elided || short
			c.Strings = append(c.Strings, str)
		}
	case vals[0] == "true" || vals[0] == "false":
		for _, v := range vals {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return c, false, false
			}
			c.Bools = append(c.Bools, b)
		}
	default:
		for _, v := range vals {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return c, false, false
			}
			c.Ints = append(c.Ints, n)
		}
	}
	return c, elided, true
}

// unquoteC undoes SummarizeString: a double-quoted absl::CEscape string,
// shortened to 10+"..."+10 bytes when its escaped form had 80 or more.
func unquoteC(q string) (s string, elided, ok bool) {
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		return "", false, false
	}
	inner := q[1 : len(q)-1]
	if len(inner) == 23 && inner[10:13] == "..." {
		elided = true
	}
	s, err := strconv.Unquote(`"` + strings.ReplaceAll(inner, `\'`, `'`) + `"`)
	if err != nil {
		return "", false, false
	}
	return s, elided, true
}
