// Package html writes a report as one self-contained HTML page. It reads only
// the model.
package html

import (
	"cmp"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/reports/internal/render"
)

//go:embed report.gohtml report.css report.js
var htmlFiles embed.FS

// htmlTemplate is parsed when a report is first written, not when the
// package is initialised: most commands write no HTML.
var htmlTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report.gohtml").Funcs(template.FuncMap{
		"pct":    render.FormatPercent,
		"bytes":  render.FormatBytes,
		"join":   strings.Join,
		"pins":   render.PinList,
		"phrase": render.DeltaPhrase,
		"ops":    render.TrainingOpList,
		"colls":  render.CollectiveLines,
		"xla":    render.XLALines,
		"cat":    reports.Category,
		"sci":    func(v float64) string { return fmt.Sprintf("%.3g", v) },
		"sbytes": func(b int64) string {
			if b == 0 {
				return "0 B"
			}
			return render.SignedBytes(b)
		},
	}).ParseFS(htmlFiles, "report.gohtml"))
})

// Limits on what the HTML draws (everything is still in the node table data).
const (
	htmlIslandsDrawn     = 12
	htmlIslandNodesDrawn = 6
	htmlParityNodes      = 25
	htmlUncoveredGroups  = 100
	htmlMatrixRows       = 500
	htmlListRows         = 50
)

// WriteHTML writes one self-contained HTML page: inline CSS, JavaScript and
// SVG, no request to any other address, so it works offline from disk and as
// a CI artifact. Summary charts, the op × target matrix, the partition
// picture, islands, wishlist, parity and findings are rendered here; the node
// table is embedded as compact JSON in a <script type="application/json">
// element and drawn page by page by the script, so that a 100,000-node model
// stays usable. html/template does the escaping; the embedded JSON has <, >
// and & escaped (json.Marshal's default), so no string in a model can close
// the script element.
func WriteHTML(w io.Writer, r *reports.Report) error {
	r.Normalize()
	css, err := htmlFiles.ReadFile("report.css")
	if err != nil {
		return err
	}
	js, err := htmlFiles.ReadFile("report.js")
	if err != nil {
		return err
	}
	nodes, err := json.Marshal(buildNodeTables(r))
	if err != nil {
		return err
	}
	v := htmlView{
		Report: r,
		CSS:    template.CSS(css),
		JS:     template.JS(js),
		Nodes:  template.JS(nodes),
		// reports of producers that record no options list every node
		Attention: r.Options != nil && r.Options.Nodes == reports.NodesAttention,
	}
	for i, m := range r.Models {
		v.Models = append(v.Models, buildModelView(i, m))
	}
	v.Changes = buildChanges(v.Models)
	tv := render.NewView(r)
	v.Source, v.Phases = tv.Source, strings.Join(tv.Phases, ", ")
	return htmlTemplate().Execute(w, v)
}

type htmlView struct {
	Report *reports.Report
	CSS    template.CSS
	JS     template.JS
	Nodes  template.JS
	// Attention: the node table has only the nodes that need attention
	// (Options.Nodes).
	Attention bool
	Models    []modelView
	// Source is the --from pack every delta is against ("" for none);
	// Phases the phases the figures count.
	Source, Phases string
	// Changes are the rows of "what changes vs the source", one per model
	// and target with a delta.
	Changes []changeRow
}

// changeRow is one model on one target in "what changes vs the source".
type changeRow struct {
	ModelID, Model string
	T              *reports.Target
	Percent        float64
	// Ops are the new fallback groups with at most a few node paths each.
	Ops []changeOp
}

type changeOp struct {
	reports.DeltaOp
	Shown []string
	More  int
}

func buildChanges(models []modelView) []changeRow {
	var out []changeRow
	for _, mv := range models {
		for _, tv := range mv.Targets {
			d := tv.T.Delta
			if d == nil {
				continue
			}
			row := changeRow{ModelID: mv.ID, Model: mv.Model.Path, T: tv.T, Percent: tv.Percent}
			for _, o := range d.NewFallbackOps {
				n := min(len(o.Nodes), htmlIslandNodesDrawn)
				row.Ops = append(row.Ops, changeOp{DeltaOp: o, Shown: o.Nodes[:n], More: len(o.Nodes) - n})
			}
			out = append(out, row)
		}
	}
	// What got worse first; the rest in model and target order.
	slices.SortStableFunc(out, func(a, b changeRow) int {
		return cmp.Compare(b.T.Delta.NewFallbackNodes, a.T.Delta.NewFallbackNodes)
	})
	return out
}

