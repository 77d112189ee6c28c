package placement

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
)

// Log is a placement log of a real TensorFlow run.
type Log struct {
	// Nodes are placer lines "name: (Op): /job:.../device:GPU:0" in order;
	// a node logged twice keeps its last device.
	Nodes []LogEntry
	// Eager are "Executing op Op in device /job:.../device:GPU:0" lines.
	Eager []LogEntry
}

// LogEntry is one logged placement; Device is normalised to "TYPE:ID".
type LogEntry struct {
	Name, Op, Device string
	Line             int
}

var (
	// placer.cc LogDeviceAssignment: printf("%s: (%s): %s\n", ...), also
	// found behind a glog prefix.
	placerLine = regexp.MustCompile(`(?:^|\s)([^\s:][^\s]*): \(([A-Za-z0-9_>.\-]+)\): (/job:[^\s]+)\s*$`)
	// eager/execute.cc: "Executing op %s in device %s".
	eagerLine = regexp.MustCompile(`Executing op ([A-Za-z0-9_>.\-]+) in device (/job:[^\s]+)`)
	devPart   = regexp.MustCompile(`(?i)/device:([A-Za-z_0-9]+):(\d+)`)
)

// maxLogLine bounds one log line; longer lines are an error, not an
// unbounded allocation.
const maxLogLine = 1 << 20

// ParseLog reads a placement log: the lines tf.debugging.set_log_device_placement(True)
// (or log_device_placement in a ConfigProto) prints. Other lines are skipped.
func ParseLog(r io.Reader) (*Log, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), maxLogLine)
	l := &Log{}
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		if m := eagerLine.FindStringSubmatch(text); m != nil {
			if d, ok := normDevice(m[2]); ok {
				l.Eager = append(l.Eager, LogEntry{Op: m[1], Device: d, Line: line})
			}
			continue
		}
		if m := placerLine.FindStringSubmatch(text); m != nil {
			if d, ok := normDevice(m[3]); ok {
				l.Nodes = append(l.Nodes, LogEntry{Name: m[1], Op: m[2], Device: d, Line: line})
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("placement log line %d: %w", line+1, err)
	}
	if len(l.Nodes) == 0 && len(l.Eager) == 0 {
		return nil, fmt.Errorf("no placement lines found (expected \"name: (Op): /job:.../device:GPU:0\" or \"Executing op Op in device ...\")")
	}
	return l, nil
}

func normDevice(s string) (string, bool) {
	m := devPart.FindStringSubmatch(s)
	if m == nil {
		return "", false
	}
	return strings.ToUpper(m[1]) + ":" + m[2], true
}

// Agreement compares a prediction with a log.
type Agreement struct {
	// Matched counts logged nodes found in the prediction; Agreed those on
	// the same kind of device (host vs accelerator).
	Matched, Agreed int
	// Unmatched are logged names tfscan did not place (sorted).
	Unmatched []string
	// Nodes are the matched nodes, disagreements first, then by name.
	Nodes []NodeAgreement
}

// NodeAgreement is one node's predicted and logged device.
type NodeAgreement struct {
	Name, Op, Predicted, Actual string
	Agree                       bool
}

// Compare matches the log's nodes to the prediction by node name (the
// graph name, or the name with the inlining prefix TF gives) and eager ops by
// op type. A log taken on the source GPU compares by device kind: CPU
// against any accelerator; the accelerator's type may differ from the
// target's.
func Compare(res *Result, log *Log) *Agreement {
	a := &Agreement{}
	byName := map[string]NodeResult{}
	byOp := map[string][]NodeResult{}
	for _, n := range res.Nodes {
		if _, ok := byName[n.Name]; !ok {
			byName[n.Name] = n
		}
		if _, ok := byName[n.Path]; !ok && n.Path != "" {
			byName[n.Path] = n
		}
		byOp[n.Op] = append(byOp[n.Op], n)
	}
	last := map[string]LogEntry{}
	for _, e := range log.Nodes {
		last[e.Name] = e
	}
	unmatched := map[string]bool{}
	for name, e := range last {
		n, ok := byName[name]
		if !ok {
			// inlined nodes: "call/inner/name" → try the suffixes
			parts := strings.Split(name, "/")
			for k := 1; k < len(parts) && !ok; k++ {
				n, ok = byName[strings.Join(parts[k:], "/")]
				if ok && n.Op != e.Op {
					ok = false
				}
			}
		}
		if !ok {
			unmatched[name] = true
			continue
		}
		na := NodeAgreement{Name: name, Op: e.Op, Predicted: n.Device, Actual: e.Device,
			Agree: isCPUDev(n.Device) == isCPUDev(e.Device)}
		a.Nodes = append(a.Nodes, na)
	}
	eager := map[string]LogEntry{}
	for _, e := range log.Eager {
		eager[e.Op] = e
	}
	for op, e := range eager {
		ns := byOp[op]
		if len(ns) == 0 {
			unmatched["eager "+op] = true
			continue
		}
		pred := ns[0].Device
		agree := true
		for _, n := range ns {
			if isCPUDev(n.Device) != isCPUDev(e.Device) {
				agree, pred = false, n.Device
			}
		}
		a.Nodes = append(a.Nodes, NodeAgreement{Name: "eager " + op, Op: op, Predicted: pred, Actual: e.Device, Agree: agree})
	}
	for _, n := range a.Nodes {
		a.Matched++
		if n.Agree {
			a.Agreed++
		}
	}
	for k := range unmatched {
		a.Unmatched = append(a.Unmatched, k)
	}
	sort.Strings(a.Unmatched)
	sort.Slice(a.Nodes, func(i, j int) bool {
		if a.Nodes[i].Agree != a.Nodes[j].Agree {
			return !a.Nodes[i].Agree
		}
		return a.Nodes[i].Name < a.Nodes[j].Name
	})
	return a
}

func isCPUDev(d string) bool { return strings.HasPrefix(strings.ToUpper(d), "CPU:") }
