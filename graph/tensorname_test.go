package graph

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The cases are TensorFlow's ParseTensorName (tensor_id.cc:34-63) on the
// names the loader, the executor, the placement simulation and the
// rewriter meet: plain, indexed and control names, and the odd ones where
// the port is not a run of digits after a colon.
func TestParseTensorName(t *testing.T) {
	tests := []struct {
		in   string
		name string
		idx  int
		ctl  bool
	}{
		{"x", "x", 0, false},
		{"x:0", "x", 0, false},
		{"x:3", "x", 3, false},
		{"a/b:12", "a/b", 12, false},
		{"x:007", "x", 7, false},
		{"^x", "x", 0, true},
		{"^a/b", "a/b", 0, true},
		{"^x:0", "^x", 0, false},
		{"^", "", 0, true},
		{"", "", 0, false},
		{"x:", "x:", 0, false},
		{":1", ":1", 0, false},
		{":", ":", 0, false},
		{"x:+1", "x:+1", 0, false},
		{"x:-1", "x:-1", 0, false},
		{"x:1a", "x:1a", 0, false},
		{"x:abc", "x:abc", 0, false},
		{"x: 1", "x: 1", 0, false},
		{"a:b:2", "a:b", 2, false},
		{"a:b", "a:b", 0, false},
		{"x:2147483647", "x", 1<<31 - 1, false},
		{"x:99999999999", "x", 1<<31 - 1, false},
		{"7", "7", 0, false},
		{"x:1:", "x:1:", 0, false},
	}
	for _, tt := range tests {
		name, idx, ctl := ParseTensorName(tt.in)
		assert.Equal(t, []any{tt.name, tt.idx, tt.ctl}, []any{name, idx, ctl}, tt.in)
	}
}
