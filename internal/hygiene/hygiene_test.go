// Package hygiene checks the repository's text: the product speaks in the
// present tense, so no source file or document names the work items it was
// built under, and every citation of docs/placement.md names a section that
// exists, so that a reader of a printed reason can follow it.
package hygiene

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// root is the repository root, seen from this package's directory.
const root = "../.."

// workItem matches references to development work items: an issue number,
// a numbered stop, an item of a numbered issue, and figures of an earlier
// build quoted beside today's (a ratio after "was").
var workItem = regexp.MustCompile(`(?i)\bissues? #?\d+\b|\bstops? \d+\b|#\d+ items?\b|\bwas \d[\d.,–-]*x\b`)

// citation matches a mention of placement.md with what precedes it on the
// path and what follows it: an anchor, or a section sign.
var citation = regexp.MustCompile(`([\w./-]*)placement\.md(#[\w-]+)?(\s*§)?`)

// heading matches a Markdown ATX heading.
var heading = regexp.MustCompile(`(?m)^#{1,6}\s+(.+?)\s*#*\s*$`)

// textExt are the kinds of files people write and read: code, scripts,
// tests and documents (generated data and binaries are left out).
var textExt = []string{".go", ".md", ".txtar", ".sh", ".py", ".js", ".txt", ".yaml", ".yml", ".html", ".css"}

// textFiles returns the repository's code, scripts and documents,
// relative to root, leaving out build output and dependencies.
func textFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "bin" || name == "out") {
				return filepath.SkipDir
			}
			return nil
		}
		if name == "Makefile" || slices.Contains(textExt, filepath.Ext(name)) {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	require.NoError(t, err)
	require.NotEmpty(t, files)
	return files
}

func read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	require.NoError(t, err)
	return string(b)
}

// workItems returns each line of text that names a work item, numbered.
func workItems(text string) []string {
	var found []string
	for i, line := range strings.Split(text, "\n") {
		if m := workItem.FindString(line); m != "" {
			found = append(found, fmt.Sprintf("line %d: %q in %s", i+1, m, strings.TrimSpace(line)))
		}
	}
	return found
}

// slug is the anchor GitHub gives a heading: lower case, punctuation
// dropped (hyphens and underscores kept), spaces turned into hyphens.
func slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors returns the anchors of a Markdown document's headings.
func anchors(doc string) map[string]bool {
	a := map[string]bool{}
	for _, m := range heading.FindAllStringSubmatch(doc, -1) {
		a[slug(m[1])] = true
	}
	return a
}

// badCitations returns what is wrong with the placement.md citations of
// one file: in Go source a citation names docs/placement.md and, if it
// names a section, does so by an anchor that exists; in Markdown an
// anchor must exist.
func badCitations(text string, goSource bool, valid map[string]bool) []string {
	var bad []string
	for _, m := range citation.FindAllStringSubmatch(text, -1) {
		prefix, anchor, section := m[1], m[2], m[3]
		switch {
		case goSource && (prefix != "docs/"):
			bad = append(bad, m[0]+": cite docs/placement.md, the repository's own")
		case section != "":
			bad = append(bad, m[0]+": cite a section by its anchor, docs/placement.md#name")
		case anchor != "" && !valid[anchor[1:]]:
			bad = append(bad, m[0]+": docs/placement.md has no heading with this anchor")
		}
	}
	return bad
}

func TestCheckersFindWhatTheyLookFor(t *testing.T) {
	valid := anchors("# Placement\n\n## Kernel lookup\n\n### The top-level call\n")
	assert.Equal(t, map[string]bool{"placement": true, "kernel-lookup": true, "the-top-level-call": true}, valid)
	for _, tc := range []struct {
		text   string
		goSrc  bool
		nBad   int
		nItems int
	}{
		{"// see docs/placement.md#kernel-lookup.", true, 0, 0},
		{`"runs on the host (docs/placement.md#the-top-level-call)"`, true, 0, 0},
		{"// the rules of docs/placement.md.", true, 0, 0},
		{"// see docs/placement.md#kernel-lookups", true, 1, 0},
		{"// see placement.md §3.6", true, 1, 0},
		{"// see docs/placement.md §3", true, 1, 0},
		{"// see shared/docs/placement.md#kernel-lookup", true, 1, 0},
		{"[rules](placement.md#kernel-lookup)", false, 0, 0},
		{"[rules](placement.md#nowhere)", false, 1, 0},
		{"[rules](placement.md)", false, 0, 0},
		{"// goal (iss" + "ue #1" + "4 item 1): below 1x", true, 0, 1},
		{"// met since st" + "op 21", true, 0, 1},
		{"| 0.21x (wa" + "s 0.36x) |", false, 0, 1},
		{"// see #1" + "1 item 4", true, 0, 1},
		{"// a stop watch; the loop stops at 0; it was 2 bytes", true, 0, 0},
	} {
		assert.Len(t, badCitations(tc.text, tc.goSrc, valid), tc.nBad, tc.text)
		assert.Len(t, workItems(tc.text), tc.nItems, tc.text)
	}
}

// TestNoWorkItemNumbers: history belongs in commit messages; the code,
// its tests and its documents describe what is.
func TestNoWorkItemNumbers(t *testing.T) {
	for _, f := range textFiles(t) {
		for _, line := range workItems(read(t, f)) {
			t.Errorf("%s: names a work item or an earlier build: %s", f, line)
		}
	}
}

// TestPlacementCitationsResolve: every "docs/placement.md#section" in the
// code (comments and printed reasons) and in the documents names a heading
// of docs/placement.md.
func TestPlacementCitationsResolve(t *testing.T) {
	valid := anchors(read(t, "docs/placement.md"))
	require.Greater(t, len(valid), 5, "docs/placement.md has its sections")
	cited := 0
	for _, f := range textFiles(t) {
		text := read(t, f)
		if f == "internal/hygiene/hygiene_test.go" {
			continue // its table holds wrong citations on purpose
		}
		cited += len(citation.FindAllString(text, -1))
		for _, b := range badCitations(text, strings.HasSuffix(f, ".go"), valid) {
			t.Errorf("%s: %s", f, b)
		}
	}
	assert.Positive(t, cited, "the code cites docs/placement.md")
}

// TestReadmeIsShort: the README is read in five minutes; the details live
// in docs/, one home each.
func TestReadmeIsShort(t *testing.T) {
	lines := strings.Count(read(t, "README.md"), "\n")
	assert.LessOrEqual(t, lines, 150, "README.md has %d lines: move details to docs/", lines)
}
