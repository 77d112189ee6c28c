package savedmodel

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// tfjsWeightGroup is one entry of model.json's weightsManifest: shard files
// whose bytes, concatenated, hold the listed weights back to back
// (tfjs-core/src/io/types.ts, WeightsManifestGroupConfig).
type tfjsWeightGroup struct {
	Paths   []string          `json:"paths"`
	Weights []tfjsWeightEntry `json:"weights"`
}

// tfjsWeightEntry describes one weight (WeightsManifestEntry).
type tfjsWeightEntry struct {
	Name         string            `json:"name"`
	Shape        []int64           `json:"shape"`
	DType        string            `json:"dtype"`
	Quantization *tfjsQuantization `json:"quantization"`
}

// tfjsQuantization describes how a weight is stored when quantized. Scale
// and Min are pointers because TF.js checks their presence.
type tfjsQuantization struct {
	DType         string   `json:"dtype"`
	Scale         *float64 `json:"scale"`
	Min           *float64 `json:"min"`
	OriginalDType string   `json:"original_dtype"`
}

// tfjsDTypes maps TF.js weight dtypes to TensorFlow's and to the bytes one
// element takes in a shard (DTYPE_VALUE_SIZE_MAP in tfjs-core/src/io/types.ts).
var tfjsDTypes = map[string]struct {
	dt   tpb.DataType
	size int
}{
	"float32":   {tpb.DataType_DT_FLOAT, 4},
	"int32":     {tpb.DataType_DT_INT32, 4},
	"bool":      {tpb.DataType_DT_BOOL, 1},
	"complex64": {tpb.DataType_DT_COMPLEX64, 8},
	"string":    {tpb.DataType_DT_STRING, 0},
}

// tfjsQuantSizes is the stored size of each quantization dtype.
var tfjsQuantSizes = map[string]int{"uint8": 1, "uint16": 2, "float16": 2}

