package tfgolden

import (
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"
	tensorpb "github.com/wamuir/graft/tensorflow/core/framework/tensor_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
	"google.golang.org/protobuf/proto"

	"github.com/tfscan/tfscan/kernels"
)

// Generator is the script that writes the goldens.
const Generator = "tools/tf/kernel_goldens.py"

// Dir is where the goldens live, relative to the repository root.
const Dir = "kernels/testdata/tf"

// File is one family's goldens (unary.json.gz, ...).
type File struct {
	TensorFlow string `json:"tensorflow"`
	Generator  string `json:"generator"`
	Family     string `json:"family"`
	Cases      []*Case
}

// Case is one op run by TensorFlow: its attrs as TensorFlow completes them,
// its inputs, and what TensorFlow computed or the error it gave.
type Case struct {
	Op      string
	Label   string
	Attrs   map[string]*attrpb.AttrValue
	Inputs  []*kernels.Tensor
	Outputs []*kernels.Tensor
	Error   string // TensorFlow's message; Outputs is nil
	// Steps, when there are any, are the ops TensorFlow ran in order in
	// one session (the op under test among them: it creates a resource or
	// a list, or updates one); Outputs are the last step's (sequence.go).
	Steps []*Step
	// Files are the files the case's steps name ("@file:name"), by name.
	Files map[string][]byte
	// Fetch, when set, are the last step's outputs TensorFlow recorded
	// (a list op's outputs other than the list).
	Fetch []int
	// Undecodable says why a tensor of the case cannot be held by tfscan
	// (a dtype it lacks); such a case is not run.
	Undecodable string
}

// Name says which case it is: op, dtypes and label.
func (c *Case) Name() string {
	var dts []string
	for _, t := range c.Inputs {
		dts = append(dts, DTypeName(t.DType))
	}
	return fmt.Sprintf("%s(%s) %s", c.Op, strings.Join(dts, ","), c.Label)
}

// DType is the dtype a case is counted under: its T (or the first type
// attr TensorFlow chose), else its first input's.
func (c *Case) DType() string {
	keys := []string{"T", "SrcT", "dtype", "Tparams"}
	if strings.HasPrefix(c.Op, "StatelessRandom") {
		keys = []string{"dtype"} // T is the shape's dtype
	}
	for _, k := range keys {
		if a, ok := c.Attrs[k]; ok {
			if _, isType := a.Value.(*attrpb.AttrValue_Type); isType {
				s := DTypeName(a.GetType())
				if k == "SrcT" {
					s += "→" + DTypeName(c.Attrs["DstT"].GetType())
				}
				return s
			}
		}
	}
	// Tables by key and value dtype, lists by element dtype, a restore by
	// the dtypes it reads.
	for _, kv := range [][2]string{{"key_dtype", "value_dtype"}, {"Tkey", "Tval"}, {"Tin", "Tout"}} {
		k, v := c.Attrs[kv[0]], c.Attrs[kv[1]]
		if _, ok := k.GetValue().(*attrpb.AttrValue_Type); ok && v != nil {
			return DTypeName(k.GetType()) + "→" + DTypeName(v.GetType())
		}
	}
	if a, ok := c.Attrs["element_dtype"]; ok {
		return DTypeName(a.GetType())
	}
	if l := c.Attrs["dtypes"].GetList(); l != nil && len(l.GetType()) > 0 {
		var names []string
		for _, t := range l.GetType() {
			names = append(names, DTypeName(t))
		}
		return strings.Join(names, ",")
	}
	if len(c.Inputs) > 0 {
		return DTypeName(c.Inputs[0].DType)
	}
	return "-"
}

type rawFile struct {
	TensorFlow string `json:"tensorflow"`
	Generator  string `json:"generator"`
	Family     string `json:"family"`
	Cases      []struct {
		Op      string   `json:"op"`
		Label   string   `json:"label"`
		Attrs   string   `json:"attrs"`
		Inputs  []string `json:"inputs"`
		Outputs []string `json:"outputs"`
		Error   string   `json:"error"`
		Steps   []struct {
			Op     string   `json:"op"`
			Attrs  string   `json:"attrs"`
			Inputs []string `json:"inputs"`
		} `json:"steps"`
		Files map[string]string `json:"files"`
		Fetch []int             `json:"fetch"`
	} `json:"cases"`
}

