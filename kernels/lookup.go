package kernels

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// Hash tables (tensorflow/core/kernels/lookup_table_op.cc and
// lookup_table_init_op.cc): HashTableV2 creates a table resource that lives
// in Context.Resources, so a table initialized by the model's init op
// is there for later runs; the import/init ops fill it; LookupTableFindV2
// looks keys up with a default.

// HashTable is the value behind a table resource.
type HashTable struct {
	KeyDType, ValueDType tpb.DataType
	// Mutable is a MutableHashTableV2: usable before any import, imports
	// replace its contents, and a default value per key is honoured.
	Mutable     bool
	m           map[any]any
	initialized bool
}

// StringKeys appends the table's string keys to dst, in no particular
// order; a table keyed by integers appends none.
func (h *HashTable) StringKeys(dst []string) []string {
	for k := range h.m {
		if s, ok := k.(string); ok {
			dst = append(dst, s)
		}
	}
	return dst
}

func tableKey(t *Tensor, i int) (any, error) {
	switch d := t.Data.(type) {
	case [][]byte:
		return string(d[i]), nil
	case []int64:
		return d[i], nil
	case []int32:
		return int64(d[i]), nil
	}
	return nil, fmt.Errorf("table keys of dtype %s are not supported", dtName(t.DType))
}

func tableValue(t *Tensor, i int) any {
	switch d := t.Data.(type) {
	case [][]byte:
		return d[i]
	case []int64:
		return d[i]
	case []int32:
		return d[i]
	case []float32:
		return d[i]
	case []float64:
		return d[i]
	case []bool:
		return d[i]
	}
	return nil
}

func init() {
	for op, fn := range map[string]KernelFunc{
		"HashTableV2":                   kHashTable,
		"HashTable":                     kHashTable,
		"MutableHashTableV2":            kHashTable,
		"LookupTableImportV2":           kTableImport,
		"InitializeTableV2":             kTableImport,
		"InitializeTableFromTextFileV2": kTableFromTextFile,
		"LookupTableFindV2":             kTableFind,
		"LookupTableSizeV2":             kTableSize,
	} {
		RegisterStateful(op, fn)
	}
}

func kHashTable(c *Context) ([]*Tensor, error) {
	key := c.resourceName()
	if len(c.Attrs["shared_name"].GetS()) == 0 && !c.Attrs["use_node_name_sharing"].GetB() {
		// One table per kernel instance: per node.
		key = fmt.Sprintf("node#%d", c.NodeID)
	}
	r := LookupOrCreate(c.Resources, key, func() *HashTable {
		return &HashTable{KeyDType: c.Attrs["key_dtype"].GetType(), ValueDType: c.Attrs["value_dtype"].GetType(),
			Mutable: c.Op == "MutableHashTableV2", m: map[any]any{}}
	})
	return []*Tensor{ScalarResource(r)}, nil
}

// table returns the hash table behind handle input i.
func table(c *Context, i int) (*HashTable, error) {
	if i < len(c.Refs) && c.Refs[i] != nil {
		return nil, c.Errorf("reference-typed tables are not supported")
	}
	t, err := stateInput(c, i)
	if err != nil {
		return nil, err
	}
	return handleOf[HashTable](c, t, i, "a table handle", "a hash table")
}

func kTableImport(c *Context) ([]*Tensor, error) {
	h, err := table(c, 0)
	if err != nil {
		return nil, err
	}
	keys, err := stateInput(c, 1)
	if err != nil {
		return nil, err
	}
	vals, err := stateInput(c, 2)
	if err != nil {
		return nil, err
	}
	if keys.NumElements() != vals.NumElements() {
		return nil, c.Errorf("%d keys for %d values", keys.NumElements(), vals.NumElements())
	}
	if h.Mutable {
		// MutableHashTableOfScalars::ImportValues: clear, then insert
		// or update.
		h.m = map[any]any{}
		for i := 0; i < keys.NumElements(); i++ {
			k, err := tableKey(keys, i)
			if err != nil {
				return nil, c.Errorf("%v", err)
			}
			h.m[k] = tableValue(vals, i)
		}
		h.initialized = true
		return nil, nil
	}
	// InitializableLookupTable::Initialize: a second initialization with
	// as many entries is a no-op, with another count an error; a key given
	// twice must have one value (HashTable::DoInsert).
	if h.initialized {
		if keys.NumElements() != len(h.m) {
			return nil, c.Errorf("table was already initialized with different data")
		}
		return nil, nil
	}
	m := make(map[any]any, keys.NumElements())
	for i := 0; i < keys.NumElements(); i++ {
		k, err := tableKey(keys, i)
		if err != nil {
			return nil, c.Errorf("%v", err)
		}
		v := tableValue(vals, i)
		if old, ok := m[k]; ok && !sameTableValue(old, v) {
			return nil, c.Errorf("HashTable has different value for same key: key %v has %v and trying to add value %v", k, old, v)
		}
		m[k] = v
	}
	h.m, h.initialized = m, true
	return nil, nil
}

