// Package lazyre holds regular expressions compiled when first used, not
// when their package is initialised: every tfscan command initialises
// every package, and a package of patterns that only one command reads
// (a run log's messages) would cost all the others its compilation.
package lazyre

import (
	"fmt"
	"regexp"
	"sync"
)

// made are the expressions New has made, for CompileAll.
var made struct {
	sync.Mutex
	all []*Regexp
}

// Regexp is a regular expression compiled on its first use. A pattern
// that does not compile panics there, as regexp.MustCompile would at
// start-up; a package's tests find it first with CompileAll.
type Regexp struct {
	expr string
	re   func() *regexp.Regexp
}

// New is the regular expression expr, not yet compiled.
func New(expr string) *Regexp {
	r := &Regexp{expr: expr, re: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })}
	made.Lock()
	made.all = append(made.all, r)
	made.Unlock()
	return r
}

// CompileAll compiles every expression made so far (those of every
// package initialised), and names the first that does not compile.
func CompileAll() error {
	made.Lock()
	all := made.all
	made.Unlock()
	for _, r := range all {
		if _, err := regexp.Compile(r.expr); err != nil {
			return fmt.Errorf("lazyre: %w", err)
		}
	}
	return nil
}

// Compiled is the compiled expression.
func (r *Regexp) Compiled() *regexp.Regexp { return r.re() }

// String is the source text of the expression.
func (r *Regexp) String() string { return r.expr }

// MatchString is regexp.Regexp's.
func (r *Regexp) MatchString(s string) bool { return r.re().MatchString(s) }

// FindStringSubmatch is regexp.Regexp's.
func (r *Regexp) FindStringSubmatch(s string) []string { return r.re().FindStringSubmatch(s) }

// FindStringSubmatchIndex is regexp.Regexp's.
func (r *Regexp) FindStringSubmatchIndex(s string) []int { return r.re().FindStringSubmatchIndex(s) }

// FindAllString is regexp.Regexp's.
func (r *Regexp) FindAllString(s string, n int) []string { return r.re().FindAllString(s, n) }

// FindAllStringSubmatch is regexp.Regexp's.
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.re().FindAllStringSubmatch(s, n)
}

// FindStringIndex is regexp.Regexp's.
func (r *Regexp) FindStringIndex(s string) []int { return r.re().FindStringIndex(s) }

// FindAllStringIndex is regexp.Regexp's.
func (r *Regexp) FindAllStringIndex(s string, n int) [][]int { return r.re().FindAllStringIndex(s, n) }

// FindAllStringSubmatchIndex is regexp.Regexp's.
func (r *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return r.re().FindAllStringSubmatchIndex(s, n)
}

// ReplaceAllString is regexp.Regexp's.
func (r *Regexp) ReplaceAllString(src, repl string) string { return r.re().ReplaceAllString(src, repl) }