// Read decodes one golden file.
func Read(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	var raw rawFile
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	out := &File{TensorFlow: raw.TensorFlow, Generator: raw.Generator, Family: raw.Family}
	for i, rc := range raw.Cases {
		c := &Case{Op: rc.Op, Label: rc.Label, Error: rc.Error, Fetch: rc.Fetch}
		nb, err := base64.StdEncoding.DecodeString(rc.Attrs)
		if err != nil {
			return nil, fmt.Errorf("%s: case %d attrs: %v", path, i, err)
		}
		var nd nodepb.NodeDef
		if err := proto.Unmarshal(nb, &nd); err != nil {
			return nil, fmt.Errorf("%s: case %d attrs: %v", path, i, err)
		}
		c.Attrs = nd.GetAttr()
		if c.Attrs == nil {
			c.Attrs = map[string]*attrpb.AttrValue{}
		}
		if c.Inputs, err = tensors(rc.Inputs); err != nil {
			if !c.undecodable(err) {
				return nil, fmt.Errorf("%s: case %d (%s) inputs: %v", path, i, rc.Op, err)
			}
		}
		if c.Outputs, err = tensors(rc.Outputs); err != nil {
			if !c.undecodable(err) {
				return nil, fmt.Errorf("%s: case %d (%s) outputs: %v", path, i, rc.Op, err)
			}
		}
		for j, rs := range rc.Steps {
			s, err := readStep(rs.Op, rs.Attrs, rs.Inputs, j)
			if err != nil {
				return nil, fmt.Errorf("%s: case %d (%s) step %d: %v", path, i, rc.Op, j, err)
			}
			c.Steps = append(c.Steps, s)
		}
		if len(rc.Files) > 0 {
			c.Files = map[string][]byte{}
			for name, b64 := range rc.Files {
				if c.Files[name], err = base64.StdEncoding.DecodeString(b64); err != nil {
					return nil, fmt.Errorf("%s: case %d (%s) file %s: %v", path, i, rc.Op, name, err)
				}
			}
		}
		out.Cases = append(out.Cases, c)
	}
	return out, nil
}

func tensors(enc []string) ([]*kernels.Tensor, error) {
	var ts []*kernels.Tensor
	for _, s := range enc {
		t, err := tensor(s)
		if err != nil {
			return nil, err
		}
		ts = append(ts, t)
	}
	return ts, nil
}

// noDType is a tensor TensorFlow wrote in a dtype tfscan's tensors do not
// hold.
type noDType struct{ dt tpb.DataType }

func (e noDType) Error() string {
	return "tfscan's tensors do not hold " + DTypeName(e.dt)
}

func tensor(s string) (*kernels.Tensor, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, err
	}
	var p tensorpb.TensorProto
	if err := proto.Unmarshal(b, &p); err != nil {
		return nil, err
	}
	if dt := p.GetDtype(); dt != tpb.DataType_DT_INVALID {
		if _, err := kernels.NewTensor(dt, []int{0}); err != nil {
			return nil, noDType{dt}
		}
	}
	return kernels.FromProto(&p)
}

// undecodable records err on c when it is a dtype tfscan lacks.
func (c *Case) undecodable(err error) bool {
	var nd noDType
	if !errors.As(err, &nd) {
		return false
	}
	if c.Undecodable == "" {
		c.Undecodable = nd.Error()
	}
	return true
}

// ReadAll reads every family in dir, sorted by family.
func ReadAll(dir string) ([]*File, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json.gz"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%s: no goldens (*.json.gz; %s writes them)", dir, Generator)
	}
	sort.Strings(paths)
	var files []*File
	for _, p := range paths {
		f, err := Read(p)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// Run runs a case on tfscan's kernel for its op, as the executor would run
// the node: the attrs TensorFlow completed, the inputs, no emulation; with
// denormals flushed as TensorFlow's CPU flushes them (denormal.go).
func Run(c *Case) (out []*kernels.Tensor, err error) {
	if c.Undecodable != "" {
		return nil, &kernels.UnsupportedError{Op: c.Op, Path: "golden/" + c.Op, What: c.Undecodable}
	}
	if len(c.Steps) > 0 {
		return runSteps(c)
	}
	k := kernels.Find(c.Op)
	if k == nil {
		return nil, fmt.Errorf("no kernel for %s", c.Op)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("kernel panic: %v", r)
		}
	}()
	flush := !movesBits(c)
	in := c.Inputs
	if flush {
		in = flushInputs(in)
	}
	ctx := &kernels.Context{Op: c.Op, Path: "golden/" + c.Op, Node: "golden", Attrs: c.Attrs, Inputs: in}
	if k.Stateful {
		ctx.Resources = kernels.NewResourceMgr(nil)
	}
	out, err = k.Fn(ctx)
	for i := range out {
		if flush {
			out[i] = flushTensor(out[i])
		}
	}
	return out, err
}