// kTableFromTextFile fills a table from a text file: each line split by
// delimiter, key and value taken from columns, -1 meaning the line number
// and -2 the whole line (lookup_util.cc, TextFileLineIterator: kLineNumber,
// kWholeLine).
func kTableFromTextFile(c *Context) ([]*Tensor, error) {
	h, err := table(c, 0)
	if err != nil {
		return nil, err
	}
	fn, err := stateInput(c, 1)
	if err != nil {
		return nil, err
	}
	s, ok := fn.Data.([][]byte)
	if !ok || len(s) != 1 {
		return nil, c.Errorf("filename must be a string scalar")
	}
	path := string(s[0])
	keyIdx := c.Attrs["key_index"].GetI()
	valIdx := c.Attrs["value_index"].GetI()
	vocab := c.Attrs["vocab_size"].GetI()
	delim := string(c.Attrs["delimiter"].GetS())
	if delim == "" {
		delim = "\t"
	}
	offset := c.Attrs["offset"].GetI()
	// lookup_util.cc, InitializeTableFromTextFile: the line number is an
	// int64, the whole line a string or an integer.
	isInt := func(dt tpb.DataType) bool {
		return dt == tpb.DataType_DT_INT64 || dt == tpb.DataType_DT_INT32
	}
	switch {
	case keyIdx == -1 && h.KeyDType != tpb.DataType_DT_INT64:
		return nil, c.Errorf("key index for line number requires table key dtype of int64, got %s", dtName(h.KeyDType))
	case keyIdx == -2 && !isInt(h.KeyDType) && h.KeyDType != tpb.DataType_DT_STRING:
		return nil, c.Errorf("key index for whole line requires string or integer table key, got %s", dtName(h.KeyDType))
	case valIdx == -1 && h.ValueDType != tpb.DataType_DT_INT64:
		return nil, c.Errorf("value index for line number requires table value dtype of int64, got %s", dtName(h.ValueDType))
	case valIdx == -2 && !isInt(h.ValueDType) && h.ValueDType != tpb.DataType_DT_STRING:
		return nil, c.Errorf("value index for whole line requires table value dtype of integer or string, got %s", dtName(h.ValueDType))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, c.Errorf("table initializer: %v", err)
	}
	defer f.Close()
	if h.initialized {
		// InitializeTableFromTextFile (lookup_util.cc) swallows the
		// already-initialized error: a second initialization is a no-op.
		return nil, nil
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	var line int64
	m := map[any]any{}
	for sc.Scan() {
		if vocab != -1 && line >= vocab {
			break
		}
		text := sc.Text()
		if text == "" {
			return nil, c.Errorf("%s: empty line %d", path, line+1)
		}
		fields := strings.Split(text, delim)
		col := func(idx int64, dt tpb.DataType, what string) (any, error) {
			var raw string
			switch {
			case idx == -1:
				return line + offset, nil
			case idx == -2:
				raw = text
			case idx >= 0 && idx < int64(len(fields)):
				raw = fields[idx]
			default:
				return nil, fmt.Errorf("%s: line %d has no column %d", path, line+1, idx)
			}
			switch dt {
			case tpb.DataType_DT_STRING:
				if what == "key" {
					return raw, nil
				}
				return []byte(raw), nil
			case tpb.DataType_DT_INT64, tpb.DataType_DT_INT32:
				v, err := strconv.ParseInt(raw, 10, 64)
				if err != nil {
					return nil, fmt.Errorf("%s: line %d: %s %q is not an integer", path, line+1, what, raw)
				}
				if dt == tpb.DataType_DT_INT32 && what != "key" {
					// lookup_util.cc adds the offset to an int32 value
					// column too.
					return int32(v + offset), nil
				}
				return v, nil
			case tpb.DataType_DT_FLOAT, tpb.DataType_DT_DOUBLE:
				v, err := strconv.ParseFloat(raw, 64)
				if err != nil {
					return nil, fmt.Errorf("%s: line %d: %s %q is not a number", path, line+1, what, raw)
				}
				if dt == tpb.DataType_DT_FLOAT {
					return float32(v), nil
				}
				return v, nil
			}
			return nil, fmt.Errorf("table %s of dtype %s is not supported", what, dtName(dt))
		}
		k, err := col(keyIdx, h.KeyDType, "key")
		if err != nil {
			return nil, c.Errorf("%v", err)
		}
		v, err := col(valIdx, h.ValueDType, "value")
		if err != nil {
			return nil, c.Errorf("%v", err)
		}
		if i, ok := v.(int64); ok && h.ValueDType == tpb.DataType_DT_INT32 {
			v = int32(i)
		}
		if old, ok := m[k]; ok && !sameTableValue(old, v) {
			return nil, c.Errorf("HashTable has different value for same key: key %v has %v and trying to add value %v", k, old, v)
		}
		m[k] = v
		line++
	}
	if err := sc.Err(); err != nil {
		return nil, c.Errorf("reading %s: %v", path, err)
	}
	if vocab != -1 && line != vocab {
		return nil, c.Errorf("invalid vocab_size in %s: expected %d but got %d", path, vocab, line)
	}
	h.m, h.initialized = m, true
	return nil, nil
}

func kTableFind(c *Context) ([]*Tensor, error) {
	h, err := table(c, 0)
	if err != nil {
		return nil, err
	}
	keys, err := stateInput(c, 1)
	if err != nil {
		return nil, err
	}
	def, err := stateInput(c, 2)
	if err != nil {
		return nil, err
	}
	// LookupInterface::CheckFindArguments: the default is a scalar or
	// one per key.
	if len(def.Shape) != 0 && !slices.Equal(def.Shape, keys.Shape) {
		return nil, c.Errorf("expected shape [] or %v for default value, got %v", keys.Shape, def.Shape)
	}
	if !h.Mutable && !h.initialized {
		return nil, c.Errorf("table not initialized")
	}
	out, err := NewTensor(h.ValueDType, keys.Shape)
	if err != nil {
		return nil, c.Errorf("%v", err)
	}
	if def.NumElements() < 1 {
		return nil, c.Errorf("default value is empty")
	}
	// A mutable table honours a default per key; HashTable::DoFind reads
	// the first element of the default whatever its shape.
	perKey := h.Mutable && len(def.Shape) != 0 && def.NumElements() == keys.NumElements()
	dv := tableValue(def, 0)
	for i := 0; i < keys.NumElements(); i++ {
		k, err := tableKey(keys, i)
		if err != nil {
			return nil, c.Errorf("%v", err)
		}
		v, ok := h.m[k]
		if !ok {
			v = dv
			if perKey {
				v = tableValue(def, i)
			}
		}
		if err := setElem(out, i, v); err != nil {
			return nil, c.Errorf("%v", err)
		}
	}
	c.Numerics.Round(out)
	return []*Tensor{out}, nil
}

// sameTableValue compares two values of a table as C++'s != does (NaN
// differs from itself; strings by bytes).
func sameTableValue(a, b any) bool {
	if x, ok := a.([]byte); ok {
		y, ok := b.([]byte)
		return ok && string(x) == string(y)
	}
	return a == b
}

func setElem(t *Tensor, i int, v any) error {
	switch d := t.Data.(type) {
	case [][]byte:
		if x, ok := v.([]byte); ok {
			d[i] = x
			return nil
		}
	case []int64:
		if x, ok := v.(int64); ok {
			d[i] = x
			return nil
		}
	case []int32:
		if x, ok := v.(int32); ok {
			d[i] = x
			return nil
		}
	case []float32:
		if x, ok := v.(float32); ok {
			d[i] = x
			return nil
		}
	case []float64:
		if x, ok := v.(float64); ok {
			d[i] = x
			return nil
		}
	case []bool:
		if x, ok := v.(bool); ok {
			d[i] = x
			return nil
		}
	}
	return fmt.Errorf("table value %T does not fit a %s tensor", v, dtName(t.DType))
}

func kTableSize(c *Context) ([]*Tensor, error) {
	h, err := table(c, 0)
	if err != nil {
		return nil, err
	}
	return []*Tensor{ScalarInt64(int64(len(h.m)))}, nil
}
