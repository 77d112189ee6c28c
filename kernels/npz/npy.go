// Package npz reads and writes NumPy's .npy and .npz files, the format tfscan
// uses for model inputs, outputs and golden values, so that users can make
// and check them with NumPy. It follows NumPy's format specification
// (numpy/lib/format.py): .npy versions 1.0, 2.0 and 3.0, little-endian, C
// order; .npz is a zip of NAME.npy members, stored or deflated.
//
// Supported dtypes: float16/32/64, int8/16/32/64, uint8/16/32/64, bool,
// complex64/128 ('<c8', '<c16') and bytes strings ('|S<n>', TensorFlow's
// DT_STRING).
// bfloat16 has no NumPy dtype; tfscan follows what ml_dtypes arrays look
// like on disk: descr '<V2' holds bfloat16 bits (in NumPy,
// np.load(f).view(ml_dtypes.bfloat16) gives the values back). Anything else
// (unicode strings, objects, structured or big-endian arrays,
// fortran_order True) is a clear error.
//
// The format is read here rather than with codeberg.org/sbinet/npyio
// (v0.14.0) because these files are untrusted input and that library does
// not meet what tfscan needs of them:
//   - a malformed header panics instead of failing: descr '<f3' or '<c4'
//     ("invalid float element size 3") and a shape of 2^62 elements
//     (makeslice: len out of range) panic in Reader.Read;
//   - bfloat16 is missing both ways: '<V2' data is handed to its pickle
//     decoder (read into []any) or refused (read into []uint16), and a
//     two-byte array is written as '|u1' with an extra dimension, not '<V2';
//   - an 'O' (object) array is decoded by running a pickle decoder on the
//     file's bytes, which tfscan refuses outright.
package npz

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/dtype"
	"github.com/tfscan/tfscan/kernels"
)

const magic = "\x93NUMPY"

// maxHeaderLen bounds the header dict (NumPy itself refuses headers over
// 10000 bytes unless told otherwise).
const maxHeaderLen = 1 << 16

var descrToDType = map[string]tpb.DataType{
	"<f2":  tpb.DataType_DT_HALF,
	"<f4":  tpb.DataType_DT_FLOAT,
	"<f8":  tpb.DataType_DT_DOUBLE,
	"|i1":  tpb.DataType_DT_INT8,
	"<i1":  tpb.DataType_DT_INT8,
	"<i2":  tpb.DataType_DT_INT16,
	"<i4":  tpb.DataType_DT_INT32,
	"<i8":  tpb.DataType_DT_INT64,
	"|u1":  tpb.DataType_DT_UINT8,
	"<u1":  tpb.DataType_DT_UINT8,
	"<u2":  tpb.DataType_DT_UINT16,
	"<u4":  tpb.DataType_DT_UINT32,
	"<u8":  tpb.DataType_DT_UINT64,
	"|b1":  tpb.DataType_DT_BOOL,
	"<b1":  tpb.DataType_DT_BOOL,
	"<V2":  tpb.DataType_DT_BFLOAT16,
	"|V2":  tpb.DataType_DT_BFLOAT16,
	"<c8":  tpb.DataType_DT_COMPLEX64,
	"<c16": tpb.DataType_DT_COMPLEX128,
}

var dtypeToDescr = map[tpb.DataType]string{
	tpb.DataType_DT_HALF:       "<f2",
	tpb.DataType_DT_FLOAT:      "<f4",
	tpb.DataType_DT_DOUBLE:     "<f8",
	tpb.DataType_DT_INT8:       "|i1",
	tpb.DataType_DT_INT16:      "<i2",
	tpb.DataType_DT_INT32:      "<i4",
	tpb.DataType_DT_INT64:      "<i8",
	tpb.DataType_DT_UINT8:      "|u1",
	tpb.DataType_DT_UINT16:     "<u2",
	tpb.DataType_DT_UINT32:     "<u4",
	tpb.DataType_DT_UINT64:     "<u8",
	tpb.DataType_DT_BOOL:       "|b1",
	tpb.DataType_DT_BFLOAT16:   "<V2",
	tpb.DataType_DT_COMPLEX64:  "<c8",
	tpb.DataType_DT_COMPLEX128: "<c16",
}

