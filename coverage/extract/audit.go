package extract

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/tfscan/tfscan/internal/lazyre"
)

// LiteralRegistration is a kernel registration whose op name is a string
// literal in the source text, found without the preprocessor: the
// completeness audit's independent view of a source tree.
type LiteralRegistration struct {
	File string
	Line int
	Op   string
	// Device is the device type as written: "CPU", "GPU", "DEFAULT",
	// "XLA" for REGISTER_XLA_OP, another literal type (TPU_SYSTEM), or
	// "*" when it is a macro parameter.
	Device string
	// Guard is the stack of #if conditions around it, joined by " && "
	// (#else negates the condition: "!(COND)").
	Guard string
}

// Exclusion is one entry of the audit's list of registrations that are
// knowingly in no pack, with the reason. Empty fields match anything.
type Exclusion struct {
	Path   *regexp.Regexp // the slash path of the file
	Op     string         // the exact op name
	Device string         // the device as LiteralRegistration.Device writes it
	If     *regexp.Regexp // the enclosing #if conditions, LiteralRegistration.Guard
	Reason string
	Line   int // line in the exclusions file
}

func (x Exclusion) matches(r LiteralRegistration) bool {
	return (x.Path == nil || x.Path.MatchString(r.File)) && (x.Op == "" || x.Op == r.Op) &&
		(x.Device == "" || x.Device == r.Device) && (x.If == nil || x.If.MatchString(r.Guard))
}

// ReadExclusions parses an exclusions file. Each entry is one line of
// key=value fields, a colon, and the reason:
//
//	path=^tensorflow/core/tpu/ op=Foo device=TPU_SYSTEM if=MACOS : why
//
// path and if are regular expressions (if= matches the #if conditions
// around the registration), op and device exact values; at least one of
// them and a reason are required. # starts a comment line.
func ReadExclusions(r io.Reader, name string) ([]Exclusion, error) {
	var out []Exclusion
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields, reason, ok := strings.Cut(line, " : ")
		reason = strings.TrimSpace(reason)
		if !ok || reason == "" {
			return nil, fmt.Errorf("%s:%d: want key=value fields, \" : \", and a reason", name, n)
		}
		x := Exclusion{Reason: reason, Line: n}
		for _, f := range strings.Fields(fields) {
			k, v, _ := strings.Cut(f, "=")
			var err error
			switch k {
			case "path":
				x.Path, err = regexp.Compile(v)
			case "if":
				x.If, err = regexp.Compile(v)
			case "op":
				x.Op = v
			case "device":
				x.Device = v
			default:
				err = fmt.Errorf("unknown field %q (path, op, device, if)", f)
			}
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", name, n, err)
			}
		}
		if x.Path == nil && x.If == nil && x.Op == "" && x.Device == "" {
			return nil, fmt.Errorf("%s:%d: an exclusion must name a path, op, device or if", name, n)
		}
		out = append(out, x)
	}
	return out, sc.Err()
}

// AuditResult is what Audit found.
type AuditResult struct {
	Files int
	// Found counts every literal registration seen.
	Found int
	// Missing are registrations in no pack for their device and on no
	// exclusion line.
	Missing []LiteralRegistration
	// Excluded counts, per exclusion line, the registrations it covered.
	Excluded map[int]int
	// Unused are exclusion lines that covered nothing (stale entries).
	Unused []Exclusion
}