type modelView struct {
	ID      string
	Model   *reports.Model
	Targets []targetView
	Matrix  matrixView
}

type targetView struct {
	ID        string
	T         *reports.Target
	Uncovered []reports.Uncovered // the first htmlUncoveredGroups groups
	MoreUnc   int
	Percent   float64
	Total     int
	Covered   int
	Fallback  int
	Segments  []barSegment
	Partition *partitionView
	Islands   []islandView
	MoreIsl   int // islands not drawn
	Histos    []histView
	// AMP is the first htmlListRows nodes auto mixed precision converts;
	// AMPMissing counts those without a half kernel.
	AMP        []reports.AMPNode
	AMPMissing int
	// Disagree lists nodes whose logged device differs from the prediction.
	Disagree []reports.ComparedNode
	// PlacementNotes is set when the placement has something to list.
	PlacementNotes bool
	// Rewrite is the before → after table, the rules and the notes of a
	// `tfscan rewrite` (nil otherwise).
	Rewrite *rewriteView
	// RewriteRemoves is check's count of fallbacks rewrite would remove.
	RewriteRemoves int
}

// rewriteView is what the HTML shows of a rewrite.
type rewriteView struct {
	Output string
	Rows   [][]string // what, before, after
	Rules  [][]string // rule, ops, nodes, exactness, checks, error seen
	Notes  []string
}

// barSegment is one part of a target's stacked coverage bar.
type barSegment struct {
	Class string
	X, W  float64
	Count int
	Label string
}

const barWidth = 400.0

func buildModelView(i int, m *reports.Model) modelView {
	mv := modelView{ID: fmt.Sprintf("m%d", i), Model: m, Matrix: buildMatrix(m)}
	for j, t := range m.Targets {
		total, covered := t.CountedNodes()
		tv := targetView{ID: fmt.Sprintf("m%d-t%d", i, j), T: t, Percent: t.CoveragePercent(), Total: total, Covered: covered, Fallback: t.FallbackNodes()}
		tv.Segments = coverageSegments(t)
		if n := t.RewriteRemovesFallback; n != nil {
			tv.RewriteRemoves = *n
		}
		if rw := t.Rewrite; rw != nil {
			tv.Rewrite = &rewriteView{Output: rw.Output, Rows: render.RewriteRows(rw), Rules: render.RewriteRuleRows(rw), Notes: render.RewriteNotes(rw)}
		}
		tv.Uncovered = t.Uncovered[:min(len(t.Uncovered), htmlUncoveredGroups)]
		tv.MoreUnc = len(t.Uncovered) - len(tv.Uncovered)
		if p := t.Placement; p != nil {
			if len(p.PartitionEdges) > 0 || len(p.DeviceNodes) > 0 {
				tv.Partition = buildPartition(t)
			}
			for _, a := range p.AMP {
				if !a.Covered {
					tv.AMPMissing++
				}
			}
			tv.AMP = p.AMP[:min(len(p.AMP), htmlListRows)]
			if c := p.Comparison; c != nil {
				for _, n := range c.Nodes {
					if !n.Agree && len(tv.Disagree) < htmlListRows {
						tv.Disagree = append(tv.Disagree, n)
					}
				}
			}
			tv.PlacementNotes = len(p.Warnings) > 0 || len(tv.AMP) > 0 || len(tv.Disagree) > 0
		}
		for j, is := range t.Islands {
			if j == htmlIslandsDrawn {
				tv.MoreIsl = len(t.Islands) - j
				break
			}
			tv.Islands = append(tv.Islands, buildIsland(is))
		}
		if t.Parity != nil {
			for _, o := range t.Parity.Outputs {
				if o.Stats != nil && len(o.Stats.Histogram) > 0 {
					tv.Histos = append(tv.Histos, buildHisto(o))
				}
			}
		}
		mv.Targets = append(mv.Targets, tv)
	}
	return mv
}

