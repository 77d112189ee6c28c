package conformance

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/coverage/placement"
	"github.com/tfscan/tfscan/internal/tfenv"
	"github.com/tfscan/tfscan/tflog"
)

func init() { owners["logs"] = true }

// fixtureDir holds the committed real logs (tools/tf/make_logs.py).
var fixtureDir = filepath.Join(tfenv.RepoRoot(), "tflog", "testdata", "tf2.15")

// TestLogs makes the real logs again with the pinned TensorFlow (two
// TensorFlow processes, tools/tf/make_logs.py) and checks that tflog reads
// from each what it reads from the committed fixture: the same messages
// (kind, node, op, device, attrs, dtypes, registered devices, colocation
// members and kernel lists), placements and unparsed lines. Line numbers and
// message texts are not compared: a log's start-up lines, timestamps,
// process ids and host name differ from run to run. Attrs, the colocation
// block's op lines and kernel lists are compared as sets: TensorFlow prints
// them from hash maps, in an order that differs between runs.
func TestLogs(t *testing.T) {
	committed, err := filepath.Glob(filepath.Join(fixtureDir, "*.log"))
	require.NoError(t, err)
	require.NotEmpty(t, committed)
	tfenv.Python(t)
	dir := t.TempDir()
	tfenv.Run(t, filepath.Join("tools", "tf", "make_logs.py"), dir)
	made, err := filepath.Glob(filepath.Join(dir, "*.log"))
	require.NoError(t, err)
	assert.Equal(t, baseNames(committed), baseNames(made), "make_logs.py makes the committed fixtures, no more, no fewer")

	var rows []logRow
	for _, path := range committed {
		name := filepath.Base(path)
		want := parseLog(t, path)
		fresh := filepath.Join(dir, name)
		if _, err := os.Stat(fresh); err != nil {
			continue // reported above
		}
		got := parseLog(t, fresh)
		r := row(name, want)
		r.same = assert.Equal(t, view(want), view(got), "%s: TensorFlow's log now reads differently", name)
		r.same = assert.Equal(t, learnedLines(want), learnedLines(got), "%s: the kernels learned from it differ", name) && r.same
		rows = append(rows, r)
	}
	section("logs", logsSection(rows))
}

func baseNames(paths []string) []string {
	var out []string
	for _, p := range paths {
		out = append(out, filepath.Base(p))
	}
	return out
}

func parseLog(t *testing.T, path string) *tflog.Log {
	t.Helper()
	l, err := tflog.ParseFile(path, nil)
	require.NoError(t, err, path)
	return l
}

// logView is what a log says, without what differs from run to run.
type logView struct {
	Messages          []string
	Placements, Eager []string
	Unparsed          int
	Cut, Dropped      int
}

func view(l *tflog.Log) logView {
	v := logView{Unparsed: l.Unparsed, Cut: l.CutLines, Dropped: l.Dropped}
	for _, m := range l.Messages {
		var ops []string
		for _, o := range m.OpDevices {
			ops = append(ops, o.Op+":"+strings.Join(o.Devices, " "))
		}
		slices.Sort(ops)
		var nodes []string
		for _, n := range m.Nodes {
			nodes = append(nodes, n.Name+"("+n.Op+")")
		}
		v.Messages = append(v.Messages, fmt.Sprintf("%s node=%s op=%s device=%s count=%d attrs=%v dtypes=%v registered=%v nodes=%v opdevices=%v kernels(listed=%t elided=%t)=%v engine=%s",
			m.Kind, m.Node, m.Op, m.Device, m.Count, sortedItems(m.Attrs), sorted(m.DTypes), m.RegisteredDevices,
			nodes, ops, m.KernelsListed, m.KernelsElided, kernelLines(m.Kernels), m.Engine))
	}
	for _, p := range l.Placements {
		v.Placements = append(v.Placements, p.Name+" ("+p.Op+") "+p.Device)
	}
	for _, p := range l.Eager {
		v.Eager = append(v.Eager, p.Op+" "+p.Device)
	}
	slices.Sort(v.Placements)
	slices.Sort(v.Eager)
	return v
}

// sortedItems splits "a=1, b=2" into its sorted items.
func sortedItems(attrs string) []string {
	if attrs == "" {
		return nil
	}
	return sorted(strings.Split(attrs, ", "))
}

func sorted(xs []string) []string {
	out := slices.Clone(xs)
	slices.Sort(out)
	return out
}

