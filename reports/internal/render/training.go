package render

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tfscan/tfscan/reports"
)

// TrainingOps is how many fallback groups a part's line names before it
// says how many more there are.
const TrainingOps = 4

// TrainingSummary is the one line a training step's target gets: the
// counted nodes of each part and the share the target covers, e.g.
// "training step: forward 1510 100.0% · backward 532 80.6%".
func TrainingSummary(t *reports.Target) string {
	if t.Training == nil {
		return ""
	}
	var parts []string
	for _, p := range t.Training.Parts {
		parts = append(parts, fmt.Sprintf("%s %d %s", p.Part, p.Nodes, FormatPercent(percent(p.Covered, p.Nodes))))
	}
	return "training step: " + strings.Join(parts, " · ")
}

// TrainingLines are the lines saying which part of a training step leaves
// the target's device, one per part that does, ops first: "backward on CPU:
// FusedBatchNormGradV3 float16 ×53, ReluGrad float16 ×49 (103 node(s), 103
// new vs cuda, 4.7 GiB/step in its islands)".
func TrainingLines(t *reports.Target) []string {
	if t.Training == nil {
		return nil
	}
	var out []string
	for _, p := range t.Training.Parts {
		if p.FallbackNodes == 0 {
			continue
		}
		facts := []string{fmt.Sprintf("%d node(s)", p.FallbackNodes)}
		if t.Delta != nil {
			facts = append(facts, fmt.Sprintf("%d new vs %s", p.NewFallbackNodes, t.Delta.Source))
		}
		if p.IslandBytes > 0 {
			facts = append(facts, FormatBytes(p.IslandBytes)+"/step in its islands")
		}
		out = append(out, fmt.Sprintf("%s on CPU: %s (%s)", p.Part, TrainingOpList(p), strings.Join(facts, ", ")))
	}
	return out
}

// TrainingOpList names a part's first fallback groups, "Op dtypes ×n".
func TrainingOpList(p reports.TrainingPart) string {
	var ops []string
	for _, o := range p.Fallback[:min(len(p.Fallback), TrainingOps)] {
		s := o.Op
		if len(o.DTypes) > 0 {
			s += " " + strings.Join(o.DTypes, ",")
		}
		ops = append(ops, s+" ×"+strconv.Itoa(o.Count))
	}
	if n := len(p.Fallback) - TrainingOps; n > 0 {
		ops = append(ops, fmt.Sprintf("… %d more group(s)", n))
	}
	return strings.Join(ops, ", ")
}

func percent(n, total int) float64 {
	if total == 0 {
		return 100
	}
	return 100 * float64(n) / float64(total)
}
