// Package extract reads kernel registrations out of C++ kernel sources
// (TensorFlow core, tf2xla, Intel ITEX, Moore Threads MUSA, DirectML, the
// CANN parser plugins) so that tfscan's built-in packs can be regenerated
// from pinned sources.
//
// For macro-based sources it uses the C preprocessor purely as a text macro
// expander: every header reachable from a kernel file is copied into a
// shadow tree keeping only its preprocessor directives (so TF_CALL_* and
// local REGISTER helpers expand, but no C++ is pulled in), the definition of
// the registration macro itself is dropped so it survives expansion, and
// includes that do not resolve inside the source tree are removed. The
// expanded text is then parsed by ParseRegistrations.
package extract

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/internal/lazyre"
)

// Markers are the registration macros whose calls are parsed; their own
// #define lines are dropped from the shadow tree so they stay unexpanded.
var Markers = []string{"REGISTER_KERNEL_BUILDER", "REGISTER_SYSTEM_KERNEL_BUILDER", "REGISTER_ASYNC_KERNEL_BUILDER", "REGISTER_XLA_OP"}

// kernelMarkers are the markers of the "tf" style: TensorFlow's two and
// ITEX's REGISTER_ASYNC_KERNEL_BUILDER (itex/core/utils/op_kernel.h).
var kernelMarkers = []string{"REGISTER_KERNEL_BUILDER", "REGISTER_SYSTEM_KERNEL_BUILDER", "REGISTER_ASYNC_KERNEL_BUILDER"}

// Options says what to preprocess and how.
type Options struct {
	// Source is the root of the source tree; includes resolve against it.
	Source string
	// Dirs are files or directories under Source to scan for .cc/.cpp
	// kernel files (default: all of Source).
	Dirs []string
	// Exclude drops files whose slash path (relative to Source) matches
	// one of these regular expressions. Test files are dropped unless named
	// on their own in Dirs.
	Exclude []string
	// Includes are extra include roots, relative to Source.
	Includes []string
	// Defines are -D values for the preprocessor: NAME or NAME=VALUE.
	Defines []string
	// Marker is the macro whose calls are registrations; default
	// REGISTER_KERNEL_BUILDER (and REGISTER_SYSTEM_KERNEL_BUILDER).
	Marker string
	// TypeListFiles are headers (relative to Source) whose named dtype
	// lists (constexpr std::array<DataType, N> kFloatTypes = ...) resolve
	// TypeConstraint("T", kFloatTypes).
	TypeListFiles []string
	// CPP is the preprocessor program; default "cpp".
	CPP string
	// Parse, when set, replaces the marker-macro parser (DirectML's
	// template registrations need their own).
	Parse func(text, file string, syms *Symbols) ([]Registration, []Skip)
}

// Result is everything found, sorted by file.
type Result struct {
	Registrations []Registration
	Skips         []Skip
	Files         int
	// CPPErrors are files the preprocessor complained about; their output
	// was still parsed.
	CPPErrors []Skip
	// TypeLists are the named dtype lists of Options.TypeListFiles.
	TypeLists TypeLists
	// Stack is what the stack does around its kernels, when its reader ran
	// (ascend_stack.go, optimizer.go).
	Stack *coverage.Stack
}

// testFile matches test sources, CUDA ones (gpu_prim_helpers_test.cu.cc)
// included: no installed TensorFlow has their kernels.
var testFile = lazyre.New(`(_test|_testlib|_test_util|_test_utils|test_util|_benchmark|testutil)(\.cu)?\.(cc|cpp|h)$|/testdata/|/tests?/|(^|/)test_`)