// Audit finds every literal kernel registration in the non-test .cc/.h
// files under dirs of root and checks it against has(op, device), which
// says whether a pack for that device type holds the op ("*": any pack).
// A registration that no pack holds must match an exclusion.
func Audit(root string, dirs []string, has func(op, device string) bool, excl []Exclusion) (*AuditResult, error) {
	res := &AuditResult{Excluded: map[int]int{}}
	for _, d := range dirs {
		base := filepath.Join(root, filepath.FromSlash(d))
		err := filepath.WalkDir(base, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if e.IsDir() || !(strings.HasSuffix(p, ".cc") || strings.HasSuffix(p, ".h") || strings.HasSuffix(p, ".cpp")) {
				return nil
			}
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			rel = filepath.ToSlash(rel)
			if testFile.MatchString(rel) {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			res.Files++
			for _, r := range LiteralRegistrations(string(data), rel) {
				res.Found++
				if has(r.Op, r.Device) {
					continue
				}
				i := slices.IndexFunc(excl, func(x Exclusion) bool { return x.matches(r) })
				if i < 0 {
					res.Missing = append(res.Missing, r)
					continue
				}
				res.Excluded[excl[i].Line]++
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("audit: %w", err)
		}
	}
	for _, x := range excl {
		if res.Excluded[x.Line] == 0 {
			res.Unused = append(res.Unused, x)
		}
	}
	return res, nil
}

var (
	litNameRE   = lazyre.New(`\bName\(\s*"([A-Za-z0-9_>]+)"\s*\)`)
	litRegNRE   = lazyre.New(`\bREGISTER\d*\(\s*\w+\s*,\s*(\w+)\s*,\s*"([A-Za-z0-9_]+)"`)
	litLinalgRE = lazyre.New(`\bREGISTER_LINALG_OP(_CPU|_GPU)?\(\s*"([A-Za-z0-9_]+)"`)
	litCAPIRE   = lazyre.New(`\bTF_NewKernelBuilder\(\s*"([A-Za-z0-9_]+)"\s*,\s*([\w:]+)`)
	xlaOpTailRE = lazyre.New(`REGISTER_XLA_OP\(\s*$`)
)

// LiteralRegistrations lists the kernel registrations of one source text
// whose op name is a literal: Name("Op")...Device(D) builder chains,
// REGISTER_XLA_OP(Name("Op"), ...), the cwise REGISTERn(Kernel, D, "Op",
// ...) and REGISTER_LINALG_OP("Op", ...) helpers, and the C API's
// TF_NewKernelBuilder("Op", D, ...). Comments and #if 0 blocks are
// ignored; other preprocessor conditions are not evaluated (the audit is
// deliberately independent of the build configuration).
func LiteralRegistrations(text, file string) []LiteralRegistration {
	text, guards := auditText(text)
	var out []LiteralRegistration
	add := func(off int, op, dev string) {
		line := 1 + strings.Count(text[:off], "\n")
		out = append(out, LiteralRegistration{File: file, Line: line, Op: op, Device: dev, Guard: guards[line-1]})
	}
	for _, m := range litNameRE.FindAllStringSubmatchIndex(text, -1) {
		op := text[m[2]:m[3]]
		if xlaOpTailRE.MatchString(text[max(0, m[0]-40):m[0]]) {
			add(m[0], op, "XLA")
			continue
		}
		if dev, ok := chainDevice(text[m[1]:]); ok {
			add(m[0], op, dev)
		}
	}
	for _, m := range litRegNRE.FindAllStringSubmatchIndex(text, -1) {
		add(m[0], text[m[4]:m[5]], auditDevice(text[m[2]:m[3]]))
	}
	for _, m := range litLinalgRE.FindAllStringSubmatchIndex(text, -1) {
		dev := "CPU"
		if m[2] >= 0 && text[m[2]:m[3]] == "_GPU" {
			dev = "GPU"
		}
		add(m[0], text[m[4]:m[5]], dev)
	}
	for _, m := range litCAPIRE.FindAllStringSubmatchIndex(text, -1) {
		add(m[0], text[m[2]:m[3]], auditDevice(text[m[4]:m[5]]))
	}
	return out
}

// chainDevice follows a builder chain (.Device(D).TypeConstraint<T>("T")...)
// and returns its Device argument.
func chainDevice(s string) (string, bool) {
	calls, _ := splitCalls("X()" + leadingChain(s))
	for _, c := range calls[min(1, len(calls)):] {
		if c.name == "Device" {
			return auditDevice(c.args), true
		}
	}
	return "", false
}

// leadingChain cuts s after the last balanced .method(...) call that
// directly follows the start.
func leadingChain(s string) string {
	i := 0
	for {
		j := skipSpace(s, i)
		if j >= len(s) || s[j] != '.' {
			return s[:i]
		}
		j = skipSpace(s, j+1)
		k := j
		for k < len(s) && isIdent(s[k]) {
			k++
		}
		if k == j {
			return s[:i]
		}
		k = skipSpace(s, k)
		if k < len(s) && s[k] == '<' {
			e := matchAngle(s, k)
			if e < 0 {
				return s[:i]
			}
			k = skipSpace(s, e+1)
		}
		if k >= len(s) || s[k] != '(' {
			return s[:i]
		}
		e := matchClose(s, k)
		if e < 0 {
			return s[:i]
		}
		i = e + 1
	}
}

// auditDevice names a device argument: DEVICE_CPU, "CPU", CPU ->
// "CPU"; a macro parameter (D, DEVICE_##D, dev) -> "*".
func auditDevice(arg string) string {
	arg = strings.TrimSpace(arg)
	if s, ok := stringLiteral(arg); ok {
		return s
	}
	if strings.Contains(arg, "##") {
		return "*"
	}
	id := lastComponent(arg)
	switch id {
	case "CPU", "GPU", "DEFAULT": // the D argument of the cwise REGISTERn helpers
		return id
	}
	if t, ok := strings.CutPrefix(id, "DEVICE_"); ok && isIdentString(t) {
		return t // DEVICE_CPU, DEVICE_TPU_SYSTEM
	}
	return "*" // a macro parameter
}

// auditText blanks comments and #if 0 blocks (keeping newlines, so line
// numbers stay right) and turns line continuations into spaces. It returns
// each line's #if conditions too.
func auditText(s string) (string, []string) {
	b := []byte(s)
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '"' || b[i] == '\'':
			i = skipQuotedBytes(b, i)
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '/':
			for ; i < len(b) && b[i] != '\n'; i++ {
				b[i] = ' '
			}
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '*':
			for ; i < len(b) && !(b[i] == '*' && i+1 < len(b) && b[i+1] == '/'); i++ {
				if b[i] != '\n' {
					b[i] = ' '
				}
			}
			if i+1 < len(b) {
				b[i], b[i+1] = ' ', ' '
				i++
			}
		case b[i] == '\\' && i+1 < len(b) && b[i+1] == '\n':
			b[i] = ' '
		}
	}
	lines := strings.Split(string(b), "\n")
	guards := make([]string, len(lines))
	var stack []string
	depth := 0 // nesting inside an #if 0 block
	for i, l := range lines {
		guards[i] = strings.Join(stack, " && ")
		directive := strings.HasPrefix(strings.TrimSpace(l), "#")
		if !directive {
			if depth > 0 {
				lines[i] = ""
			}
			continue
		}
		t := strings.Join(strings.Fields(strings.TrimPrefix(strings.TrimSpace(l), "#")), " ")
		word, cond, _ := strings.Cut(t, " ")
		switch word {
		case "if", "ifdef", "ifndef":
			switch word {
			case "ifdef":
				cond = "defined(" + cond + ")"
			case "ifndef":
				cond = "!defined(" + cond + ")"
			}
			stack = append(stack, cond)
			if depth > 0 {
				depth++
			} else if cond == "0" {
				depth = 1
			}
		case "else", "elif":
			if len(stack) > 0 {
				top := "!(" + stack[len(stack)-1] + ")"
				if word == "elif" {
					top += " && " + cond
				}
				stack[len(stack)-1] = top
			}
			if depth == 1 {
				depth = 0
			}
		case "endif":
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			if depth > 0 {
				depth--
			}
		default: // #define, #include, ...: kept unless inside #if 0
			if depth > 0 {
				lines[i] = ""
			}
			continue
		}
		lines[i] = ""
	}
	return strings.Join(lines, "\n"), guards
}

// skipQuotedBytes returns the index of the quote closing the one at b[i],
// stopping at a newline (an apostrophe in a comment-free #error line).
func skipQuotedBytes(b []byte, i int) int {
	q := b[i]
	for i++; i < len(b) && b[i] != q && b[i] != '\n'; i++ {
		if b[i] == '\\' {
			i++
		}
	}
	return i
}
