package render

import (
	"fmt"
	"strings"

	"github.com/tfscan/tfscan/reports"
)

func ExplainSummaryLine(r *reports.ExplainReport) string {
	s := r.Summary
	line := fmt.Sprintf("%d message(s): %d agree with tfscan, %d disagree, %d not assessed; %d about nodes not in the model; %d unparsed line(s)",
		s.Messages, s.Agree, s.Disagree, s.Unassessed, s.NotFound, r.UnparsedLines)
	if s.PlacementLines > 0 {
		line += fmt.Sprintf("; placement lines: %d, %d on the predicted kind of device", s.PlacementLines, s.PlacementAgree)
	}
	return line
}

func ExplainNodeLine(e reports.Explanation) string {
	var s string
	switch {
	case e.Node != "":
		s = e.Node
	case e.LoggedNode != "":
		s = e.LoggedNode
	default:
		s = "-"
	}
	var what []string
	if e.Op != "" {
		what = append(what, e.Op)
	}
	if len(e.DTypes) > 0 {
		what = append(what, strings.Join(e.DTypes, ","))
	}
	if len(what) > 0 {
		s += " (" + strings.Join(what, " ") + ")"
	}
	if e.Found != nil && !*e.Found {
		s += " - not in the model"
	}
	if e.NodesMatched > 1 {
		s += fmt.Sprintf(" and %d other node(s)", e.NodesMatched-1)
		if len(e.OtherNodes) > 0 {
			s += ": " + strings.Join(e.OtherNodes, ", ")
			if e.NodesMatched-1 > len(e.OtherNodes) {
				s += ", ..."
			}
		}
	}
	return s
}

func PredictionLine(e reports.Explanation, target string) string {
	p := e.Prediction
	if p == nil {
		return ""
	}
	s := target + ": " + p.Reason
	if p.Device != "" {
		s += " on " + p.Device
	}
	if len(p.Supported) > 0 {
		s += " (supported: " + strings.Join(p.Supported, "; ") + ")"
	}
	switch {
	case e.Agrees == nil:
	case *e.Agrees:
		s += " - the log agrees"
	default:
		s += " - the log disagrees"
	}
	return s
}

func FixLine(f reports.Fix) string {
	if f.Rank > 0 {
		return fmt.Sprintf("[%s #%d of %d] %s", f.Kind, f.Rank, f.Of, f.Text)
	}
	return "[" + f.Kind + "] " + f.Text
}