// coverageSegments splits the bar by category, counting the nodes the
// figures count (Target.Ops, exact whatever Nodes lists; or, when a
// producer filled neither, every node by ByReason), in the fixed order
// covered, default, fallback, unknown.
func coverageSegments(t *reports.Target) []barSegment {
	counts := map[string]int{}
	total := 0
	ops := t.OpCounts()
	for _, o := range ops {
		for reason, n := range o.ByReason {
			counts[reports.Category(reason)] += n
			total += n
		}
	}
	if len(ops) == 0 {
		for reason, n := range t.Coverage.ByReason {
			counts[reports.Category(reason)] += n
			total += n
		}
	}
	var segs []barSegment
	x := 0.0
	for _, c := range []string{"covered", "default", "fallback", "unknown"} {
		n := counts[c]
		seg := barSegment{Class: c, Count: n, Label: c}
		if total > 0 {
			seg.W = barWidth * float64(n) / float64(total)
		}
		seg.X = x
		x += seg.W
		segs = append(segs, seg)
	}
	return segs
}

// matrixView is the op × target matrix of one model: every op of the model,
// with its worst reason per target.
type matrixView struct {
	Targets []string
	Rows    []matrixRow
	More    int // ops left out (covered everywhere) beyond htmlMatrixRows
}

type matrixRow struct {
	Op    string
	Count int
	Cells []matrixCell
}

type matrixCell struct {
	Reason    string
	Class     string
	Uncovered int
	Rank      int // for sorting: 0 covered … 3 unknown
}

func buildMatrix(m *reports.Model) matrixView {
	mv := matrixView{}
	type agg struct {
		count int
		cells map[string]*matrixCell
	}
	ops := map[string]*agg{}
	get := func(op string) *agg {
		a := ops[op]
		if a == nil {
			a = &agg{cells: map[string]*matrixCell{}}
			ops[op] = a
		}
		return a
	}
	for ti, t := range m.Targets {
		mv.Targets = append(mv.Targets, t.Target)
		ops := t.OpCounts() // the counted phases, exact whatever Nodes lists
		for _, o := range ops {
			a := get(o.Op)
			if ti == 0 {
				a.count += o.Nodes
			}
			for reason, n := range o.ByReason {
				mergeCell(a.cells, t.Target, reason, n)
			}
		}
		for _, u := range t.Uncovered {
			if len(ops) == 0 && t.CountsPhase(u.Phase) {
				a := get(u.Op)
				if ti == 0 {
					a.count += u.Count
				}
				mergeCell(a.cells, t.Target, u.Reason, u.Count)
			}
		}
	}
	names := make([]string, 0, len(ops))
	for op := range ops {
		names = append(names, op)
	}
	slices.Sort(names)
	for _, op := range names {
		a := ops[op]
		row := matrixRow{Op: op, Count: a.count}
		for _, t := range m.Targets {
			c := a.cells[t.Target]
			if c == nil {
				c = &matrixCell{Reason: reports.ReasonCovered, Class: "covered"}
			}
			row.Cells = append(row.Cells, *c)
		}
		mv.Rows = append(mv.Rows, row)
	}
	if len(mv.Rows) > htmlMatrixRows {
		// Keep the ops that matter: worst first, then by name.
		worst := func(r matrixRow) int {
			w := 0
			for _, c := range r.Cells {
				w = max(w, c.Rank)
			}
			return w
		}
		slices.SortStableFunc(mv.Rows, func(a, b matrixRow) int { return worst(b) - worst(a) })
		mv.More = len(mv.Rows) - htmlMatrixRows
		mv.Rows = mv.Rows[:htmlMatrixRows]
		slices.SortStableFunc(mv.Rows, func(a, b matrixRow) int { return strings.Compare(a.Op, b.Op) })
	}
	return mv
}

var categoryRank = map[string]int{"covered": 0, "default": 1, "fallback": 2, "unknown": 3}

// mergeCell keeps the worst reason seen for an op on a target.
func mergeCell(cells map[string]*matrixCell, target, reason string, n int) {
	c := cells[target]
	if c == nil {
		c = &matrixCell{Reason: reason, Class: reports.Category(reason), Rank: categoryRank[reports.Category(reason)]}
		cells[target] = c
	}
	if !reports.IsCovered(reason) {
		c.Uncovered += n
	}
	if r := categoryRank[reports.Category(reason)]; r > c.Rank || (r == c.Rank && reason < c.Reason) {
		c.Reason, c.Class, c.Rank = reason, reports.Category(reason), r
	}
}

// partitionView is the partition picture: one box per device with its node
// count, and an arc per direction between devices labelled with transfers
// and bytes.
type partitionView struct {
	Width, Height int
	Boxes         []partBox
	Arcs          []partArc
}

