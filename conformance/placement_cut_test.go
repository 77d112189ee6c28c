package conformance

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// tfStep is the session step tfplace records (step_of in tools/tf/tfplace.py):
// the pruned graph's nodes and edges, the fed tensors and the fetched ones.
type tfStep struct {
	Nodes   []string    `json:"nodes"`
	Edges   [][2]string `json:"edges"`
	Feeds   []string    `json:"feeds"`
	Fetches []string    `json:"fetches"`
}

// stepCut is a step's partitions and cut edges as graph_partition.cc makes
// them from a placement: a partition per device the step's nodes use, and
// the client's CPU when it feeds or fetches (DirectSession's _Arg and
// _Retval, direct_session.cc:1684-1701); a cut edge per tensor and
// receiving device ("src:port -> TYPE", graph_partition.cc:1094-1116), a
// fed tensor sent from the client's CPU, a fetched one received there, and
// a cross-device control edge as "^src -> TYPE" (a dummy constant's send,
// once per source and receiving partition, :1117-1132). Sends between the
// memories of one device are not cut edges here.
type stepCut struct {
	partitions int
	cut        []string
}

// deriveCut derives a step's cut from the device type of each node; ok is
// false when a node of the step has no device (a node the placer never saw:
// lowered control flow, a name only one side knows).
func deriveCut(st *tfStep, dev func(node string) (string, bool)) (stepCut, bool) {
	devs := map[string]bool{}
	for _, n := range st.Nodes {
		d, ok := dev(n)
		if !ok {
			return stepCut{}, false
		}
		devs[d] = true
	}
	if len(st.Feeds)+len(st.Fetches) > 0 {
		devs["CPU"] = true
	}
	fed := map[string]bool{}
	for _, f := range st.Feeds {
		fed[f] = true
	}
	srcDev := func(t string) string {
		if fed[t] {
			return "CPU"
		}
		d, _ := dev(strings.TrimPrefix(nodeOf(t), "^"))
		return d
	}
	cut := map[string]bool{}
	for _, e := range st.Edges {
		src, dst := e[0], e[1]
		dd, _ := dev(dst)
		if sd := srcDev(src); sd != dd {
			cut[src+" -> "+dd] = true
		}
	}
	for _, f := range st.Fetches {
		if srcDev(f) != "CPU" {
			cut[f+" -> CPU"] = true
		}
	}
	return stepCut{partitions: len(devs), cut: sortedKeys(cut)}, true
}

var dummySend = regexp.MustCompile(`^(.*)/_\d+$`)

// realCut is TensorFlow's own cut from its partition graphs, in deriveCut's
// terms: device types, a control edge's dummy constant by its source, and
// only the sends between devices.
func realCut(tf *tfPlacement) stepCut {
	nodes := map[string]bool{}
	fed := map[string]bool{}
	if tf.Step != nil {
		for _, n := range tf.Step.Nodes {
			nodes[n] = true
		}
		for _, f := range tf.Step.Feeds {
			fed[f] = true
		}
	}
	cut := map[string]bool{}
	for _, e := range tf.CutEdges {
		src, dst, _ := strings.Cut(e, " -> ")
		dd := deviceType(dst)
		node := nodeOf(src)
		sd := ""
		switch {
		case fed[src]:
			sd = "CPU"
		case nodes[node]:
			sd = deviceType(tf.Nodes[node])
		default:
			if m := dummySend.FindStringSubmatch(node); m != nil && nodes[m[1]] {
				src, sd = "^"+m[1], deviceType(tf.Nodes[m[1]])
			}
		}
		if sd != dd {
			cut[src+" -> "+dd] = true
		}
	}
	p := 0
	if tf.Partitions != nil {
		p = *tf.Partitions
	}
	return stepCut{partitions: p, cut: sortedKeys(cut)}
}

// diffCut words the difference of two cuts, "" when they agree.
func diffCut(want, got []string) string {
	w, g := map[string]bool{}, map[string]bool{}
	for _, x := range want {
		w[x] = true
	}
	for _, x := range got {
		g[x] = true
	}
	var only, extra []string
	for _, x := range want {
		if !g[x] {
			only = append(only, x)
		}
	}
	for _, x := range got {
		if !w[x] {
			extra = append(extra, x)
		}
	}
	if len(only)+len(extra) == 0 {
		return ""
	}
	return fmt.Sprintf("missing %v, extra %v", only, extra)
}

func nodeOf(t string) string {
	if i := strings.LastIndexByte(t, ':'); i >= 0 {
		return t[:i]
	}
	return t
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
