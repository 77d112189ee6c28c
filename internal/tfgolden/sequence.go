package tfgolden

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"
	"google.golang.org/protobuf/proto"

	"github.com/tfscan/tfscan/kernels"
)

// A stateful or resource op does nothing visible alone: a variable is
// created by one op, assigned by another and read by a third; a list is a
// variant that only other list ops look into. TensorFlow runs such a case
// as a sequence of steps in one graph and session, each after the one
// before it, and records the last step's outputs; tfscan runs the same
// steps in order through its kernels with one ResourceMgr, as the
// executor would run the nodes, an input that names an earlier step's
// output ("@step:output") taking that output (a resource handle, a TF1
// reference variable, a list), and a file input ("@file:name") the path
// of the case's file written to a temporary folder.

// Step is one op of a sequence case.
type Step struct {
	Op    string
	Node  string // TensorFlow's node name: the resource name of an op with no shared_name
	Attrs map[string]*attrpb.AttrValue
	// Inputs are literal tensors; nil where Links or FileInputs names the
	// input.
	Inputs []*kernels.Tensor
	// Links[i] is the [step, output] input i takes, or nil.
	Links [][2]int
	// FileInputs[i] is the file input i names, or "".
	FileInputs []string
}

func readStep(op, attrs string, inputs []string, idx int) (*Step, error) {
	s := &Step{Op: op}
	nb, err := base64.StdEncoding.DecodeString(attrs)
	if err != nil {
		return nil, err
	}
	var nd nodepb.NodeDef
	if err := proto.Unmarshal(nb, &nd); err != nil {
		return nil, err
	}
	s.Node, s.Attrs = nd.GetName(), nd.GetAttr()
	if s.Attrs == nil {
		s.Attrs = map[string]*attrpb.AttrValue{}
	}
	n := len(inputs)
	s.Inputs, s.Links, s.FileInputs = make([]*kernels.Tensor, n), make([][2]int, n), make([]string, n)
	for i, in := range inputs {
		s.Links[i] = [2]int{-1, -1}
		switch {
		case strings.HasPrefix(in, "@file:"):
			s.FileInputs[i] = strings.TrimPrefix(in, "@file:")
		case strings.HasPrefix(in, "@"):
			a, b, ok := strings.Cut(in[1:], ":")
			st, err1 := strconv.Atoi(a)
			o, err2 := strconv.Atoi(b)
			if !ok || err1 != nil || err2 != nil || st < 0 || st >= idx || o < 0 {
				return nil, fmt.Errorf("input %d: bad link %q", i, in)
			}
			s.Links[i] = [2]int{st, o}
		default:
			if s.Inputs[i], err = tensor(in); err != nil {
				return nil, fmt.Errorf("input %d: %v", i, err)
			}
		}
	}
	return s, nil
}

// stepOut is what a step left for later steps: its tensors and the TF1
// reference variables behind reference outputs.
type stepOut struct {
	out  []*kernels.Tensor
	refs []*kernels.RefVar
}

// runSteps runs a sequence case's steps in order and returns the last
// step's outputs, a reference output read as the variable's value.
func runSteps(c *Case) (out []*kernels.Tensor, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("kernel panic: %v", r)
		}
	}()
	var dir string
	if len(c.Files) > 0 {
		if dir, err = os.MkdirTemp("", "tfgolden"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		for name, b := range c.Files {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				return nil, err
			}
		}
	}
	res := kernels.NewResourceMgr(nil)
	done := make([]stepOut, 0, len(c.Steps))
	for si, s := range c.Steps {
		k := kernels.Find(s.Op)
		if k == nil {
			return nil, &kernels.UnsupportedError{Op: s.Op, Path: "golden/" + s.Node, What: "no kernel"}
		}
		ctx := &kernels.Context{Op: s.Op, Path: "golden/" + s.Node, Node: s.Node, NodeID: si, Attrs: s.Attrs,
			Inputs: make([]*kernels.Tensor, len(s.Inputs)), Resources: res}
		for i := range s.Inputs {
			switch l := s.Links[i]; {
			case s.FileInputs[i] != "":
				ctx.Inputs[i] = kernels.ScalarString(filepath.Join(dir, s.FileInputs[i]))
			case l[0] >= 0:
				from := done[l[0]]
				if l[1] < len(from.refs) && from.refs[l[1]] != nil {
					if ctx.Refs == nil {
						ctx.Refs = make([]*kernels.RefVar, len(s.Inputs))
					}
					ctx.Refs[i] = from.refs[l[1]]
					ctx.Inputs[i] = from.refs[l[1]].Value
				} else if l[1] < len(from.out) {
					ctx.Inputs[i] = from.out[l[1]]
				} else {
					return nil, fmt.Errorf("step %d (%s) has no output %d", l[0], c.Steps[l[0]].Op, l[1])
				}
			default:
				ctx.Inputs[i] = s.Inputs[i]
			}
		}
		o, err := k.Fn(ctx)
		if err != nil {
			return nil, err
		}
		done = append(done, stepOut{out: o, refs: ctx.RefOutputs})
	}
	last := done[len(done)-1]
	out = make([]*kernels.Tensor, len(last.out))
	for i, t := range last.out {
		if t == nil && i < len(last.refs) && last.refs[i] != nil {
			if t = last.refs[i].Value; t == nil {
				return nil, fmt.Errorf("attempting to use uninitialized value %s", last.refs[i].Name)
			}
		}
		out[i] = t
	}
	if c.Fetch != nil {
		picked := make([]*kernels.Tensor, len(c.Fetch))
		for j, i := range c.Fetch {
			if i < 0 || i >= len(out) {
				return nil, fmt.Errorf("%s gives %d outputs, TensorFlow's has an output %d", c.Steps[len(c.Steps)-1].Op, len(out), i)
			}
			picked[j] = out[i]
		}
		out = picked
	}
	return out, nil
}
