package lazyre

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRegexp(t *testing.T) {
	r := New(`a(b+)`)
	assert.Equal(t, `a(b+)`, r.String())
	assert.True(t, r.MatchString("xabb"))
	assert.Equal(t, []string{"abb", "bb"}, r.FindStringSubmatch("xabb"))
	assert.Equal(t, []int{1, 4, 2, 4}, r.FindStringSubmatchIndex("xabb"))
	assert.Equal(t, []string{"ab", "abbb"}, r.FindAllString("ab abbb", -1))
	assert.Equal(t, [][]string{{"ab", "b"}}, r.FindAllStringSubmatch("ab abbb", 1))
	assert.Equal(t, []int{1, 4}, r.FindStringIndex("xabb"))
	assert.Equal(t, [][]int{{0, 2}, {3, 7}}, r.FindAllStringIndex("ab abbb", -1))
	assert.Equal(t, [][]int{{0, 2, 1, 2}}, r.FindAllStringSubmatchIndex("ab abbb", 1))
	assert.Equal(t, "x<bb>", r.ReplaceAllString("xabb", "<$1>"))
	assert.Same(t, r.Compiled(), r.Compiled(), "compiled once")
}

// A pattern that does not compile panics where it is first used, not
// where it is declared.
func TestBadPatternPanicsOnUse(t *testing.T) {
	r := New(`(`)
	assert.Equal(t, `(`, r.String())
	assert.Panics(t, func() { r.MatchString("x") })
	assert.ErrorContains(t, CompileAll(), "missing closing )")
}