// loadTFJSWeights reads every group of the manifest and decodes its weights,
// keyed by name (a later entry of the same name wins, as in TF.js). Shard
// paths are relative to dir and may not leave it.
func loadTFJSWeights(dir string, groups []tfjsWeightGroup) (map[string]*Weight, error) {
	if len(groups) == 0 {
		return nil, nil
	}
	out := map[string]*Weight{}
	var total int64
	for gi, g := range groups {
		data, files, err := readShards(dir, g.Paths, &total)
		if err != nil {
			return nil, err
		}
		if len(g.Weights) > 0 && len(files) == 0 {
			return nil, fmt.Errorf("weightsManifest group %d lists weights but no shard paths", gi)
		}
		if err := decodeWeightGroup(data, files, g.Weights, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// shardSpan is the byte range of one shard file in its group's data.
type shardSpan struct {
	file       string
	start, end int64
}

// readShards reads and concatenates the shard files of one group. total
// accumulates the bytes read over all groups, bounded by MaxFileSize.
func readShards(dir string, paths []string, total *int64) ([]byte, []shardSpan, error) {
	var spans []shardSpan
	var size int64
	for _, p := range paths {
		if !filepath.IsLocal(filepath.FromSlash(p)) {
			return nil, nil, fmt.Errorf("weight shard path %q is not inside the model directory", p)
		}
		file := filepath.Join(dir, filepath.FromSlash(p))
		fi, err := os.Stat(file)
		if err != nil {
			return nil, nil, &Error{File: file, Err: fmt.Errorf("weight shard: %w", unwrapPathError(err))}
		}
		if !fi.Mode().IsRegular() {
			return nil, nil, fileErrorf(file, "weight shard is not a regular file")
		}
		*total += fi.Size()
		if *total > MaxFileSize {
			return nil, nil, fileErrorf(file, "weight shards add up to more than the %d-byte limit", int64(MaxFileSize))
		}
		spans = append(spans, shardSpan{file: file, start: size, end: size + fi.Size()})
		size += fi.Size()
	}
	data := make([]byte, 0, size)
	for _, s := range spans {
		b, err := readFile(s.file)
		if err != nil {
			return nil, nil, err
		}
		if int64(len(b)) != s.end-s.start {
			return nil, nil, fileErrorf(s.file, "weight shard changed size while being read")
		}
		data = append(data, b...)
	}
	return data, spans, nil
}

// shortShard is the error for a weight that runs past the group's data. It
// names the last shard, the one that is short.
func shortShard(files []shardSpan, w tfjsWeightEntry, need, have int64) error {
	return fileErrorf(files[len(files)-1].file, "weight shard is short: weight %q needs bytes up to %d of its group, the shards hold %d", w.Name, need, have)
}

// decodeWeightGroup decodes the weights of one group from its concatenated
// shard bytes, in manifest order, exactly as TF.js's decodeWeights does
// (tfjs-core/src/io/io_utils.ts, decodeWeights / getWeightBytelength /
// decodeWeight).
func decodeWeightGroup(data []byte, files []shardSpan, specs []tfjsWeightEntry, out map[string]*Weight) error {
	var off int64
	have := int64(len(data))
	for _, spec := range specs {
		if err := checkDims(spec.Shape, false, MaxTensorElements); err != nil {
			return fmt.Errorf("weight %q: %v", spec.Name, err)
		}
		n := int64(1)
		for _, d := range spec.Shape {
			n *= d
		}
		dt, ok := tfjsDTypes[spec.DType]
		if !ok {
			return fmt.Errorf("weight %q has unsupported dtype %q", spec.Name, spec.DType)
		}
		w := &Weight{Name: spec.Name, DType: dt.dt, Shape: append([]int64{}, spec.Shape...)}
		switch {
		case spec.Quantization != nil:
			q := spec.Quantization
			qsize, ok := tfjsQuantSizes[q.DType]
			if !ok {
				return fmt.Errorf("weight %q has unknown quantization dtype %q (supported: uint8, uint16, float16)", spec.Name, q.DType)
			}
			end := off + n*int64(qsize)
			if end > have {
				return shortShard(files, spec, end, have)
			}
			data, err := dequantize(spec, data[off:end])
			if err != nil {
				return err
			}
			w.Data = data
			off = end
		case spec.DType == "string":
			strs, end, err := decodeStrings(data, off, n)
			if err != nil {
				if end > have {
					return shortShard(files, spec, end, have)
				}
				return fmt.Errorf("weight %q: %v", spec.Name, err)
			}
			w.Strings = strs
			off = end
		default:
			end := off + n*int64(dt.size)
			if end > have {
				return shortShard(files, spec, end, have)
			}
			w.Data = data[off:end:end]
			off = end
		}
		out[spec.Name] = w
	}
	return nil
}

// decodeStrings reads n strings stored as a 4-byte little-endian length and
// the bytes. On a short buffer it returns the offset it needed.
func decodeStrings(data []byte, off, n int64) ([][]byte, int64, error) {
	have := int64(len(data))
	strs := make([][]byte, 0, min(n, have/4+1))
	for i := int64(0); i < n; i++ {
		if off+4 > have {
			return nil, off + 4, fmt.Errorf("string %d runs past the shard", i)
		}
		l := int64(binary.LittleEndian.Uint32(data[off:]))
		off += 4
		if off+l > have {
			return nil, off + l, fmt.Errorf("string %d runs past the shard", i)
		}
		strs = append(strs, data[off:off+l:off+l])
		off += l
	}
	return strs, off, nil
}

// dequantize turns a quantized weight into the values TF.js gives it on load
// (decodeWeight in tfjs-core/src/io/io_utils.ts):
//
//   - uint8/uint16 into float32: v*scale + min, computed in float64 (a JS
//     number) and rounded once to float32 when stored in a Float32Array;
//   - uint8/uint16 into int32: Math.round(v*scale + min), wrapped to int32
//     as an Int32Array store does;
//   - float16 into float32: the bit-exact table conversion of
//     getFloat16Decoder.
func dequantize(spec tfjsWeightEntry, q []byte) ([]byte, error) {
	qt := spec.Quantization
	switch qt.DType {
	case "uint8", "uint16":
		if qt.Scale == nil || qt.Min == nil {
			return nil, fmt.Errorf("weight %q with quantization %s has no min and scale", spec.Name, qt.DType)
		}
		if spec.DType != "float32" && spec.DType != "int32" {
			return nil, fmt.Errorf("weight %q: unsupported dtype %s for %s quantization", spec.Name, spec.DType, qt.DType)
		}
		scale, mn := *qt.Scale, *qt.Min
		width := tfjsQuantSizes[qt.DType]
		count := len(q) / width
		out := make([]byte, 4*count)
		for i := 0; i < count; i++ {
			var v float64
			if width == 1 {
				v = float64(q[i])
			} else {
				v = float64(binary.LittleEndian.Uint16(q[2*i:]))
			}
			// The explicit conversion keeps Go from fusing the multiply
			// and add, which JS does not do.
			x := float64(v*scale) + mn
			var bits uint32
			if spec.DType == "float32" {
				bits = math.Float32bits(float32(x))
			} else {
				bits = uint32(jsToInt32(jsRound(x)))
			}
			binary.LittleEndian.PutUint32(out[4*i:], bits)
		}
		return out, nil
	case "float16":
		if spec.DType != "float32" {
			return nil, fmt.Errorf("weight %q is quantized with float16, which only supports float32 weights, not %s", spec.Name, spec.DType)
		}
		count := len(q) / 2
		out := make([]byte, 4*count)
		for i := 0; i < count; i++ {
			binary.LittleEndian.PutUint32(out[4*i:], Float16Bits(binary.LittleEndian.Uint16(q[2*i:])))
		}
		return out, nil
	}
	return nil, fmt.Errorf("weight %q has unknown quantization dtype %q", spec.Name, qt.DType)
}

// jsRound is JavaScript's Math.round: the nearest integer, halves rounded
// towards +Infinity.
func jsRound(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	f := math.Floor(x)
	if x-f >= 0.5 {
		f++
	}
	return f
}

// jsToInt32 is ECMAScript's ToInt32, what storing into an Int32Array does:
// NaN and infinities become 0, other values are truncated and wrapped
// modulo 2^32.
func jsToInt32(x float64) int32 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	x = math.Trunc(x)
	m := math.Mod(x, 1<<32)
	if m < 0 {
		m += 1 << 32
	}
	return int32(uint32(m))
}

// float16 conversion tables of getFloat16Decoder (tfjs-core io_utils.ts,
// after http://www.fox-toolkit.org/ftp/fasthalffloatconversion.pdf).
var f16Mantissa, f16Exponent, f16Offset = f16Tables()

func f16Tables() (mant [2048]uint32, exp [64]uint32, off [64]uint32) {
	for i := 1; i < 1024; i++ {
		m := uint32(i) << 13
		e := uint32(0)
		for m&0x00800000 == 0 {
			e -= 0x00800000
			m <<= 1
		}
		m &^= 0x00800000
		e += 0x38800000
		mant[i] = m | e
	}
	for i := 1024; i < 2048; i++ {
		mant[i] = 0x38000000 + uint32(i-1024)<<13
	}
	exp[31] = 0x47800000
	exp[32] = 0x80000000
	exp[63] = 0xc7800000
	for i := 1; i < 31; i++ {
		exp[i] = uint32(i) << 23
	}
	for i := 33; i < 63; i++ {
		exp[i] = 0x80000000 + uint32(i-32)<<23
	}
	for i := range off {
		off[i] = 1024
	}
	off[0], off[32] = 0, 0
	return
}

// Float16Bits converts IEEE half-precision bits to the float32 bits TF.js's
// float16 decoder gives (exact, including subnormals, infinities and NaN
// payloads).
func Float16Bits(h uint16) uint32 {
	return f16Mantissa[f16Offset[h>>10]+uint32(h&0x3ff)] + f16Exponent[h>>10]
}