// Header is a parsed .npy header.
type Header struct {
	Descr        string
	FortranOrder bool
	Shape        []int
}

// ReadNPY reads one .npy array.
func ReadNPY(r io.Reader) (*kernels.Tensor, error) {
	h, err := readHeader(r)
	if err != nil {
		return nil, err
	}
	if width, ok := bytesWidth(h.Descr); ok {
		if h.FortranOrder {
			return nil, errors.New("fortran_order arrays are not supported (save with np.ascontiguousarray)")
		}
		return readBytesArray(r, h.Shape, width)
	}
	dt, ok := descrToDType[h.Descr]
	if !ok {
		return nil, fmt.Errorf("unsupported dtype %q (tfscan reads little-endian float16/32/64, int8..64, uint8..64, bool, complex64/128 and bfloat16 as '<V2')", h.Descr)
	}
	if h.FortranOrder {
		return nil, errors.New("fortran_order arrays are not supported (save with np.ascontiguousarray)")
	}
	n, err := kernels.CheckShape(h.Shape)
	if err != nil {
		return nil, err
	}
	size := n * dtype.Size(dt)
	raw := make([]byte, 0, min(size, 1<<20))
	buf := bytes.NewBuffer(raw)
	got, err := io.Copy(buf, io.LimitReader(r, int64(size)+1))
	if err != nil {
		return nil, err
	}
	if got != int64(size) {
		if got < int64(size) {
			return nil, fmt.Errorf("array data is truncated: %d of %d bytes", got, size)
		}
		return nil, errors.New("unexpected bytes after the array data")
	}
	if dt == tpb.DataType_DT_BOOL {
		for _, b := range buf.Bytes() {
			if b > 1 {
				return nil, fmt.Errorf("bool array holds byte %d", b)
			}
		}
	}
	return kernels.DecodeRaw(dt, h.Shape, buf.Bytes())
}

func readHeader(r io.Reader) (*Header, error) {
	var pre [8]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return nil, errors.New("not a .npy file (too short)")
	}
	if string(pre[:6]) != magic {
		return nil, errors.New("not a .npy file (bad magic)")
	}
	var hlen int
	switch pre[6] {
	case 1:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, errors.New("truncated .npy header")
		}
		hlen = int(binary.LittleEndian.Uint16(b[:]))
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, errors.New("truncated .npy header")
		}
		l := binary.LittleEndian.Uint32(b[:])
		if l > maxHeaderLen {
			return nil, fmt.Errorf(".npy header of %d bytes is too long", l)
		}
		hlen = int(l)
	default:
		return nil, fmt.Errorf("unsupported .npy version %d.%d", pre[6], pre[7])
	}
	hb := make([]byte, hlen)
	if _, err := io.ReadFull(r, hb); err != nil {
		return nil, errors.New("truncated .npy header")
	}
	return ParseHeader(string(hb))
}

// ParseHeader parses the Python dict literal of a .npy header, e.g.
// "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }".
func ParseHeader(s string) (*Header, error) {
	p := &pyParser{s: strings.TrimRight(s, " \n\x00")}
	v, err := p.value(0)
	if err != nil {
		return nil, fmt.Errorf("bad .npy header: %w", err)
	}
	p.space()
	if p.i != len(p.s) {
		return nil, fmt.Errorf("bad .npy header: trailing text at %d", p.i)
	}
	d, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("bad .npy header: not a dict")
	}
	h := &Header{}
	descr, ok := d["descr"].(string)
	if !ok {
		return nil, errors.New("bad .npy header: 'descr' is missing or not a simple dtype string (structured arrays are not supported)")
	}
	h.Descr = descr
	fo, ok := d["fortran_order"].(bool)
	if !ok {
		return nil, errors.New("bad .npy header: 'fortran_order' is missing or not a bool")
	}
	h.FortranOrder = fo
	shape, ok := d["shape"].([]any)
	if !ok {
		return nil, errors.New("bad .npy header: 'shape' is missing or not a tuple")
	}
	h.Shape = []int{}
	for _, e := range shape {
		n, ok := e.(int)
		if !ok || n < 0 {
			return nil, errors.New("bad .npy header: shape holds a non-integer or negative dimension")
		}
		h.Shape = append(h.Shape, n)
	}
	if len(d) != 3 {
		return nil, errors.New("bad .npy header: unexpected keys")
	}
	return h, nil
}