// Extract preprocesses every kernel file and parses its registrations.
func Extract(ctx context.Context, o Options) (*Result, error) {
	if o.Source == "" {
		return nil, errors.New("no source directory")
	}
	if st, err := os.Stat(o.Source); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("source %s is not a directory", o.Source)
	}
	if o.CPP == "" {
		o.CPP = "cpp"
	}
	var excl []*regexp.Regexp
	for _, e := range o.Exclude {
		re, err := regexp.Compile(e)
		if err != nil {
			return nil, fmt.Errorf("bad --exclude %q: %w", e, err)
		}
		excl = append(excl, re)
	}
	files, err := kernelFiles(o.Source, o.Dirs, excl)
	if err != nil {
		return nil, err
	}
	lists := TypeLists{}
	for _, f := range o.TypeListFiles {
		data, err := os.ReadFile(filepath.Join(o.Source, f))
		if err != nil {
			return nil, fmt.Errorf("type list file: %w", err)
		}
		for k, v := range CollectTypeLists(string(data)) {
			lists[k] = v
		}
	}
	shadow, err := os.MkdirTemp("", "tfscan-extract-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(shadow)
	sh := &shadowTree{src: o.Source, dst: shadow, incs: o.Includes, done: map[string]bool{}}
	for _, f := range files {
		if err := sh.ensure(f, false); err != nil {
			return nil, err
		}
	}
	sh.finishStrings()
	markers := kernelMarkers
	if o.Marker != "" {
		markers = []string{o.Marker}
	}
	args := []string{"-P", "-x", "c++", "-std=c++17", "-nostdinc", "-w", "-I", shadow}
	for _, inc := range o.Includes {
		args = append(args, "-I", filepath.Join(shadow, inc))
	}
	for _, d := range o.Defines {
		args = append(args, "-D"+d)
	}

	type out struct {
		regs   []Registration
		skips  []Skip
		cppErr *Skip
		err    error
	}
	outs := make([]out, len(files))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, f := range files {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			cmd := exec.CommandContext(ctx, o.CPP, append(slices.Clone(args), filepath.Join(shadow, f))...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			runErr := cmd.Run()
			if ctx.Err() != nil {
				outs[i].err = ctx.Err()
				return
			}
			if runErr != nil {
				var ee *exec.ExitError
				if !errors.As(runErr, &ee) {
					outs[i].err = fmt.Errorf("running %s: %w", o.CPP, runErr)
					return
				}
				outs[i].cppErr = &Skip{File: f, Reason: firstLine(stderr.String())}
			}
			text := stdout.String()
			syms := &Symbols{Types: TypeLists{}, Strings: map[string]string{}}
			for k, v := range lists {
				syms.Types[k] = v
			}
			for k, v := range CollectTypeLists(text) {
				syms.Types[k] = v
			}
			for k, v := range sh.strings {
				syms.Strings[k] = v
			}
			for k, v := range CollectStrings(text) {
				syms.Strings[k] = v
			}
			if o.Parse != nil {
				outs[i].regs, outs[i].skips = o.Parse(text, f, syms)
				return
			}
			for _, m := range markers {
				r, s := ParseRegistrations(text, f, m, syms)
				outs[i].regs = append(outs[i].regs, r...)
				outs[i].skips = append(outs[i].skips, s...)
			}
			if o.Marker == "" && strings.Contains(text, "TF_NewKernelBuilder") {
				r, s := ParseCAPIRegistrations(text, f, syms)
				outs[i].regs = append(outs[i].regs, r...)
				outs[i].skips = append(outs[i].skips, s...)
			}
		}()
	}
	wg.Wait()
	res := &Result{Files: len(files), TypeLists: lists}
	for _, o := range outs {
		if o.err != nil {
			return nil, o.err
		}
		res.Registrations = append(res.Registrations, o.regs...)
		res.Skips = append(res.Skips, o.skips...)
		if o.cppErr != nil {
			res.CPPErrors = append(res.CPPErrors, *o.cppErr)
		}
	}
	return res, nil
}

// firstLine picks the first "error:" line of the preprocessor's stderr.
func firstLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for _, l := range lines {
		if strings.Contains(l, "error:") {
			return strings.TrimSpace(l)
		}
	}
	return strings.TrimSpace(lines[0])
}

