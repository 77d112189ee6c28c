package kernels

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/dtype"
)

// String ops that preprocessing layers and feature columns put into
// graphs: StringJoin (string_join_op.cc), StringToHashBucketFast
// (string_to_hash_bucket_fast_op.h, Fingerprint64 % num_buckets),
// StringToHashBucketStrong (string_to_hash_bucket_op.h, SipHash-2-4 %
// num_buckets), AsString (as_string_op.cc, C printf formatting),
// StringLength (string_length_op.cc), Substr (substr_op.cc, unit BYTE;
// pos and len scalars or of the input's shape) and (Static)RegexFullMatch
// (regex_full_match_op.cc; the SavedModel saver checks its prefix with
// StaticRegexFullMatch "^s3://.*").

func stringData(ctx *Context, t *Tensor, what string) ([][]byte, error) {
	d, ok := t.Data.([][]byte)
	if !ok {
		return nil, ctx.Errorf("%s must be a string tensor, got %s", what, dtypeName(t.DType))
	}
	return d, nil
}

func stringJoinKernel(ctx *Context) ([]*Tensor, error) {
	sep, err := ctx.AttrString("separator")
	if err != nil {
		return nil, err
	}
	var shape []int
	scalarShape := true
	ins := make([][][]byte, len(ctx.Inputs))
	for i, in := range ctx.Inputs {
		if in == nil {
			return nil, ctx.Errorf("input %d is missing", i)
		}
		if ins[i], err = stringData(ctx, in, "inputs"); err != nil {
			return nil, err
		}
		if len(in.Shape) == 0 {
			continue
		}
		if scalarShape {
			shape, scalarShape = in.Shape, false
		} else if !slices.Equal(shape, in.Shape) {
			return nil, ctx.Errorf("Input shapes do not match: %s vs. %s", dimsString(shape), dimsString(in.Shape))
		}
	}
	n := product(shape)
	out := make([][]byte, n)
	parts := make([][]byte, len(ins))
	for i := range out {
		for j, d := range ins {
			if len(ctx.Inputs[j].Shape) == 0 {
				parts[j] = d[0]
			} else {
				parts[j] = d[i]
			}
		}
		var b []byte
		for j, p := range parts {
			if j > 0 {
				b = append(b, sep...)
			}
			b = append(b, p...)
		}
		if b == nil {
			b = []byte{}
		}
		out[i] = b
	}
	return []*Tensor{{DType: tpb.DataType_DT_STRING, Shape: cloneShape(shape), Data: out}}, nil
}

// hashBucketKernel serves StringToHashBucketFast (Fingerprint64),
// StringToHashBucketStrong (SipHash-2-4 with the key attr) and, with
// legacy, the deprecated StringToHashBucket (Hash64).
func hashBucketKernel(strong bool, legacy ...bool) KernelFunc {
	old := len(legacy) > 0 && legacy[0]
	return func(ctx *Context) ([]*Tensor, error) {
		if err := wantInputs(ctx, 1); err != nil {
			return nil, err
		}
		nb, err := ctx.AttrInt("num_buckets")
		if err != nil {
			return nil, err
		}
		if nb < 1 { // the OpDef requires num_buckets >= 1
			return nil, ctx.Errorf("num_buckets must be >= 1, got %d", nb)
		}
		var k0, k1 uint64
		if strong {
			key, err := ctx.AttrInts("key")
			if err != nil {
				return nil, err
			}
			if len(key) != 2 {
				return nil, ctx.Errorf("Key must have 2 elements")
			}
			k0, k1 = uint64(key[0]), uint64(key[1])
		}
		in, err := stringData(ctx, ctx.Inputs[0], "input")
		if err != nil {
			return nil, err
		}
		out := make([]int64, len(in))
		for i, s := range in {
			var h uint64
			switch {
			case strong:
				h = SipHash24(k0, k1, s)
			case old:
				h = Hash64(s)
			default:
				h = Fingerprint64(s)
			}
			out[i] = int64(h % uint64(nb))
		}
		return []*Tensor{{DType: tpb.DataType_DT_INT64, Shape: cloneShape(ctx.Inputs[0].Shape), Data: out}}, nil
	}
}

func stringLengthKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 1); err != nil {
		return nil, err
	}
	unit := "BYTE"
	if ctx.HasAttr("unit") {
		var err error
		if unit, err = ctx.AttrString("unit"); err != nil {
			return nil, err
		}
	}
	if unit != "BYTE" && unit != "UTF8_CHAR" {
		return nil, ctx.Errorf("Invalid unit %q", unit)
	}
	in, err := stringData(ctx, ctx.Inputs[0], "input")
	if err != nil {
		return nil, err
	}
	out := make([]int32, len(in))
	for i, s := range in {
		n := len(s)
		if unit == "UTF8_CHAR" { // UTF8StrLen: bytes minus trail bytes
			for _, c := range s {
				if int8(c) < -0x40 {
					n--
				}
			}
		}
		out[i] = int32(n)
	}
	return []*Tensor{{DType: tpb.DataType_DT_INT32, Shape: cloneShape(ctx.Inputs[0].Shape), Data: out}}, nil
}

func substrKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 3); err != nil {
		return nil, err
	}
	x, posT, lenT := ctx.Inputs[0], ctx.Inputs[1], ctx.Inputs[2]
	unit, err := ctx.AttrString("unit")
	if err != nil {
		return nil, err
	}
	if unit != "BYTE" && unit != "UTF8_CHAR" {
		return nil, ctx.Errorf("Invalid unit %q", unit)
	}
	if !slices.Equal(posT.Shape, lenT.Shape) {
		return nil, ctx.Errorf("pos and len should have the same shape, got: %s vs. %s", dimsString(posT.Shape), dimsString(lenT.Shape))
	}
	scalar := len(posT.Shape) == 0
	if !scalar && !slices.Equal(x.Shape, posT.Shape) {
		// substr_op.cc broadcasts the input against pos and len (BCast).
		shape, err := broadcastShapes(x.Shape, posT.Shape)
		if err != nil {
			return nil, ctx.Errorf("%v", err)
		}
		if x, err = BroadcastToTensor(x, shape); err != nil {
			return nil, ctx.Errorf("%v", err)
		}
		if posT, err = BroadcastToTensor(posT, shape); err != nil {
			return nil, ctx.Errorf("%v", err)
		}
		if lenT, err = BroadcastToTensor(lenT, shape); err != nil {
			return nil, ctx.Errorf("%v", err)
		}
	}
	in, err := stringData(ctx, x, "input")
	if err != nil {
		return nil, err
	}
	pos, err := indexValues(posT)
	if err != nil {
		return nil, ctx.Errorf("pos: %v", err)
	}
	ln, err := indexValues(lenT)
	if err != nil {
		return nil, ctx.Errorf("len: %v", err)
	}
	out := make([][]byte, len(in))
	for i, s := range in {
		p, l := pos[0], ln[0]
		if !scalar {
			p, l = pos[i], ln[i]
		}
		if unit == "UTF8_CHAR" {
			bp, bl, ok := utf8SubstrBytes(s, p, l)
			if !ok {
				return nil, ctx.Errorf("pos %d out of range for string at index %d", p, i)
			}
			out[i] = append([]byte{}, s[bp:bp+bl]...)
			continue
		}
		bp := p
		if bp < 0 { // AdjustedPosIndex
			bp += int64(len(s))
		}
		if bp < 0 || bp > int64(len(s)) {
			return nil, ctx.Errorf("pos %d out of range for string b'%s' at index %d", p, s, i)
		}
		// StringPiece::substr(pos, n) with n a size_t: a negative len
		// wraps to a huge count and takes the rest of the string.
		end := int64(len(s))
		if l >= 0 && bp+l < end {
			end = bp + l
		}
		out[i] = append([]byte{}, s[bp:end]...)
	}
	return []*Tensor{{DType: tpb.DataType_DT_STRING, Shape: cloneShape(x.Shape), Data: out}}, nil
}

