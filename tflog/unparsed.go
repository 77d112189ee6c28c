package tflog

import (
	"strings"

	"github.com/tfscan/tfscan/internal/lazyre"
)

// What counts as an unparsed line (Log.Unparsed). A line is unparsed when
// it is neither part of a message read by a template (its first line or a
// continuation line) nor a placement line, and either
//
//  1. it contains one of the phrases TensorFlow, tf_adapter and GE use only
//     in messages about a node, an op, a kernel or a device (markers
//     below: a "{{node ...}}" tag, "OpKernel", "Registered kernels",
//     "device specification", "npu node", "Optype [", ...), or
//  2. it is a log record at warning severity or worse (glog W/E/F, absl
//     W/E/F, CANN slog [WARNING]/[ERROR], Python "WARNING:tensorflow:")
//     written by one of the source files whose messages tfscan reads
//     (sourceFiles below).
//
// Everything else (progress output, Python tracebacks, the many INFO lines
// of other sources) is not a message about a node, op, kernel or device and
// is not counted. Continuation lines of a message TensorFlow printed over
// several lines are counted once each when the message itself is unknown.
var markers = []string{
	"{{node ", "{{colocation_node ", "OpKernel", "Registered kernels", "Registered devices",
	"device specification", "Cannot assign a device", "npu node", "npu unsupported",
	"Optype [", "Ops kernel", "ops kernel", "Op type not registered", "soft placement",
	"Unknown device",
}

// sourceFiles are the files of the templates in patterns.go.
var sourceFiles = map[string]bool{
	"placer.cc": true, "colocation_graph.cc": true, "op_kernel.cc": true, "context.cc": true,
	"execute.cc": true, "op.cc": true, "op_level_cost_estimator.cc": true,
	"om_partition_subgraphs_pass.cc": true, "npu_device.cpp": true, "node_placer.cpp": true,
	"dnnengine_manager.cc": true, "engine_place.cc": true, "compile_nodes_pass.cc": true,
	"ge_generator.cc": true,
}

var (
	// TF's logging.cc:574 "%s.%06d: %c%s %s:%d] ", absl "W0101 00:00:00.000000 123 file.cc:1] ".
	reGlogSev = lazyre.New(`^(?:\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+: ([IWEF])|([IWEF])\d{4} \d\d:\d\d:\d\d\.\d+)`)
	// CANN slog: "[WARNING] TF_ADAPTER(pid,proc):time [file:line]...".
	reSlogSev = lazyre.New(`^\[(DEBUG|INFO|WARNING|ERROR|EVENT|TRACE)\]`)
	reSource  = lazyre.New(`([A-Za-z0-9_]+\.(?:cc|cpp|c|h)):\d+\]`)
)

func unparsed(s string) bool {
	for _, m := range markers {
		if strings.Contains(s, m) {
			return true
		}
	}
	if !strings.Contains(s, ".cc:") && !strings.Contains(s, ".cpp:") || !severe(s) {
		return false
	}
	m := reSource.FindStringSubmatch(s)
	return m != nil && sourceFiles[m[1]]
}

// severe says whether s is a log record at warning severity or worse.
func severe(s string) bool {
	if strings.HasPrefix(s, "WARNING:tensorflow:") || strings.HasPrefix(s, "ERROR:tensorflow:") {
		return true
	}
	if s == "" || !(s[0] >= '0' && s[0] <= '9' || s[0] == 'W' || s[0] == 'E' || s[0] == 'F' || s[0] == 'I' || s[0] == '[') {
		return false
	}
	if m := reGlogSev.FindStringSubmatch(s); m != nil {
		sev := m[1] + m[2]
		return sev == "W" || sev == "E" || sev == "F"
	}
	if m := reSlogSev.FindStringSubmatch(s); m != nil {
		return m[1] == "WARNING" || m[1] == "ERROR"
	}
	return false
}