// kernelLines prints kernels as KernelsRegisteredForOp does, sorted.
func kernelLines(ks []tflog.Kernel) []string {
	var out []string
	for _, k := range ks {
		s := "device='" + k.DeviceType + "'"
		if k.Label != "" {
			s += "; label='" + k.Label + "'"
		}
		for _, c := range k.Constraints {
			vals := slices.Clone(c.Types)
			vals = append(vals, c.Strings...)
			for _, n := range c.Ints {
				vals = append(vals, fmt.Sprint(n))
			}
			for _, b := range c.Bools {
				vals = append(vals, fmt.Sprint(b))
			}
			s += "; " + c.Name + " in [" + strings.Join(vals, ", ") + "]"
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// learnedLines is the learned pack of a log (coverage.LearnFromLog, as
// explain --learn-registry writes it), one line per kernel and per
// complete_ops statement, sorted.
func learnedLines(l *tflog.Log) []string {
	p, skipped := coverage.LearnFromLog(l, coverage.LearnOptions{Name: "learned", DeviceType: "CPU"})
	var out []string
	for _, s := range skipped {
		out = append(out, "not learned: "+s.Op+": "+s.Why)
	}
	for _, c := range p.Complete {
		out = append(out, "complete "+c.Op+" on "+strings.Join(c.DeviceTypes, ", "))
	}
	for _, k := range p.Kernels {
		out = append(out, k.GetOp()+" "+placement.KernelLine(k))
	}
	slices.Sort(out)
	return out
}

// logRow is one fixture's line of the section.
type logRow struct {
	name       string
	kinds      map[string]int
	nodes      []string
	learned    []string
	placements int
	eager      int
	unparsed   int
	lines      int
	same       bool
}

func row(name string, l *tflog.Log) logRow {
	r := logRow{name: name, kinds: map[string]int{}, placements: len(l.Placements), eager: len(l.Eager), unparsed: l.Unparsed, lines: l.Lines}
	for _, m := range l.Messages {
		r.kinds[string(m.Kind)]++
		switch {
		case m.Node != "":
			r.nodes = append(r.nodes, m.Node)
		case len(m.Nodes) > 0:
			r.nodes = append(r.nodes, fmt.Sprintf("%s and %d more", m.Nodes[0].Name, len(m.Nodes)-1))
		case m.Op != "":
			r.nodes = append(r.nodes, "op "+m.Op)
		}
	}
	p, _ := coverage.LearnFromLog(l, coverage.LearnOptions{Name: "learned", DeviceType: "CPU"})
	for _, c := range p.Complete {
		byType := map[string]int{}
		for _, k := range p.Kernels {
			if k.GetOp() == c.Op {
				byType[k.GetDeviceType()]++
			}
		}
		var parts []string
		for _, d := range c.DeviceTypes {
			parts = append(parts, fmt.Sprintf("%s %d", d, byType[d]))
		}
		r.learned = append(r.learned, fmt.Sprintf("%s (%s)", c.Op, strings.Join(parts, ", ")))
	}
	return r
}

func logsSection(rows []logRow) string {
	var b strings.Builder
	b.WriteString("## Logs\n\n")
	b.WriteString("Real logs of the pinned TensorFlow " + tfenv.Version + " (`tools/tf/make_logs.py`, two TensorFlow processes: one with\n" +
		"XLA devices on, where `XLA_CPU` stands in for an accelerator with kernels for only some ops, and a CPU-only one\n" +
		"without tensorflow_text), committed in `tflog/testdata/tf2.15` with the models they are about. The conformance\n" +
		"run makes them again and compares what tflog reads from each with what it reads from the fixture: message kinds,\n" +
		"nodes, ops, devices, attrs, dtypes, registered devices, colocation members, kernel lists, placements, unparsed\n" +
		"lines, and the learned pack (`explain --learn-registry`).\n\n")
	agree := 0
	for _, r := range rows {
		if r.same {
			agree++
		}
	}
	fmt.Fprintf(&b, "%d of %d fixtures read the same from a fresh run.\n\n", agree, len(rows))
	b.WriteString("| fixture | lines | messages read | nodes named | kernels learned (per device type) | placement lines | unparsed |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		var kinds []string
		for _, k := range slices.Sorted(maps.Keys(r.kinds)) {
			kinds = append(kinds, fmt.Sprintf("`%s` %d", k, r.kinds[k]))
		}
		place := fmt.Sprint(r.placements)
		if r.eager > 0 {
			place += fmt.Sprintf(" (+%d eager)", r.eager)
		}
		fmt.Fprintf(&b, "| `%s` | %d | %s | %s | %s | %s | %d |\n", r.name, r.lines, orNone(strings.Join(kinds, ", ")),
			orNone(strings.Join(r.nodes, ", ")), orNone(strings.Join(r.learned, "; ")), place, r.unparsed)
	}
	unparsed := 0
	for _, r := range rows {
		unparsed += r.unparsed
	}
	if unparsed == 0 {
		b.WriteString("\nNo line of these logs is left unparsed.")
	} else {
		fmt.Fprintf(&b, "\n%d line(s) of these logs are left unparsed (the table says where): each is a difference to look at.", unparsed)
	}
	b.WriteString(" The lines tflog does not read are TensorFlow's start-up lines (CUDA\n" +
		"stub and factory registration, cpu_feature_guard, TF-TRT, XLA service), `direct_session.cc` device mapping,\n" +
		"`mlir_graph_optimization_pass.cc`, Python tracebacks and the \"Detected at node\" stack of Python's error\n" +
		"wrapper: none is about a node, op, kernel or device that tfscan explains (docs/explain.md, \"Unparsed lines\").\n\n" +
		"Known differences between runs, not compared: timestamps, process ids, addresses, the host name in\n" +
		"`Op type not registered ... in binary running on HOST`, paths in tracebacks; the order of `Node attrs`, of a\n" +
		"`No OpKernel` message's attrs and of the colocation block's op lines (hash maps in TensorFlow).\n")
	return b.String()
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