type partBox struct {
	Device, Short string
	Nodes         int
	X, Y, W, H    int
	CPU           bool
}

type partArc struct {
	Path         string
	LX, LY       int
	Label, Title string
}

func buildPartition(t *reports.Target) *partitionView {
	p := t.Placement
	devs := map[string]bool{}
	for d := range p.DeviceNodes {
		devs[d] = true
	}
	for _, e := range p.PartitionEdges {
		devs[e.From], devs[e.To] = true, true
	}
	names := make([]string, 0, len(devs))
	for d := range devs {
		names = append(names, d)
	}
	// Accelerator first, CPU last: reads left to right as "leaves the device".
	slices.SortFunc(names, func(a, b string) int {
		if ca, cb := reports.IsCPUDevice(a), reports.IsCPUDevice(b); ca != cb {
			if ca {
				return 1
			}
			return -1
		}
		return strings.Compare(a, b)
	})
	const bw, bh, gap, top = 170, 60, 190, 90
	pv := &partitionView{Width: max(400, 40+len(names)*bw+(len(names)-1)*gap), Height: top + bh + 90}
	idx := map[string]int{}
	for i, d := range names {
		idx[d] = i
		pv.Boxes = append(pv.Boxes, partBox{Device: d, Short: shortDevice(d), Nodes: p.DeviceNodes[d],
			X: 20 + i*(bw+gap), Y: top, W: bw, H: bh, CPU: reports.IsCPUDevice(d)})
	}
	for _, e := range p.PartitionEdges {
		a, b := pv.Boxes[idx[e.From]], pv.Boxes[idx[e.To]]
		x1, x2 := a.X+a.W/2, b.X+b.W/2
		label := fmt.Sprintf("%d transfer(s), %s", e.Transfers, render.FormatBytes(e.Bytes))
		title := fmt.Sprintf("%s → %s: %s", e.From, e.To, label)
		if x1 < x2 { // forward: arc above
			y := a.Y
			cy := y - 70
			pv.Arcs = append(pv.Arcs, partArc{Path: fmt.Sprintf("M%d %d Q%d %d %d %d", x1+20, y, (x1+x2)/2, cy, x2-20, y),
				LX: (x1 + x2) / 2, LY: y - 40, Label: label, Title: title})
		} else if x1 > x2 { // backward: arc below
			y := a.Y + a.H
			cy := y + 70
			pv.Arcs = append(pv.Arcs, partArc{Path: fmt.Sprintf("M%d %d Q%d %d %d %d", x1-20, y, (x1+x2)/2, cy, x2+20, y),
				LX: (x1 + x2) / 2, LY: y + 48, Label: label, Title: title})
		}
	}
	return pv
}

// shortDevice drops the job/replica/task prefix of a device name.
func shortDevice(d string) string {
	if i := strings.LastIndex(d, "device:"); i >= 0 {
		return d[i+len("device:"):]
	}
	return strings.TrimPrefix(d, "/")
}

// islandView draws a fallback island as a small graph: the device it leaves,
// the island's nodes (at most a few, the rest counted), and the device it
// returns to, with the bytes crossing.
type islandView struct {
	Island reports.Island
	Nodes  []islandNode
	More   int
	Height int
}

type islandNode struct {
	Name  string
	Label string // Name shortened to fit the pill (the tail is kept)
	Y     int
}

func buildIsland(is reports.Island) islandView {
	iv := islandView{Island: is}
	for i, n := range is.Nodes {
		if i == htmlIslandNodesDrawn {
			iv.More = len(is.Nodes) - i
			break
		}
		label := n
		if r := []rune(n); len(r) > 24 {
			label = "…" + string(r[len(r)-23:])
		}
		iv.Nodes = append(iv.Nodes, islandNode{Name: n, Label: label, Y: 20 + i*26})
	}
	iv.Height = max(90, 40+len(iv.Nodes)*26+render.BoolInt(iv.More > 0)*20)
	return iv
}

// histView is a bar chart of one output's absolute-error histogram.
type histView struct {
	Output string
	Stats  *reports.ErrStats
	Bars   []histBar
}

type histBar struct {
	X, Y, W, H int
	Title      string
}

