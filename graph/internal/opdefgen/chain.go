package opdefgen

import (
	"fmt"
	"strconv"
	"strings"

	opdefpb "github.com/wamuir/graft/tensorflow/core/framework/op_def_go_proto"
)

// ParseRegistrations finds every REGISTER_OP("Name") / REGISTER_SYSTEM_OP
// chain with a literal name that keep accepts in C++ source and finalizes it
// into an OpDef.
// helpers maps spec-string helper functions (GetPaddingAttrString) to their
// returned string. A chain it cannot evaluate is an error, never a guess.
func ParseRegistrations(src string, helpers map[string]string, keep func(name string) bool) ([]*opdefpb.OpDef, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	var ops []*opdefpb.OpDef
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind != tokIdent || (t.text != "REGISTER_OP" && t.text != "REGISTER_SYSTEM_OP") {
			continue
		}
		if i+3 >= len(toks) || !isPunct(toks[i+1], "(") || toks[i+2].kind != tokString || !isPunct(toks[i+3], ")") {
			continue // a macro definition or a non-literal name
		}
		if keep != nil && !keep(toks[i+2].text) {
			continue
		}
		b := newBuilder(toks[i+2].text)
		j := i + 4
		for j < len(toks) && isPunct(toks[j], ".") {
			if j+2 >= len(toks) || toks[j+1].kind != tokIdent || !isPunct(toks[j+2], "(") {
				return nil, fmt.Errorf("line %d: op %s: bad builder call", toks[j].line, b.def.Name)
			}
			method := toks[j+1].text
			args, next, err := splitArgs(toks, j+3)
			if err != nil {
				return nil, fmt.Errorf("line %d: op %s: %w", toks[j].line, b.def.Name, err)
			}
			if err := b.apply(method, args, helpers); err != nil {
				return nil, fmt.Errorf("line %d: op %s: %w", toks[j].line, b.def.Name, err)
			}
			j = next
		}
		if j >= len(toks) || !isPunct(toks[j], ";") {
			return nil, fmt.Errorf("line %d: op %s: chain does not end in ';'", t.line, b.def.Name)
		}
		def, err := b.finalize()
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", t.line, err)
		}
		ops = append(ops, def)
		i = j
	}
	return ops, nil
}

func isPunct(t token, p string) bool { return t.kind == tokPunct && t.text == p }

// splitArgs reads the arguments of a call whose '(' precedes toks[start],
// splitting on top-level commas; it returns the index after the ')'.
func splitArgs(toks []token, start int) ([][]token, int, error) {
	var args [][]token
	var cur []token
	depth := 0
	for i := start; i < len(toks); i++ {
		t := toks[i]
		if t.kind == tokPunct {
			switch t.text {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				if depth == 0 {
					if t.text != ")" {
						return nil, 0, fmt.Errorf("unbalanced %q", t.text)
					}
					if len(cur) > 0 || len(args) > 0 {
						args = append(args, cur)
					}
					return args, i + 1, nil
				}
				depth--
			case ",":
				if depth == 0 {
					args = append(args, cur)
					cur = nil
					continue
				}
			}
		}
		cur = append(cur, t)
	}
	return nil, 0, fmt.Errorf("unterminated call")
}

// apply records one builder call. Calls that only affect C++ behaviour
// (shape functions, full-type constructors, docs) are skipped; ops.pbtxt
// carries no docs either.
func (b *builder) apply(method string, args [][]token, helpers map[string]string) error {
	str := func() (string, error) {
		if len(args) != 1 {
			return "", fmt.Errorf("%s: want 1 argument, got %d", method, len(args))
		}
		return evalString(args[0], helpers)
	}
	flag := func(f *bool) error {
		if len(args) != 0 {
			return fmt.Errorf("%s takes no arguments", method)
		}
		*f = true
		return nil
	}
	switch method {
	case "Input", "Output", "Attr", "ControlOutput":
		s, err := str()
		if err != nil {
			return err
		}
		switch method {
		case "Input":
			b.ins = append(b.ins, s)
		case "Output":
			b.outs = append(b.outs, s)
		case "Attr":
			b.attrs = append(b.attrs, s)
		default:
			b.controlOuts = append(b.controlOuts, s)
		}
		return nil
	case "SetIsStateful", "SetDoNotOptimize":
		// SetDoNotOptimize reuses the stateful flag (OpDefBuilderWrapper in
		// tensorflow/core/framework/op.h).
		return flag(&b.def.IsStateful)
	case "SetIsCommutative":
		return flag(&b.def.IsCommutative)
	case "SetIsAggregate":
		return flag(&b.def.IsAggregate)
	case "SetAllowsUninitializedInput":
		return flag(&b.def.AllowsUninitializedInput)
	case "SetIsDistributedCommunication":
		return flag(&b.def.IsDistributedCommunication)
	case "AllowAttrTypeAny":
		return flag(&b.allowAttrTypeAny)
	case "Deprecated":
		if len(args) != 2 || len(args[0]) != 1 || args[0][0].kind != tokNumber {
			return fmt.Errorf("Deprecated: want (version, explanation)")
		}
		v, err := strconv.ParseInt(args[0][0].text, 10, 32)
		if err != nil {
			return err
		}
		expl, err := evalString(args[1], helpers)
		if err != nil {
			return err
		}
		b.def.Deprecation = &opdefpb.OpDeprecation{Version: int32(v), Explanation: expl}
		return nil
	case "Doc", "SetShapeFn", "SetTypeConstructor", "SetForwardTypeFn", "SetReverseTypeFn":
		return nil
	}
	return fmt.Errorf("unknown builder method %s", method)
}

// evalString evaluates a spec-string expression: adjacent string literals,
// a helper call, a file-level string constant, or absl::StrCat/strings::StrCat of those.
func evalString(toks []token, helpers map[string]string) (string, error) {
	if len(toks) == 0 {
		return "", fmt.Errorf("empty argument")
	}
	allStrings := true
	for _, t := range toks {
		if t.kind != tokString {
			allStrings = false
			break
		}
	}
	if allStrings {
		var s strings.Builder
		for _, t := range toks {
			s.WriteString(t.text)
		}
		return s.String(), nil
	}
	if len(toks) == 1 && toks[0].kind == tokIdent {
		if v, ok := helpers[toks[0].text]; ok {
			return v, nil
		}
	}
	if toks[0].kind == tokIdent && len(toks) >= 3 && isPunct(toks[1], "(") && isPunct(toks[len(toks)-1], ")") {
		name := strings.TrimPrefix(strings.TrimPrefix(toks[0].text, "::"), "tensorflow::")
		args, next, err := splitArgs(toks, 2)
		if err != nil {
			return "", err
		}
		if next != len(toks) {
			return "", fmt.Errorf("cannot evaluate %s", render(toks))
		}
		switch name {
		case "absl::StrCat", "strings::StrCat", "StrCat":
			var s strings.Builder
			for _, a := range args {
				v, err := evalString(a, helpers)
				if err != nil {
					return "", err
				}
				s.WriteString(v)
			}
			return s.String(), nil
		}
		if v, ok := helpers[name]; ok && len(args) == 0 {
			return v, nil
		}
	}
	return "", fmt.Errorf("cannot evaluate %s", render(toks))
}

func render(toks []token) string {
	var parts []string
	for _, t := range toks {
		if t.kind == tokString {
			parts = append(parts, strconv.Quote(t.text))
		} else {
			parts = append(parts, t.text)
		}
	}
	return strings.Join(parts, " ")
}
