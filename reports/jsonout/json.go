// Package jsonout writes reports as JSON: the scan report streamed, the
// inspect and explain reports indented. It reads only the model.
package jsonout

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/tfscan/tfscan/reports"
)

// WriteJSON writes r as indented JSON (schema version 2, see Schema), each
// entry of a target's nodes[] on one line: a report stays a fraction of the
// size (a model's nodes are most of it), a node is one line to grep, and a
// diff of two reports shows a changed node as one changed line. Reindented,
// the bytes are those of encoding/json's indented encoding of r
// (TestWriteJSONIsEncodingJSON). The output is deterministic: Normalize
// orders everything and maps are written with sorted keys. It is written as
// it is rendered, model by model, target by target and node by node, so
// that the whole document is never held in memory.
func WriteJSON(w io.Writer, r *reports.Report) error {
	r.Normalize()
	bw := bufio.NewWriterSize(w, 1<<16)
	head := *r
	head.Models = []*reports.Model{}
	err := streamField(bw, &head, "", "models", func(prefix string) error {
		return streamArray(bw, len(r.Models), prefix, func(w *bufio.Writer, i int, prefix string) error {
			return writeModelJSON(w, r.Models[i], prefix)
		})
	})
	if err != nil {
		return err
	}
	if err := bw.WriteByte('\n'); err != nil {
		return err
	}
	return bw.Flush()
}

func writeModelJSON(w *bufio.Writer, m *reports.Model, prefix string) error {
	head := *m
	head.Targets = []*reports.Target{}
	return streamField(w, &head, prefix, "targets", func(prefix string) error {
		return streamArray(w, len(m.Targets), prefix, func(w *bufio.Writer, i int, prefix string) error {
			return writeTargetJSON(w, m.Targets[i], prefix)
		})
	})
}

func writeTargetJSON(w *bufio.Writer, t *reports.Target, prefix string) error {
	head := *t
	head.Nodes = []reports.NodeResult{}
	return streamField(w, &head, prefix, "nodes", func(prefix string) error {
		// One buffer for every node: the report's garbage adds to a
		// scan's peak heap.
		var buf []byte
		return streamArray(w, len(t.Nodes), prefix, func(w *bufio.Writer, i int, prefix string) error {
			buf = appendNode(buf[:0], &t.Nodes[i])
			_, err := w.Write(buf)
			return err
		})
	})
}

// streamField writes v, indented at prefix, with the value of its field
// key, which v holds as an empty array, written by body instead (at the
// field's indentation). The field's key can only occur once at v's first
// level: keys inside deeper objects are indented further, and a quote
// inside a string value is escaped.
func streamField(w *bufio.Writer, v any, prefix, key string, body func(prefix string) error) error {
	b, err := json.MarshalIndent(v, prefix, "  ")
	if err != nil {
		return err
	}
	field := prefix + "  "
	marker := []byte("\n" + field + `"` + key + `": []`)
	if bytes.Count(b, marker) != 1 {
		return fmt.Errorf("json: field %q not found once in its object", key)
	}
	i := bytes.Index(b, marker)
	at := i + len(marker) - len("[]")
	if _, err := w.Write(b[:at]); err != nil {
		return err
	}
	if err := body(field); err != nil {
		return err
	}
	_, err = w.Write(b[at+len("[]"):])
	return err
}

// streamArray writes an array of n items, item i by write, as
// encoding/json indents an array whose brackets are at prefix.
func streamArray(w *bufio.Writer, n int, prefix string, write func(w *bufio.Writer, i int, prefix string) error) error {
	if n == 0 {
		_, err := w.WriteString("[]")
		return err
	}
	w.WriteByte('[')
	inner := prefix + "  "
	for i := range n {
		if i > 0 {
			w.WriteByte(',')
		}
		w.WriteByte('\n')
		w.WriteString(inner)
		if err := write(w, i, inner); err != nil {
			return err
		}
	}
	w.WriteByte('\n')
	w.WriteString(prefix)
	return w.WriteByte(']')
}