func buildHisto(o reports.ParityOutput) histView {
	hv := histView{Output: o.Name, Stats: o.Stats}
	bins := o.Stats.Histogram
	maxC := 0
	for _, b := range bins {
		maxC = max(maxC, b.Count)
	}
	const w, h = 320, 100
	bw := w / len(bins)
	for i, b := range bins {
		bh := 0
		if maxC > 0 && b.Count > 0 {
			// log scale so that a few large errors stay visible next to many small ones
			bh = max(2, int(math.Round(float64(h)*math.Log1p(float64(b.Count))/math.Log1p(float64(maxC)))))
		}
		hv.Bars = append(hv.Bars, histBar{X: i * bw, Y: h - bh, W: max(1, bw-2), H: bh,
			Title: fmt.Sprintf("[%.3g, %.3g): %d", b.Lo, b.Hi, b.Count)})
	}
	return hv
}

// nodeTables is the node table data the script pages through: per model,
// string tables for ops, reasons, devices, phases and changes, and one
// compact row per node: [path, op index, dtypes, reachable, phase index,
// reason index per target..., device index per target..., change index per
// target...] (-1 where there is none).
type nodeTables struct {
	Models []nodeTable `json:"models"`
}

type nodeTable struct {
	Model   string   `json:"model"`
	Targets []string `json:"targets"`
	Ops     []string `json:"ops"`
	Reasons []string `json:"reasons"`
	Devices []string `json:"devices"`
	Phases  []string `json:"phases"`
	Changes []string `json:"changes"`
	Rows    [][]any  `json:"rows"`
}

func buildNodeTables(r *reports.Report) nodeTables {
	var out nodeTables
	for _, m := range r.Models {
		nt := nodeTable{Model: m.Path, Targets: []string{}, Ops: []string{}, Reasons: []string{}, Devices: []string{},
			Phases: []string{}, Changes: []string{}, Rows: [][]any{}}
		intern := func(tab *[]string, idx map[string]int, s string) int {
			if i, ok := idx[s]; ok {
				return i
			}
			idx[s] = len(*tab)
			*tab = append(*tab, s)
			return idx[s]
		}
		opIdx, reasonIdx, devIdx, phaseIdx, changeIdx := map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}
		type row struct {
			op, dtypes string
			reachable  bool
			phase      int
			reasons    []int
			devices    []int
			changes    []int
		}
		rows := map[string]*row{}
		nt2 := len(m.Targets)
		for ti, t := range m.Targets {
			nt.Targets = append(nt.Targets, t.Target)
			for _, n := range t.Nodes {
				rw := rows[n.Path]
				if rw == nil {
					rw = &row{op: n.Op, dtypes: strings.Join(n.DTypes, ","), phase: -1, reasons: make([]int, nt2), devices: make([]int, nt2), changes: make([]int, nt2)}
					for i := range rw.reasons {
						rw.reasons[i], rw.devices[i], rw.changes[i] = -1, -1, -1
					}
					if n.Phase != "" {
						rw.phase = intern(&nt.Phases, phaseIdx, n.Phase)
					}
					rows[n.Path] = rw
				}
				if n.Change != "" {
					rw.changes[ti] = intern(&nt.Changes, changeIdx, n.Change)
				}
				rw.reachable = rw.reachable || n.Reachable
				reason := n.Reason
				if len(n.Reasons) > 0 {
					// the reason code first: the script colours by it
					reason += " (" + strings.Join(n.Reasons, "; ") + ")"
				}
				rw.reasons[ti] = intern(&nt.Reasons, reasonIdx, reason)
				if n.Device != "" {
					rw.devices[ti] = intern(&nt.Devices, devIdx, n.Device)
				}
			}
		}
		paths := make([]string, 0, len(rows))
		for p := range rows {
			paths = append(paths, p)
		}
		slices.Sort(paths)
		for _, p := range paths {
			rw := rows[p]
			cells := []any{p, intern(&nt.Ops, opIdx, rw.op), rw.dtypes, render.BoolInt(rw.reachable), rw.phase}
			for _, r := range rw.reasons {
				cells = append(cells, r)
			}
			for _, d := range rw.devices {
				cells = append(cells, d)
			}
			for _, c := range rw.changes {
				cells = append(cells, c)
			}
			nt.Rows = append(nt.Rows, cells)
		}
		out.Models = append(out.Models, nt)
	}
	if out.Models == nil {
		out.Models = []nodeTable{}
	}
	return out
}