// utf8SubstrBytes maps a character position and length to bytes as
// substr_op.cc's UpdatePosAndLenForUtf8 does: a character is a byte that
// is not a UTF-8 trail byte (10xxxxxx) with the trail bytes after it, so
// invalid UTF-8 counts byte by byte; a negative pos counts from the end; the
// length is capped at the string's end, and a negative one is empty.
func utf8SubstrBytes(s []byte, pos, ln int64) (int64, int64, bool) {
	trail := func(b byte) bool { return int8(b) < -0x40 }
	size := int64(len(s))
	forward := func(n int64, at *int64) bool {
		var k int64
		for k < n && *at < size {
			*at++
			for *at < size && trail(s[*at]) {
				*at++
			}
			k++
		}
		return k == n
	}
	back := func(n int64, at *int64) bool {
		var k int64
		for k < n && *at > 0 {
			*at--
			for trail(s[*at]) && *at > 0 {
				*at--
			}
			k++
		}
		return k == n
	}
	if pos >= 0 {
		var start int64
		if !forward(pos, &start) {
			return 0, 0, false
		}
		end := start
		forward(ln, &end)
		return start, end - start, true
	}
	end := size
	skip := max(-pos-ln, 0)
	if !back(skip, &end) {
		return 0, 0, false
	}
	start := end
	if !back(-pos-skip, &start) {
		return 0, 0, false
	}
	return start, end - start, true
}

// printfSpec is the conversion AsStringOp builds: %[fill][width][.prec]conv.
type printfSpec struct {
	flag  byte // 0 or one of " +-0#"
	width int  // -1: none
	prec  int  // -1: none
	conv  byte // 'd', 'u', 'f', 'e', 'g', 's'
}

// pad applies sign and width to a formatted magnitude as glibc's printf
// does: '-' left-justifies, '0' pads with zeros after the sign (not for
// inf/nan), '+' and ' ' prefix non-negative numbers.
func (p printfSpec) pad(neg bool, body string, numeric, finite bool) string {
	sign := ""
	switch {
	case neg:
		sign = "-"
	case numeric && p.flag == '+':
		sign = "+"
	case numeric && p.flag == ' ':
		sign = " "
	}
	n := len(sign) + len(body)
	if p.width <= n {
		return sign + body
	}
	fill := strings.Repeat(" ", p.width-n)
	switch {
	case p.flag == '-':
		return sign + body + fill
	case p.flag == '0' && numeric && finite:
		return sign + strings.Repeat("0", p.width-n) + body
	}
	return fill + sign + body
}

// formatFloat formats v as C's printf does for %f, %e and %g (v is the
// double the C++ kernel passes: float, half and bfloat16 are widened).
func (p printfSpec) formatFloat(v float64) string {
	neg := math.Signbit(v)
	a := math.Abs(v)
	if math.IsNaN(v) {
		return p.pad(neg, "nan", true, false)
	}
	if math.IsInf(v, 0) {
		return p.pad(neg, "inf", true, false)
	}
	prec := p.prec
	if prec < 0 {
		prec = 6
	}
	alt := p.flag == '#'
	var body string
	switch p.conv {
	case 'f':
		body = strconv.FormatFloat(a, 'f', prec, 64)
	case 'e':
		body = strconv.FormatFloat(a, 'e', prec, 64)
	default: // 'g': C99 7.19.6.1
		P := prec
		if P == 0 {
			P = 1
		}
		x := 0
		if a != 0 {
			e := strconv.FormatFloat(a, 'e', P-1, 64)
			x, _ = strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
		}
		if P > x && x >= -4 {
			body = strconv.FormatFloat(a, 'f', P-1-x, 64)
		} else {
			body = strconv.FormatFloat(a, 'e', P-1, 64)
		}
		if !alt {
			mant, exp := body, ""
			if i := strings.IndexByte(body, 'e'); i >= 0 {
				mant, exp = body[:i], body[i:]
			}
			if strings.IndexByte(mant, '.') >= 0 {
				mant = strings.TrimRight(mant, "0")
				mant = strings.TrimSuffix(mant, ".")
			}
			body = mant + exp
		}
	}
	if alt && !strings.Contains(body, ".") {
		if i := strings.IndexByte(body, 'e'); i >= 0 {
			body = body[:i] + "." + body[i:]
		} else {
			body += "."
		}
	}
	return p.pad(neg, body, true, true)
}

func asStringKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 1); err != nil {
		return nil, err
	}
	x := ctx.Inputs[0]
	prec, err := ctx.AttrInt("precision")
	if err != nil {
		return nil, err
	}
	sci, err := ctx.AttrBool("scientific")
	if err != nil {
		return nil, err
	}
	shortest, err := ctx.AttrBool("shortest")
	if err != nil {
		return nil, err
	}
	width, err := ctx.AttrInt("width")
	if err != nil {
		return nil, err
	}
	fill, err := ctx.AttrString("fill")
	if err != nil {
		return nil, err
	}
	isF := dtype.IsFloat(x.DType) || isComplex(dtype.Base(x.DType))
	if !isF && x.DType != tpb.DataType_DT_STRING {
		if sci || shortest {
			return nil, ctx.Errorf("scientific and shortest format not supported for datatype %s", dtypeName(x.DType))
		}
		if prec >= 0 {
			return nil, ctx.Errorf("precision not supported for datatype %s", dtypeName(x.DType))
		}
	}
	if len(fill) > 1 {
		return nil, ctx.Errorf("Fill string must be one or fewer characters")
	}
	if sci && shortest {
		return nil, ctx.Errorf("Cannot select both scientific and shortest notation")
	}
	spec := printfSpec{width: -1, prec: -1}
	if fill != "" {
		if !strings.Contains(" +-0#", fill) {
			return nil, ctx.Errorf("Fill argument not supported: \"%s\"", fill)
		}
		spec.flag = fill[0]
	}
	if width > -1 {
		spec.width = int(min(width, 1<<20))
	}
	if prec > -1 {
		spec.prec = int(min(prec, 1<<10))
	}
	switch {
	case shortest:
		spec.conv = 'g'
	case sci:
		spec.conv = 'e'
	default:
		spec.conv = 'f'
	}
	n := x.NumElements()
	out := make([][]byte, n)
	intFmt := func(neg bool, mag uint64) []byte {
		return []byte(spec.pad(neg, strconv.FormatUint(mag, 10), true, true))
	}
	// %u ignores the '+' and ' ' flags, which apply to signed conversions.
	uspec := spec
	if uspec.flag == '+' || uspec.flag == ' ' {
		uspec.flag = 0
	}
	unsigned := func(v uint64) []byte {
		return []byte(uspec.pad(false, strconv.FormatUint(v, 10), true, true))
	}
	signed := func(v int64) []byte {
		if v < 0 {
			return intFmt(true, uint64(-v)) // -MinInt64 wraps to its magnitude
		}
		return intFmt(false, uint64(v))
	}
	switch d := x.Data.(type) {
	case []float32:
		for i, v := range d {
			out[i] = []byte(spec.formatFloat(float64(v)))
		}
	case []float64:
		for i, v := range d {
			out[i] = []byte(spec.formatFloat(v))
		}
	case []Float16:
		for i, v := range d {
			out[i] = []byte(spec.formatFloat(v.Float64()))
		}
	case []BFloat16:
		for i, v := range d {
			out[i] = []byte(spec.formatFloat(v.Float64()))
		}
	case []int8:
		for i, v := range d {
			out[i] = signed(int64(v))
		}
	case []int16:
		for i, v := range d {
			out[i] = signed(int64(v))
		}
	case []int32:
		for i, v := range d {
			out[i] = signed(int64(v))
		}
	case []int64:
		for i, v := range d {
			out[i] = signed(v)
		}
	case []uint8:
		for i, v := range d {
			out[i] = unsigned(uint64(v))
		}
	case []uint16:
		for i, v := range d {
			out[i] = unsigned(uint64(v))
		}
	case []uint32:
		for i, v := range d {
			out[i] = unsigned(uint64(v))
		}
	case []uint64:
		for i, v := range d {
			out[i] = unsigned(v)
		}
	case []complex64: // "(%f,%f)": each part with the float format
		for i, v := range d {
			out[i] = []byte("(" + spec.formatFloat(float64(real(v))) + "," + spec.formatFloat(float64(imag(v))) + ")")
		}
	case []complex128:
		for i, v := range d {
			out[i] = []byte("(" + spec.formatFloat(real(v)) + "," + spec.formatFloat(imag(v)) + ")")
		}
	case []bool: // the format is ignored
		for i, v := range d {
			out[i] = []byte(strconv.FormatBool(v))
		}
	case [][]byte:
		for i, v := range d {
			if width <= 0 { // format_ is empty: the input passes through
				out[i] = append([]byte{}, v...)
				continue
			}
			s := string(v)
			if k := strings.IndexByte(s, 0); k >= 0 { // %s stops at NUL
				s = s[:k]
			}
			if spec.prec >= 0 && len(s) > spec.prec {
				s = s[:spec.prec]
			}
			out[i] = []byte(spec.pad(false, s, false, true))
		}
	default:
		return nil, ctx.Unsupported("dtype %s", dtypeName(x.DType))
	}
	return []*Tensor{{DType: tpb.DataType_DT_STRING, Shape: cloneShape(x.Shape), Data: out}}, nil
}

