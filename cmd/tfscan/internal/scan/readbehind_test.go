package scan

import (
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A readBehind runs the readings in the order they were given, one at a
// time, each after the one before it has returned; read returns the
// error of a reading done before it, and done the first error left.
func TestReadBehindReadsInOrder(t *testing.T) {
	for _, c := range []struct {
		name    string
		rb      *readBehind
		failAt  int // the reading that fails, -1 for none
		wantRun []int
	}{
		{"behind", &readBehind{}, -1, []int{0, 1, 2, 3, 4}},
		{"behind, the third fails", &readBehind{}, 2, []int{0, 1, 2}},
		{"at once", nil, -1, []int{0, 1, 2, 3, 4}},
		{"at once, the third fails", nil, 2, []int{0, 1, 2}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var ran []int
			var running atomic.Int32
			boom := errors.New("boom")
			var err error
			for k := range 5 {
				if err = c.rb.read(nil, func() error {
					assert.Equal(t, int32(1), running.Add(1), "one reading at a time")
					defer running.Add(-1)
					ran = append(ran, k)
					if k == c.failAt {
						return boom
					}
					return nil
				}); err != nil {
					break
				}
			}
			if err == nil {
				err = c.rb.done()
			}
			assert.Equal(t, c.wantRun, ran)
			if c.failAt >= 0 {
				assert.ErrorIs(t, err, boom)
			} else {
				assert.NoError(t, err)
			}
			assert.NoError(t, c.rb.done(), "nothing is left once done")
		})
	}
}

// A reading's panic is raised again on the scan's goroutine.
func TestReadBehindRaisesPanics(t *testing.T) {
	rb := &readBehind{}
	require.NoError(t, rb.read(nil, func() error { panic("reading") }))
	assert.PanicsWithValue(t, "reading", func() { _ = rb.done() })
}