// kernelFiles lists the .cc/.cpp files under dirs, sorted, tests dropped.
func kernelFiles(root string, dirs []string, excl []*regexp.Regexp) ([]string, error) {
	if len(dirs) == 0 {
		dirs = []string{"."}
	}
	seen := map[string]bool{}
	var files []string
	for _, d := range dirs {
		base := filepath.Join(root, d)
		st, err := os.Stat(base)
		if err != nil {
			return nil, fmt.Errorf("source dir: %w", err)
		}
		// A file named on its own is read even when its name looks like a
		// test's (tensorflow/python/framework/test_ops.cc is linked into
		// the wheel): naming it is the decision.
		named := !st.IsDir()
		err = filepath.WalkDir(base, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if e.IsDir() || !(strings.HasSuffix(p, ".cc") || strings.HasSuffix(p, ".cpp")) {
				return nil
			}
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			rel = filepath.ToSlash(rel)
			if !named && testFile.MatchString(rel) || seen[rel] {
				return nil
			}
			for _, re := range excl {
				if re.MatchString(rel) {
					return nil
				}
			}
			seen[rel] = true
			files = append(files, rel)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	slices.Sort(files)
	return files, nil
}

// shadowTree writes filtered copies of source files under dst.
type shadowTree struct {
	src, dst string
	incs     []string
	mu       sync.Mutex
	done     map[string]bool
	// strings are string constants seen in any shadowed file; a name
	// defined with two different values is dropped as ambiguous.
	strings   map[string]string
	ambiguous map[string]bool
}

func (t *shadowTree) addStrings(m map[string]string) {
	if t.strings == nil {
		t.strings, t.ambiguous = map[string]string{}, map[string]bool{}
	}
	for k, v := range m {
		if old, ok := t.strings[k]; ok && old != v {
			t.ambiguous[k] = true
		}
		t.strings[k] = v
	}
}

func (t *shadowTree) finishStrings() {
	for k := range t.ambiguous {
		delete(t.strings, k)
	}
}

var includeRE = lazyre.New(`^\s*#\s*include\s*([<"])([^>"]+)[>"]`)
var directiveRE = lazyre.New(`^\s*#`)

// ensure writes the shadow copy of rel (slash path relative to src) and of
// everything it includes. Headers keep only preprocessor directives; kernel
// files keep everything. Both lose unresolvable includes, #error lines and
// the definitions of the marker macros.
func (t *shadowTree) ensure(rel string, header bool) error {
	t.mu.Lock()
	if t.done[rel] {
		t.mu.Unlock()
		return nil
	}
	t.done[rel] = true
	t.mu.Unlock()
	data, err := os.ReadFile(filepath.Join(t.src, filepath.FromSlash(rel)))
	if err != nil {
		return err
	}
	t.addStrings(CollectStrings(string(data)))
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var pending []string // a logical line with continuations
	var deps []string
	flush := func() {
		if len(pending) == 0 {
			return
		}
		logical := pending
		pending = nil
		first := logical[0]
		isDirective := directiveRE.MatchString(first)
		if !isDirective {
			if !header {
				for _, l := range logical {
					out.WriteString(l)
					out.WriteByte('\n')
				}
			}
			return
		}
		trimmed := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(first), "#"))
		if strings.HasPrefix(trimmed, "error") || strings.HasPrefix(trimmed, "warning") || strings.HasPrefix(trimmed, "include_next") || strings.HasPrefix(trimmed, "import") {
			return
		}
		if strings.HasPrefix(trimmed, "define") {
			name := strings.TrimSpace(strings.TrimPrefix(trimmed, "define"))
			for _, m := range Markers {
				if name == m || strings.HasPrefix(name, m+"(") || strings.HasPrefix(name, m+" ") || strings.HasPrefix(name, m+"\t") {
					return
				}
			}
		}
		if strings.HasPrefix(trimmed, "include") {
			m := includeRE.FindStringSubmatch(first)
			if m == nil {
				return // computed include
			}
			target, ok := t.resolve(rel, m[2], m[1] == "\"")
			if !ok {
				return
			}
			deps = append(deps, target)
		}
		for _, l := range logical {
			out.WriteString(l)
			out.WriteByte('\n')
		}
	}
	for sc.Scan() {
		line := sc.Text()
		pending = append(pending, line)
		if !strings.HasSuffix(line, "\\") {
			flush()
		}
	}
	flush()
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", rel, err)
	}
	dst := filepath.Join(t.dst, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(dst, out.Bytes(), 0o644); err != nil {
		return err
	}
	for _, d := range deps {
		if err := t.ensure(d, !strings.HasSuffix(d, ".cc") && !strings.HasSuffix(d, ".cpp")); err != nil {
			return err
		}
	}
	return nil
}