// fullMatcher compiles pattern for RE2::FullMatch as regex_full_match_op.cc
// uses it. Go's regexp implements RE2's syntax and leftmost-first
// semantics; anchoring the pattern with \A(?:...)\z gives FullMatch. A
// pattern Go's parser refuses (RE2-only constructs such as \C) is reported
// as unsupported rather than guessed.
func fullMatcher(ctx *Context, pattern string) (*regexp.Regexp, error) {
	re, err := regexp.Compile(`\A(?:` + pattern + `)\z`)
	if err != nil {
		return nil, ctx.Unsupported("regex %q: %v", pattern, err)
	}
	return re, nil
}

func regexFullMatch(ctx *Context, in *Tensor, re *regexp.Regexp) ([]*Tensor, error) {
	d, err := stringData(ctx, in, "input")
	if err != nil {
		return nil, err
	}
	out := make([]bool, len(d))
	for i, s := range d {
		// RE2 runs in UTF-8 mode: no construct Go also has consumes a
		// byte of invalid UTF-8, so such a string never fully matches
		// (Go's regexp reads the byte as U+FFFD, which "." matches).
		out[i] = utf8.Valid(s) && re.Match(s)
	}
	return []*Tensor{{DType: tpb.DataType_DT_BOOL, Shape: cloneShape(in.Shape), Data: out}}, nil
}

func staticRegexFullMatchKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 1); err != nil {
		return nil, err
	}
	p, err := ctx.AttrString("pattern")
	if err != nil {
		return nil, err
	}
	re, err := fullMatcher(ctx, p)
	if err != nil {
		return nil, err
	}
	return regexFullMatch(ctx, ctx.Inputs[0], re)
}

func regexFullMatchKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 2); err != nil {
		return nil, err
	}
	pt := ctx.Inputs[1]
	if len(pt.Shape) != 0 {
		return nil, ctx.Errorf("Pattern must be scalar, but received %s", dimsString(pt.Shape))
	}
	pd, err := stringData(ctx, pt, "pattern")
	if err != nil {
		return nil, err
	}
	re, err := fullMatcher(ctx, string(pd[0]))
	if err != nil {
		return nil, err
	}
	return regexFullMatch(ctx, ctx.Inputs[0], re)
}

func init() {
	Register("StaticRegexFullMatch", staticRegexFullMatchKernel)
	Register("RegexFullMatch", regexFullMatchKernel)
	Register("StringJoin", stringJoinKernel)
	Register("StringToHashBucketFast", hashBucketKernel(false))
	Register("StringToHashBucketStrong", hashBucketKernel(true))
	Register("StringToHashBucket", hashBucketKernel(false, true))
	Register("StringLength", stringLengthKernel)
	Register("Substr", substrKernel)
	Register("AsString", asStringKernel)
}
