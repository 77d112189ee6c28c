package graph

import (
	"math"
	"strconv"
	"strings"
)

// ParseTensorName splits a tensor name the way TensorFlow's ParseTensorName
// does (tensorflow/core/graph/tensor_id.cc:34-63), for every place that reads
// one: graph inputs, signature tensors, fetches and feeds. Going back from
// the end over a run of digits, a ':' before them (not at the start) makes
// "name:digits" output digits of name; otherwise a leading "^" makes a
// control input of the rest (port 0 here, TensorFlow's kControlSlot), and
// anything else is output 0 of the whole string. So "x:" and ":1" are
// names, "x:+1" is a name, "a:b:2" is output 2 of "a:b" and "^x:0" is
// output 0 of "^x". An index past int32 (no node has that many outputs)
// becomes math.MaxInt32, where TensorFlow's unsigned arithmetic wraps.
func ParseTensorName(s string) (node string, port int, control bool) {
	p := len(s) - 1
	for p > 0 && s[p] >= '0' && s[p] <= '9' {
		p--
	}
	if p > 0 && s[p] == ':' && p < len(s)-1 {
		v, err := strconv.ParseInt(s[p+1:], 10, 32)
		if err != nil {
			v = math.MaxInt32
		}
		return s[:p], int(v), false
	}
	if strings.HasPrefix(s, "^") {
		return s[1:], 0, true
	}
	return s, 0, false
}

// tensorNode is the node a tensor name reads ("x:0" → "x", "^x" → "x").
func tensorNode(name string) string {
	node, _, _ := ParseTensorName(name)
	return node
}