// pyParser parses the small subset of Python literals .npy headers use:
// dicts with string keys, strings, True/False, ints and tuples.
type pyParser struct {
	s string
	i int
}

func (p *pyParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n') {
		p.i++
	}
}

func (p *pyParser) value(depth int) (any, error) {
	if depth > 4 {
		return nil, errors.New("nesting too deep")
	}
	p.space()
	if p.i >= len(p.s) {
		return nil, errors.New("unexpected end")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.dict(depth)
	case c == '(' || c == '[':
		return p.tuple(depth)
	case c == '\'' || c == '"':
		return p.str()
	case c >= '0' && c <= '9':
		j := p.i
		for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
			j++
		}
		txt := p.s[p.i:j]
		if j < len(p.s) && p.s[j] == 'L' { // Python 2 long
			j++
		}
		p.i = j
		n, err := strconv.ParseInt(txt, 10, 64)
		if err != nil || n > kernels.MaxElements {
			return nil, fmt.Errorf("integer %q out of range", txt)
		}
		return int(n), nil
	case strings.HasPrefix(p.s[p.i:], "True"):
		p.i += 4
		return true, nil
	case strings.HasPrefix(p.s[p.i:], "False"):
		p.i += 5
		return false, nil
	}
	return nil, fmt.Errorf("unexpected %q at %d", p.s[p.i], p.i)
}

func (p *pyParser) str() (string, error) {
	q := p.s[p.i]
	j := strings.IndexByte(p.s[p.i+1:], q)
	if j < 0 {
		return "", errors.New("unterminated string")
	}
	out := p.s[p.i+1 : p.i+1+j]
	if strings.ContainsRune(out, '\\') {
		return "", errors.New("escapes in strings are not supported")
	}
	p.i += j + 2
	return out, nil
}

func (p *pyParser) dict(depth int) (any, error) {
	p.i++ // {
	d := map[string]any{}
	for {
		p.space()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return d, nil
		}
		if p.i >= len(p.s) || (p.s[p.i] != '\'' && p.s[p.i] != '"') {
			return nil, errors.New("dict key is not a string")
		}
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, errors.New("missing ':' in dict")
		}
		p.i++
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		if _, dup := d[k]; dup {
			return nil, fmt.Errorf("duplicate key %q", k)
		}
		d[k] = v
		p.space()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		p.space()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return d, nil
		}
		return nil, errors.New("missing ',' or '}' in dict")
	}
}