// resolve finds an included file inside the source tree; the result is a
// slash path relative to src. The shadow tree mirrors src, so the include
// line itself can stay as written.
func (t *shadowTree) resolve(from, inc string, quoted bool) (string, bool) {
	var cands []string
	if quoted {
		cands = append(cands, filepath.ToSlash(filepath.Join(filepath.Dir(from), inc)))
	}
	cands = append(cands, filepath.ToSlash(filepath.Clean(inc)))
	for _, d := range t.incs {
		cands = append(cands, filepath.ToSlash(filepath.Join(d, inc)))
	}
	for _, c := range cands {
		if strings.HasPrefix(c, "../") {
			continue
		}
		if st, err := os.Stat(filepath.Join(t.src, filepath.FromSlash(c))); err == nil && st.Mode().IsRegular() {
			// An include found through an include root must be shadowed
			// at the same relative place under that root; c already is.
			return c, true
		}
	}
	return "", false
}

var typeListRE = lazyre.New(`(?s)(?:std::array<\s*(?:::)?(?:tensorflow::)?DataType\s*,\s*\d+\s*>|std::vector<\s*(?:::)?(?:tensorflow::)?DataType\s*>|DataTypeVector|DataType)\s+(\w+)(?:\[\d*\])?\s*=?\s*\{[\s{]*([^;{}]*?)[\s}]*\}\s*;`)

var typeListFuncRE = lazyre.New(`(?s)(?:std::vector<\s*(?:::)?(?:tensorflow::)?DataType\s*>|DataTypeVector)\s+(\w+)\(\)\s*\{\s*return\s*\{([^;{}]*)\}\s*;\s*\}`)

// CollectTypeLists finds named dtype lists in C++ text:
// constexpr std::array<DataType, 4> kFloatTypes = {{DT_HALF, DT_FLOAT, ...}};
// and functions returning a constant list,
// std::vector<DataType> GetXlaConvTypesForGpu() { return {DT_FLOAT, ...}; }
// (looked up as "GetXlaConvTypesForGpu()").
func CollectTypeLists(text string) TypeLists {
	out := TypeLists{}
	for _, m := range typeListFuncRE.FindAllStringSubmatch(text, -1) {
		if types, ok := parseTypeExpr("{"+m[2]+"}", nil); ok {
			out[m[1]+"()"] = types
		}
	}
	for _, m := range typeListRE.FindAllStringSubmatch(text, -1) {
		types, ok := parseTypeExpr("{"+m[2]+"}", nil)
		if ok {
			out[m[1]] = types
		}
	}
	return out
}

var stringConstRE = lazyre.New(`(?:const\s+char\s*\*\s*(?:const\s+)?|char\s+const\s*\*\s*(?:const\s+)?|char\s+|absl::string_view\s+|std::string\s+|string_view\s+|StringPiece\s+)(\w+)\s*(?:\[\])?\s*=\s*((?:"(?:[^"\\\n]|\\.)*"\s*)+);`)

// CollectStrings finds string constants in C++ text:
// static constexpr const char* const kArgOp = "_Arg";
func CollectStrings(text string) map[string]string {
	out := map[string]string{}
	for _, m := range stringConstRE.FindAllStringSubmatch(text, -1) {
		if v, ok := stringLiteral(m[2]); ok {
			out[m[1]] = v
		}
	}
	return out
}