func (p *pyParser) tuple(depth int) (any, error) {
	closeCh := byte(')')
	if p.s[p.i] == '[' {
		closeCh = ']'
	}
	p.i++
	var out []any
	for {
		p.space()
		if p.i < len(p.s) && p.s[p.i] == closeCh {
			p.i++
			return append([]any{}, out...), nil
		}
		if len(out) > 64 {
			return nil, errors.New("tuple too long")
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		p.space()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		p.space()
		if p.i < len(p.s) && p.s[p.i] == closeCh {
			p.i++
			return out, nil
		}
		return nil, errors.New("missing ',' or closing bracket in tuple")
	}
}

// WriteNPY writes t as a version 1.0 .npy array (2.0 when the header does
// not fit), as numpy.save does.
func WriteNPY(w io.Writer, t *kernels.Tensor) error {
	descr, ok := dtypeToDescr[t.DType]
	if t.DType == tpb.DataType_DT_STRING {
		descr, ok = stringDescr(t)
	}
	if !ok {
		return fmt.Errorf("cannot write dtype %s to .npy", t.DType)
	}
	if err := t.Validate(); err != nil {
		return err
	}
	var shape strings.Builder
	shape.WriteString("(")
	for i, d := range t.Shape {
		if i > 0 {
			shape.WriteString(", ")
		}
		shape.WriteString(strconv.Itoa(d))
	}
	if len(t.Shape) == 1 {
		shape.WriteString(",")
	}
	shape.WriteString(")")
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape.String())
	// Like numpy.save (numpy/lib/format.py _write_array_header): spare
	// spaces so the first axis can grow in place, then spaces and a
	// newline so that the data starts 64-byte aligned. This makes the
	// output byte-identical to NumPy's.
	if len(t.Shape) > 0 {
		dict += strings.Repeat(" ", 21-len(strconv.Itoa(t.Shape[0])))
	}
	version, prefix := byte(1), 10
	if len(dict)+1+64+prefix > 65535 {
		version, prefix = 2, 12
	}
	pad := 64 - (prefix+len(dict)+1)%64
	header := dict + strings.Repeat(" ", pad) + "\n"
	var pre []byte
	pre = append(pre, magic...)
	pre = append(pre, version, 0)
	if version == 1 {
		pre = binary.LittleEndian.AppendUint16(pre, uint16(len(header)))
	} else {
		pre = binary.LittleEndian.AppendUint32(pre, uint32(len(header)))
	}
	if _, err := w.Write(append(pre, header...)); err != nil {
		return err
	}
	var raw []byte
	if t.DType == tpb.DataType_DT_STRING {
		raw = encodeBytesArray(t, descr)
	} else {
		var err error
		if raw, err = kernels.EncodeRaw(t); err != nil {
			return err
		}
	}
	_, err := w.Write(raw)
	return err
}

// Byte strings: DT_STRING tensors are NumPy's fixed-width bytes arrays
// ('|S<n>'), each element null-padded to n bytes; reading strips trailing
// nulls, as NumPy does. Unicode arrays ('<U') are refused: TensorFlow
// strings are bytes.

// maxStringWidth bounds the element width of a bytes array.
const maxStringWidth = 1 << 20

func bytesWidth(descr string) (int, bool) {
	if !strings.HasPrefix(descr, "|S") {
		return 0, false
	}
	n, err := strconv.Atoi(descr[2:])
	if err != nil || n < 0 || n > maxStringWidth {
		return 0, false
	}
	return n, true
}

func readBytesArray(r io.Reader, shape []int, width int) (*kernels.Tensor, error) {
	n, err := kernels.CheckShape(shape)
	if err != nil {
		return nil, err
	}
	if width > 0 && n > (1<<31)/width {
		return nil, errors.New("bytes array too large")
	}
	var buf bytes.Buffer
	got, err := io.Copy(&buf, io.LimitReader(r, int64(n*width)+1))
	if err != nil {
		return nil, err
	}
	if got != int64(n*width) {
		if got < int64(n*width) {
			return nil, fmt.Errorf("array data is truncated: %d of %d bytes", got, n*width)
		}
		return nil, errors.New("unexpected bytes after the array data")
	}
	raw := buf.Bytes()
	out := make([][]byte, n)
	for i := range out {
		out[i] = bytes.TrimRight(raw[i*width:(i+1)*width], "\x00")
	}
	return &kernels.Tensor{DType: tpb.DataType_DT_STRING, Shape: append([]int{}, shape...), Data: out}, nil
}

func stringDescr(t *kernels.Tensor) (string, bool) {
	d, ok := t.Data.([][]byte)
	if !ok {
		return "", false
	}
	width := 1
	for _, s := range d {
		width = max(width, len(s))
	}
	return "|S" + strconv.Itoa(width), true
}

func encodeBytesArray(t *kernels.Tensor, descr string) []byte {
	width, _ := strconv.Atoi(descr[2:])
	d := t.Data.([][]byte)
	raw := make([]byte, len(d)*width)
	for i, s := range d {
		copy(raw[i*width:], s)
	}
	return raw
}

// SortedKeys returns m's keys sorted.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
